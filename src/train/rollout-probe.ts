/**
 * Rollout workers measured against this thread alone (`TrainerOptions.rolloutProbe`): whether a
 * rollout pool pays depends on the machine (on two shared cores it was slower, docs/benchmarks.md
 * "Rollouts on worker threads"), and the rollouts are the same either way, so a run that asks for
 * `auto` rollout threads times both on its own iterations and keeps the faster. The first
 * iteration samples on the workers and is not counted (their first passes compile); then the two
 * ways take turns, PROBE_ROUNDS iterations each, and the one with the lower mean samples from then
 * on. It reads only the clock it is given (the trainer reads no time of its own).
 */

/** Counted iterations per way. */
export const PROBE_ROUNDS = 2;

/** What the probe decided, for the run's status line. */
export interface RolloutChoice {
  /** True: the workers sample; false: this thread alone. */
  pool: boolean;
  /** Mean rollout ms per counted iteration on the workers and on this thread alone. */
  poolMs: number;
  aloneMs: number;
  /** Threads the workers sampled on, this one included. */
  threads: number;
}

/** Both times of a decision, e.g. "12.0 ms per iteration on 8 threads, 36.0 ms on this one alone". */
export function rolloutTimes(c: RolloutChoice): string {
  return `${c.poolMs.toFixed(1)} ms per iteration on ${c.threads} threads, ${c.aloneMs.toFixed(1)} ms on this one alone`;
}

export class RolloutProbe {
  private seen = 0;
  private readonly pool: number[] = [];
  private readonly alone: number[] = [];
  private decided: RolloutChoice | null = null;

  constructor(
    private readonly threads: number,
    private readonly clock: () => number,
  ) {}

  /** Times one iteration's rollouts: on the workers when `pool`; `end()` when they are in. */
  start(): { pool: boolean; end: () => void } {
    const pool = this.usePool();
    const t0 = this.clock();
    return { pool, end: () => this.record(pool, this.clock() - t0) };
  }

  /** Whether the next iteration samples on the workers. */
  usePool(): boolean {
    if (this.decided) return this.decided.pool;
    // 0: warm-up on the workers; then this thread, the workers, this thread, …
    return this.seen === 0 || this.seen % 2 === 0;
  }

  /** The rollout time of the iteration `usePool()` was asked for. */
  record(pool: boolean, ms: number): void {
    if (this.decided) return;
    if (this.seen > 0) (pool ? this.pool : this.alone).push(ms);
    this.seen += 1;
    if (this.pool.length >= PROBE_ROUNDS && this.alone.length >= PROBE_ROUNDS) {
      const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
      const [poolMs, aloneMs] = [mean(this.pool), mean(this.alone)];
      this.decided = { pool: poolMs < aloneMs, poolMs, aloneMs, threads: this.threads };
    }
  }

  /** The decision, once the counted iterations are in (null while measuring). */
  get choice(): RolloutChoice | null {
    return this.decided;
  }
}
