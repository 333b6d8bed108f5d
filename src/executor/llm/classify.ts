/**
 * What one attempt produced, and the classification of its failures: a rejected fetch or
 * body read (the caller's abort, our timeout, or the network), a non-2xx status with the
 * provider's message, an unusable body. Each failure says whether it is worth retrying.
 * Pure: the effects that produce these inputs live in `http.ts`.
 */
import { describeStatus, type LlmError, type PartialOutput } from './errors.ts';
import { isRetryableStatus, parseRetryAfter } from './retry.ts';
import { ErrorBodyWire } from './schemas.ts';

/** What one attempt produced. `spentTokens` estimates tokens a failed attempt may be billed. */
export type AttemptResult<T> =
  | { ok: true; value: T }
  | { ok: false; error: LlmError; retryable: boolean; retryAfterMs?: number; spentTokens?: number };
export type Failure = Extract<AttemptResult<never>, { ok: false }>;

/** Provider error messages are shown in the UI; longer ones are cut, characters. */
export const MAX_PROVIDER_MESSAGE_CHARS = 300;
/** Start of a body that is not JSON, quoted in the error so one can tell what came, characters. */
export const QUOTED_BODY_CHARS = 60;

/** How an attempt ended when its fetch or body read was rejected (see `AttemptControl`). */
export interface AttemptState {
  readonly userAborted: boolean;
  readonly timedOut: boolean;
}

export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** The error's message, with Node's `cause.code` (e.g. ECONNREFUSED) when there is one. */
export function causeText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as { cause?: unknown }).cause;
  const code = typeof cause === 'object' && cause !== null ? (cause as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? `${err.message} (${code})` : err.message;
}

export function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** A body the client cannot use: never retried, since the server would answer the same. */
export function invalid(message: string, issues: string[] = [], partial?: PartialOutput): Failure {
  return {
    ok: false,
    retryable: false,
    error: { kind: 'invalid-response', attempts: 0, message, issues, ...(partial ? { partial } : {}) },
  };
}

/** The message of an OpenAI-shaped error body, or undefined when `json` is not one. */
export function errorBodyMessage(json: unknown): string | undefined {
  const body = ErrorBodyWire.safeParse(json);
  if (!body.success) return undefined;
  const e = body.data.error;
  return typeof e === 'string' ? e : e.message;
}

/** Classifies a rejected fetch or body read: the caller's abort, our timeout, or the network. */
export function thrownFailure(
  err: unknown,
  state: AttemptState,
  url: string,
  timeoutMs: number,
  retryOnTimeout: boolean,
): Failure {
  if (state.userAborted) {
    return {
      ok: false,
      retryable: false,
      error: { kind: 'aborted', attempts: 0, message: 'The call was cancelled.' },
    };
  }
  if (state.timedOut) {
    return {
      ok: false,
      retryable: retryOnTimeout,
      error: {
        kind: 'timeout',
        timeoutMs,
        attempts: 0,
        message: `No response from ${hostOf(url)} within ${(timeoutMs / 1000).toFixed(1)} s.`,
      },
    };
  }
  return {
    ok: false,
    retryable: true,
    error: {
      kind: 'network',
      attempts: 0,
      message: `Could not reach ${hostOf(url)} or the connection broke (${causeText(err)}). Check the base URL, that the server is running, and that it allows requests from this page (CORS).`,
    },
  };
}

/**
 * Turns a non-2xx response into a failure: `body` is its text ('' when unreadable),
 * `retryAfter` its Retry-After header, `nowMs` the clock for an HTTP-date Retry-After.
 */
export function httpFailure(status: number, body: string, retryAfter: string | null, nowMs: number): Failure {
  let providerMessage: string | undefined;
  if (body.length > 0) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      parsed = undefined;
    }
    const said = errorBodyMessage(parsed);
    if (said !== undefined) providerMessage = shorten(said, MAX_PROVIDER_MESSAGE_CHARS);
  }
  const retryAfterMs = parseRetryAfter(retryAfter, nowMs);
  const error: LlmError = {
    kind: 'http',
    status,
    attempts: 0,
    message: describeStatus(status) + (providerMessage ? ` The server said: "${providerMessage}"` : ''),
    ...(providerMessage !== undefined ? { providerMessage } : {}),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  };
  return {
    ok: false,
    error,
    retryable: isRetryableStatus(status),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  };
}
