/** Retry policy: which failures are retried and how long to wait between attempts. */

export interface RetryPolicy {
  /** Total attempts including the first; 1 disables retries. */
  maxAttempts: number;
  /** Backoff scale, ms: the n-th retry (n = 0, 1, ...) waits up to base·2^n. */
  baseDelayMs: number;
  /** Cap on one backoff wait, ms. */
  maxDelayMs: number;
  /** Longest Retry-After the client will honour, ms; a longer request ends the call. */
  maxRetryAfterMs: number;
  /** Whether a per-attempt timeout is retried. Off by default: a server that hung once
   * tends to hang again, and each retry costs a whole timeout of the user's wait. */
  retryOnTimeout: boolean;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
  retryOnTimeout: false,
};

/** 408, 409 (OpenAI's "try again" lock conflict), 429 and every 5xx are transient. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * "Full jitter" backoff (Brooks, AWS Architecture Blog, 2015): wait = U(0, 1) · min(cap,
 * base · 2^retryIndex), in ms. Spreading waits uniformly keeps parallel agents that failed
 * together from retrying together.
 */
export function backoffDelay(retryIndex: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retryIndex);
  return Math.floor(random() * ceiling);
}

/**
 * Parses a Retry-After header: delay-seconds ("2", "0.5") or an HTTP date. Returns ms to
 * wait from `nowMs` (never negative), or undefined when the header is missing or unreadable.
 */
export function parseRetryAfter(header: string | null, nowMs: number): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (value === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Real-timer sleep that ends early (resolving) when `signal` aborts; callers check it after. */
export const realSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) {
      resolve();
      return;
    }
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
