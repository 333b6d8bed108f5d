/**
 * Every way a call can fail, as one discriminated union on `kind`. Each error carries a
 * `message` written for the person using the page; none of them ever contains the API key
 * (see {@link redactSecrets}, applied to every error before it leaves the client).
 */

/** Text produced before a streaming call failed, with its estimated usage. */
export interface PartialOutput {
  content: string;
  completionTokensEstimate: number;
}

interface ErrorBase {
  message: string;
  /** Attempts made, including the first (1 when the call was not retried). */
  attempts: number;
  /** Set when a stream failed after text had already been delivered to the caller. */
  partial?: PartialOutput;
}

export type LlmError =
  | (ErrorBase & {
      kind: 'http';
      status: number;
      /** The provider's own error message, shortened and redacted, when it sent one. */
      providerMessage?: string;
      /** How long the server asked us to wait (Retry-After), in ms, when it said. */
      retryAfterMs?: number;
    })
  | (ErrorBase & { kind: 'timeout'; timeoutMs: number })
  | (ErrorBase & { kind: 'aborted' })
  | (ErrorBase & { kind: 'network' })
  | (ErrorBase & { kind: 'invalid-response'; issues: string[] })
  | (ErrorBase & {
      kind: 'budget';
      limit: 'tokens' | 'usd';
      /** What this call would need: tokens, or USD; null when the model's price is unknown. */
      requested: number | null;
      /** What is left under the limit: tokens, or USD. */
      remaining: number;
    });

export type LlmErrorKind = LlmError['kind'];

export type LlmResult<T> = { ok: true; value: T } | { ok: false; error: LlmError };

export const ok = <T>(value: T): LlmResult<T> => ({ ok: true, value });
export const fail = <T>(error: LlmError): LlmResult<T> => ({ ok: false, error });

/** Secrets shorter than this are not searched for: replacing "a" everywhere would shred text. */
const MIN_SECRET_LENGTH = 4;

/**
 * Replaces every occurrence of each secret (and anything that looks like a bearer token) in
 * `text` with a placeholder. Used on every string that leaves the client in an error.
 */
export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET_LENGTH) out = out.split(secret).join('[redacted]');
  }
  return out.replace(/Bearer\s+[^\s"',]+/gi, 'Bearer [redacted]');
}

/** Deep-redacts every string in an error (messages, provider text, issues, partial output). */
export function redactSecrets<T>(value: T, secrets: readonly string[]): T {
  if (typeof value === 'string') return redactText(value, secrets) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => redactSecrets(v, secrets)) as T;
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactSecrets(v, secrets);
    return out as T;
  }
  return value;
}

/** Short human explanation for an HTTP status from an LLM API. */
export function describeStatus(status: number): string {
  if (status === 401) return 'The API key was rejected (HTTP 401). Check the key in Settings.';
  if (status === 403)
    return 'The server refused the request (HTTP 403): the key may lack access to this model.';
  if (status === 404)
    return 'The server has no such endpoint or model (HTTP 404). Check the base URL and model name.';
  if (status === 408) return 'The server timed out waiting for the request (HTTP 408).';
  if (status === 413) return 'The request is too large for the server (HTTP 413). Shorten the prompt.';
  if (status === 429) return 'The provider is rate-limiting requests (HTTP 429).';
  if (status >= 500) return `The provider had a server error (HTTP ${status}).`;
  if (status >= 400) return `The server rejected the request (HTTP ${status}).`;
  return `Unexpected HTTP status ${status}.`;
}
