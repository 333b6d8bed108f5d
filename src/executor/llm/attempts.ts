/**
 * Runs a call's attempts: each gets its own `AttemptControl` (an AbortController linked to
 * the caller's signal, with a restartable per-attempt timeout), and the loop retries
 * retryable failures after Retry-After or full-jitter backoff until success, a final error,
 * exhaustion or cancellation. The timers of the whole client live here and in `realSleep`.
 */
import type { AttemptResult } from './classify.ts';
import { fail, ok, redactSecrets, type LlmError, type LlmResult } from './errors.ts';
import { backoffDelay, type RetryPolicy, type Sleep } from './retry.ts';
import type { CallOptions } from './types.ts';

/** One attempt's abort controller, linked to the caller's signal, with a restartable timer. */
export class AttemptControl {
  readonly controller = new AbortController();
  timedOut = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly onUserAbort = (): void => this.controller.abort();

  constructor(
    private readonly timeoutMs: number,
    private readonly userSignal: AbortSignal | undefined,
  ) {
    userSignal?.addEventListener('abort', this.onUserAbort, { once: true });
    this.touch();
  }

  get userAborted(): boolean {
    return this.userSignal?.aborted ?? false;
  }

  /** Restarts the timeout; called when bytes arrive on a stream. */
  touch(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort();
    }, this.timeoutMs);
  }

  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.userSignal?.removeEventListener('abort', this.onUserAbort);
  }
}

export interface RetryRunner {
  policy: RetryPolicy;
  sleep: Sleep;
  /** Uniform [0, 1) source for jitter. */
  random: () => number;
  /** Redacted from the error passed to `onRetry`. */
  secrets: readonly string[];
}

export interface Attempted<T> {
  result: LlmResult<T>;
  attempts: number;
  /** Tokens the failed attempts may have been billed (see `AttemptResult`). */
  spentTokens: number;
}

/** Runs attempts until success, a non-retryable error, exhaustion or cancellation. */
export async function withRetries<T>(
  runner: RetryRunner,
  options: CallOptions,
  timeoutMs: number,
  attempt: (control: AttemptControl, timeoutMs: number) => Promise<AttemptResult<T>>,
): Promise<Attempted<T>> {
  const { policy } = runner;
  let spentTokens = 0;
  for (let n = 1; ; n += 1) {
    if (options.signal?.aborted) {
      return {
        result: fail({ kind: 'aborted', attempts: n - 1, message: 'The call was cancelled.' }),
        attempts: n - 1,
        spentTokens,
      };
    }
    const control = new AttemptControl(timeoutMs, options.signal);
    let outcome: AttemptResult<T>;
    try {
      outcome = await attempt(control, timeoutMs);
    } finally {
      control.dispose();
    }
    if (outcome.ok) return { result: ok(outcome.value), attempts: n, spentTokens };
    spentTokens += outcome.spentTokens ?? 0;
    const error: LlmError = { ...outcome.error, attempts: n };
    const exhausted = n >= policy.maxAttempts;
    if (!outcome.retryable || exhausted) {
      if (outcome.retryable && n > 1) error.message += ` Gave up after ${n} attempts.`;
      return { result: fail(error), attempts: n, spentTokens };
    }
    if (outcome.retryAfterMs !== undefined && outcome.retryAfterMs > policy.maxRetryAfterMs) {
      error.message += ` The server asked to wait ${Math.ceil(outcome.retryAfterMs / 1000)} s, longer than the ${Math.round(policy.maxRetryAfterMs / 1000)} s this client waits.`;
      return { result: fail(error), attempts: n, spentTokens };
    }
    const delayMs = outcome.retryAfterMs ?? backoffDelay(n - 1, policy, runner.random);
    options.onRetry?.(redactSecrets({ attempt: n, delayMs, error }, runner.secrets));
    await runner.sleep(delayMs, options.signal);
  }
}
