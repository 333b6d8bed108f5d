/**
 * Secret removal for anything that leaves the tab (links, exports). DESIGN.md: API keys never
 * appear in traces, links, exports or logs. Traces should not hold keys in the first place; this
 * is the second line of defence for text a model or a user pasted (e.g. a key echoed in a
 * prompt, a copied curl command with an Authorization header).
 */

export const REDACTED = '[redacted]';

/**
 * Key shapes of the common LLM and code-hosting providers. Each pattern is anchored so that it
 * does not start inside a longer word (`task-…` must not match `sk-…`), and requires enough
 * random-looking characters that ordinary prose does not match.
 */
const NOT_AFTER = '(?<![A-Za-z0-9_-])';
const KEY_PATTERNS: readonly RegExp[] = [
  // OpenAI (sk-…, sk-proj-…), OpenRouter (sk-or-v1-…), Anthropic (sk-ant-…), DeepSeek (sk-…).
  new RegExp(`${NOT_AFTER}sk-[A-Za-z0-9_-]{16,}`, 'g'),
  // Groq, Hugging Face, xAI, Together (tgp_v1_…), Perplexity, Fireworks, Replicate.
  new RegExp(`${NOT_AFTER}gsk_[A-Za-z0-9]{16,}`, 'g'),
  new RegExp(`${NOT_AFTER}hf_[A-Za-z0-9]{16,}`, 'g'),
  new RegExp(`${NOT_AFTER}xai-[A-Za-z0-9_-]{16,}`, 'g'),
  new RegExp(`${NOT_AFTER}tgp_v1_[A-Za-z0-9_-]{16,}`, 'g'),
  new RegExp(`${NOT_AFTER}pplx-[A-Za-z0-9]{16,}`, 'g'),
  new RegExp(`${NOT_AFTER}fw_[A-Za-z0-9]{16,}`, 'g'),
  new RegExp(`${NOT_AFTER}r8_[A-Za-z0-9]{16,}`, 'g'),
  // Google API keys (Gemini): "AIza" + 35 characters.
  new RegExp(`${NOT_AFTER}AIza[0-9A-Za-z_-]{30,}`, 'g'),
  // GitHub tokens, AWS access key ids, Slack tokens.
  new RegExp(`${NOT_AFTER}(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}`, 'g'),
  new RegExp(`${NOT_AFTER}github_pat_[A-Za-z0-9_]{20,}`, 'g'),
  new RegExp(`${NOT_AFTER}AKIA[0-9A-Z]{16}(?![0-9A-Z])`, 'g'),
  new RegExp(`${NOT_AFTER}xox[abposr]-[A-Za-z0-9-]{10,}`, 'g'),
];

/** `Bearer <token>` anywhere, e.g. in a pasted curl command. The word "Bearer" is kept. */
const BEARER = /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{12,}/gi;

/**
 * Header-style assignments whose value is a credential: `Authorization: Basic …`,
 * `"x-api-key": "…"`, `api_key=…`. The name is kept, the value replaced.
 */
const HEADER =
  /\b((?:proxy-)?authorization|x-api-key|x-goog-api-key|api[-_]?key|access[-_]?token|client[-_]?secret|password)(["']?\s*[:=]\s*["']?)(?:(?:Bearer|Basic|Token)\s+)?(?!\[redacted\])[^\s"',;&]{4,}/gi;

/** Object keys whose values are dropped entirely, compared after lower-casing and removing `-`/`_`. */
const SECRET_KEYS = new Set([
  'apikey',
  'authorization',
  'key',
  'secret',
  'token',
  'password',
  'xapikey',
  'accesstoken',
  'refreshtoken',
  'clientsecret',
  'secretkey',
  'privatekey',
]);

export function isSecretKey(name: string): boolean {
  return SECRET_KEYS.has(name.toLowerCase().replace(/[-_]/g, ''));
}

/** Replaces every credential-shaped part of `text` with `[redacted]`. */
export function redactText(text: string): string {
  // Cheap pre-check: almost every string in a trace has none of these markers, and this keeps
  // redaction from dominating the time of encoding a large trace.
  if (
    !/sk-|gsk_|hf_|xai-|tgp_|pplx-|fw_|r8_|AIza|gh[pousr]_|github_pat_|AKIA|xox|bearer|authori|key|token|secret|password/i.test(
      text,
    )
  ) {
    return text;
  }
  let out = text;
  for (const re of KEY_PATTERNS) out = out.replace(re, REDACTED);
  out = out.replace(BEARER, `$1${REDACTED}`);
  out = out.replace(HEADER, `$1$2${REDACTED}`);
  return out;
}

/**
 * A deep copy of `value` with secrets removed: credential-shaped substrings become `[redacted]`
 * and object keys that name a credential (apiKey, api_key, authorization, key, secret, token,
 * password, …) are dropped. Plain data only (objects, arrays, primitives); cycles are cut.
 */
export function redactSecrets<T>(value: T): T {
  return copy(value, new WeakSet()) as T;
}

function copy(value: unknown, seen: WeakSet<object>): unknown {
  if (typeof value === 'string') return redactText(value);
  if (typeof value !== 'object' || value === null) return value;
  if (seen.has(value)) return null;
  seen.add(value);
  let out: unknown;
  if (Array.isArray(value)) {
    out = value.map((v) => copy(v, seen));
  } else {
    const obj: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (isSecretKey(k)) continue;
      obj[k] = copy(v, seen);
    }
    out = obj;
  }
  seen.delete(value);
  return out;
}
