/**
 * OTLP/HTTP trace export: one POST of an already encoded `ExportTraceServiceRequest` (JSON or
 * protobuf, built by src/interop) to an endpoint the user names, e.g. Langfuse's
 * `…/api/public/otel/v1/traces` or Arize Phoenix's `…/v1/traces`. It lives here because this is
 * the layer allowed to reach the network. Retries 408/409/429/5xx and network failures with
 * full-jitter backoff (retry.ts), honours a timeout and an abort signal, and never throws: the
 * result says what the server answered. Header values (credentials) never appear in a message.
 */
import { redactText } from './errors.ts';
import { backoffDelay, isRetryableStatus, parseRetryAfter, realSleep, type Sleep } from './retry.ts';

export type OtlpProtocol = 'json' | 'protobuf';

export const OTLP_CONTENT_TYPE: Record<OtlpProtocol, string> = {
  json: 'application/json',
  protobuf: 'application/x-protobuf',
};

export interface OtlpSendOptions {
  endpoint: string;
  protocol: OtlpProtocol;
  body: string | Uint8Array;
  /** Extra headers, e.g. `Authorization: Basic …` for Langfuse. */
  headers?: Record<string, string>;
  /** Per attempt, ms (default 30 s). */
  timeoutMs?: number;
  /** Attempts in all (default 3). */
  maxAttempts?: number;
  signal?: AbortSignal;
  fetch?: typeof fetch;
  sleep?: Sleep;
  random?: () => number;
  now?: () => number;
}

export type OtlpSendResult =
  | { ok: true; status: number; attempts: number; responseText: string }
  | { ok: false; status: number | null; attempts: number; message: string };

/** `Authorization: Basic base64(user:password)`, as Langfuse takes its public and secret key. */
export function basicAuth(user: string, password: string): string {
  const bytes = new TextEncoder().encode(`${user}:${password}`);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return `Basic ${btoa(bin)}`;
}

/** Checks the endpoint before anything is sent: http(s), no credentials in the URL. */
export function checkOtlpEndpoint(endpoint: string): string | null {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return `"${endpoint.slice(0, 200)}" is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `only http and https endpoints (got ${url.protocol})`;
  if (url.username !== '' || url.password !== '')
    return 'put credentials in a header (--header), not in the URL';
  return null;
}

const MAX_RESPONSE_CHARS = 64 * 1024;

export async function sendOtlp(o: OtlpSendOptions): Promise<OtlpSendResult> {
  const secrets = Object.values(o.headers ?? {}).flatMap((v) => [v, v.replace(/^(Basic|Bearer)\s+/i, '')]);
  const clean = (s: string): string => redactText(s, secrets).slice(0, 2_000);
  const problem = checkOtlpEndpoint(o.endpoint);
  if (problem) return { ok: false, status: null, attempts: 0, message: problem };
  const doFetch = o.fetch ?? fetch;
  const sleep = o.sleep ?? realSleep;
  const random = o.random ?? Math.random;
  const now = o.now ?? Date.now;
  const maxAttempts = Math.max(1, o.maxAttempts ?? 3);
  const timeoutMs = o.timeoutMs ?? 30_000;
  let last: OtlpSendResult = { ok: false, status: null, attempts: 0, message: 'not sent' };
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    if (o.signal?.aborted) return { ok: false, status: null, attempts: attempt - 1, message: 'cancelled' };
    const controller = new AbortController();
    const onAbort = (): void => controller.abort();
    o.signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    let retryAfterMs: number | undefined;
    try {
      const response = await doFetch(o.endpoint, {
        method: 'POST',
        headers: { ...(o.headers ?? {}), 'Content-Type': OTLP_CONTENT_TYPE[o.protocol] },
        body: typeof o.body === 'string' ? o.body : new Uint8Array(o.body),
        signal: controller.signal,
      });
      const text = (await response.text().catch(() => '')).slice(0, MAX_RESPONSE_CHARS);
      if (response.ok)
        return { ok: true, status: response.status, attempts: attempt, responseText: clean(text) };
      const hint =
        response.status === 415 && o.protocol === 'json'
          ? ' (the endpoint refuses JSON; send protobuf: --protocol protobuf)'
          : response.status === 401 || response.status === 403
            ? ' (check the credentials header)'
            : '';
      last = {
        ok: false,
        status: response.status,
        attempts: attempt,
        message: `HTTP ${response.status}${hint}${text ? `: ${clean(text)}` : ''}`,
      };
      if (!isRetryableStatus(response.status)) return last;
      retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), now());
    } catch (e) {
      const timedOut = controller.signal.aborted && !o.signal?.aborted;
      last = {
        ok: false,
        status: null,
        attempts: attempt,
        message: o.signal?.aborted
          ? 'cancelled'
          : timedOut
            ? `no answer within ${timeoutMs} ms`
            : `network error: ${clean(e instanceof Error ? e.message : String(e))}`,
      };
      if (o.signal?.aborted || timedOut) return last;
    } finally {
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
    }
    if (attempt < maxAttempts) {
      const policy = {
        maxAttempts,
        baseDelayMs: 500,
        maxDelayMs: 8_000,
        maxRetryAfterMs: 60_000,
        retryOnTimeout: false,
      };
      await sleep(
        Math.min(retryAfterMs ?? backoffDelay(attempt - 1, policy, random), policy.maxRetryAfterMs),
        o.signal,
      );
    }
  }
  return last;
}
