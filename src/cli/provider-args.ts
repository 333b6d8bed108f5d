/**
 * The provider flags `baton run` and `baton construct` share: an OpenAI-compatible endpoint
 * (`--base-url`, `--model`, `--api-key-env`), the agents running at once (`--concurrency`) and the
 * spending limits (`--budget-tokens`, `--budget-usd`). Parsing, validation, the client and the
 * output that keeps the API key out of sight live here, once. The key is read only from the
 * environment variable `--api-key-env` names, never from the command line.
 */
import { backendFromSpec, secretsOf, type RemoteSpec } from '../executor/backend-spec.ts';
import type { ChatBackend } from '../executor/types.ts';
import type { RunBudget } from '../executor/run.ts';
import { normalizeBaseUrl, redactText } from '../executor/llm/index.ts';
import type { CliIO } from './command.ts';

/** `parseArgs` options for the shared flags; spread into a command's own options. */
export const PROVIDER_OPTIONS = {
  'base-url': { type: 'string' },
  model: { type: 'string' },
  'api-key-env': { type: 'string' },
  concurrency: { type: 'string' },
  'budget-tokens': { type: 'string' },
  'budget-usd': { type: 'string' },
} as const;

export type ProviderFlag = keyof typeof PROVIDER_OPTIONS;

/** The usage lines for the shared flags; `selectedBy` is the flag value that picks the provider. */
export function providerUsage(selectedBy: string): string {
  return `  --base-url     API base URL for ${selectedBy}, e.g. https://api.openai.com/v1
  --model        model name for ${selectedBy}
  --api-key-env  environment variable holding the API key (default OPENAI_API_KEY); the key is
                 never read from the command line and never written to the output or the trace
  --concurrency  agents running at once (default 4)
  --budget-tokens, --budget-usd   limits (tokens, USD); calls that could cross them are not sent`;
}

export const DEFAULT_API_KEY_ENV = 'OPENAI_API_KEY';
const DEFAULT_CONCURRENCY = 4;

export interface Endpoint {
  /** As given; checked to be an http(s) URL without credentials. */
  baseUrl: string;
  model: string;
  /** Name of the environment variable that holds the key. */
  apiKeyEnv: string;
}

export interface ProviderArgs {
  /** Null unless the command selected the provider. */
  endpoint: Endpoint | null;
  /** Agents running at once, 1..64. */
  concurrency: number;
  /** `totalTokens` from --budget-tokens, `totalUsd` from --budget-usd; empty without them. */
  budget: RunBudget;
}

type Values = Readonly<Record<string, string | boolean | undefined>>;

/** An integer flag in [min, max], the fallback when absent, or the problem as a sentence. */
export function intFlag(
  raw: string | boolean | undefined,
  name: string,
  min: number,
  max: number,
  fallback: number,
): number | string {
  if (raw === undefined) return fallback;
  if (typeof raw !== 'string' || !/^\d+$/.test(raw))
    return `--${name} must be an integer from ${min} to ${max}, got "${String(raw)}"`;
  const v = Number(raw);
  return v < min || v > max ? `--${name} must be an integer from ${min} to ${max}, got ${raw}` : v;
}

/** The shared flags present in `values`, as `--name`. */
export function providerFlagsIn(values: Values): string[] {
  return Object.keys(PROVIDER_OPTIONS)
    .filter((k) => values[k] !== undefined)
    .map((k) => `--${k}`);
}

/**
 * Validates the shared flags. `selectedBy` (e.g. `--backend openai`) is the choice that needs an
 * endpoint, or null when the command runs without one (then there is no `endpoint`).
 */
export function parseProviderArgs(
  values: Values,
  selectedBy: string | null,
): { ok: true; value: ProviderArgs } | { ok: false; message: string } {
  const str = (k: ProviderFlag): string | undefined =>
    typeof values[k] === 'string' ? (values[k] as string) : undefined;
  let endpoint: Endpoint | null = null;
  if (selectedBy !== null) {
    const baseUrl = str('base-url');
    const model = str('model');
    if (!baseUrl || !model) return { ok: false, message: `${selectedBy} needs --base-url and --model` };
    const url = normalizeBaseUrl(baseUrl);
    if (!url.ok) return { ok: false, message: `--base-url: ${url.message}` };
    const apiKeyEnv = str('api-key-env') ?? DEFAULT_API_KEY_ENV;
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(apiKeyEnv))
      return { ok: false, message: '--api-key-env must name an environment variable (letters, digits, _)' };
    endpoint = { baseUrl, model, apiKeyEnv };
  }
  const concurrency = intFlag(values.concurrency, 'concurrency', 1, 64, DEFAULT_CONCURRENCY);
  if (typeof concurrency === 'string') return { ok: false, message: concurrency };
  const tokens = intFlag(values['budget-tokens'], 'budget-tokens', 1, 1e12, 0);
  if (typeof tokens === 'string') return { ok: false, message: tokens };
  const usdRaw = str('budget-usd');
  const usd = usdRaw === undefined ? undefined : Number(usdRaw);
  if (usd !== undefined && !(usdRaw?.trim() !== '' && Number.isFinite(usd) && usd >= 0))
    return { ok: false, message: `--budget-usd must be a non-negative number, got "${usdRaw}"` };
  return {
    ok: true,
    value: {
      endpoint,
      concurrency,
      budget: {
        ...(tokens > 0 ? { totalTokens: tokens } : {}),
        ...(usd !== undefined ? { totalUsd: usd } : {}),
      },
    },
  };
}

export interface Provider {
  /** The endpoint as a backend spec (src/executor/backend-spec.ts), key included: never print it. */
  spec: RemoteSpec;
  backend: ChatBackend;
  /** The key from the environment ('' when unset): pass it as a secret, never print it. */
  key: string;
  /** Strings to remove from everything recorded or printed: the key when there is one. */
  secrets: string[];
  /** A line to show before the first call (e.g. that the key is missing), or null. */
  note: string | null;
}

/**
 * The backend for an endpoint, with the key from the environment. Without a key the calls go out
 * unauthenticated (local servers need none); a provider that needs one answers 401, which the
 * run reports.
 */
export function openProvider(endpoint: Endpoint, env: NodeJS.ProcessEnv = process.env): Provider {
  const key = env[endpoint.apiKeyEnv] ?? '';
  const spec: RemoteSpec = {
    kind: 'remote',
    provider: 'openai-compatible',
    baseUrl: endpoint.baseUrl,
    model: endpoint.model,
    apiKey: key,
  };
  return {
    spec,
    backend: backendFromSpec(spec),
    key,
    secrets: secretsOf(spec),
    note: key
      ? null
      : `note: ${endpoint.apiKeyEnv} is not set; calling ${endpoint.baseUrl} without an API key.`,
  };
}

/** `io` with every line passed through the redaction of `secrets` first. */
export function redactingIO(io: CliIO, secrets: readonly string[]): CliIO {
  if (secrets.length === 0) return io;
  return {
    cwd: io.cwd,
    out: (line) => io.out(redactText(line, secrets)),
    err: (line) => io.err(redactText(line, secrets)),
  };
}

/** JSON text of `value` with `secrets` removed, as written to a trace file. */
export function redactedJson(value: unknown, secrets: readonly string[]): string {
  const json = JSON.stringify(value, null, 2);
  return secrets.length > 0 ? redactText(json, secrets) : json;
}
