/**
 * Rollout workers on trial (rollout-probe.ts, `TrainerOptions.rolloutProbe`): the trainer keeps the
 * faster way by its own clock, and trains to the same numbers whichever it keeps.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_POOL, priorCheckpoint } from '../policy/index.ts';
import { trainConfig } from './config.ts';
import { Trainer } from './loop.ts';
import type { IterationMetrics } from './metrics.ts';
import { PROBE_ROUNDS, RolloutProbe } from './rollout-probe.ts';
import type { RunnersFor } from './rollout.ts';
import type { RolloutWorkers } from './rollout-workers.ts';

/** Sub-agents that answer from the design's size (the trainer's tests' stand-in for the simulator). */
const runners: RunnersFor = () => ({
  intermediate: (design) =>
    Promise.resolve({ answer: `${design.agents.length}`, correct: design.agents.length >= 2 }),
  final: (trace) => Promise.resolve({ correct: trace.design.agents.length >= 2, tokens: 1000 }),
});

describe('RolloutProbe', () => {
  it('warms the workers up, lets both ways take turns, then keeps the one with the lower mean', () => {
    const p = new RolloutProbe(4, () => 0);
    const ways: boolean[] = [];
    // The workers take 10 ms, this thread alone 30 (the warm-up's 500 is not counted).
    for (let i = 0; i < 1 + 2 * PROBE_ROUNDS; i++) {
      const pool = p.usePool();
      ways.push(pool);
      expect(p.choice).toBeNull();
      p.record(pool, i === 0 ? 500 : pool ? 10 : 30);
    }
    expect(ways).toEqual([true, false, true, false, true]);
    expect(p.choice).toEqual({ pool: true, poolMs: 10, aloneMs: 30, threads: 4 });
    expect([p.usePool(), p.usePool()]).toEqual([true, true]);
    p.record(true, 1000);
    expect(p.choice?.poolMs).toBe(10);
  });

  it('drops the workers when this thread alone is faster', () => {
    const p = new RolloutProbe(8, () => 0);
    for (let i = 0; i < 1 + 2 * PROBE_ROUNDS; i++) {
      const pool = p.usePool();
      p.record(pool, pool ? 40 : 25);
    }
    expect(p.choice).toEqual({ pool: false, poolMs: 40, aloneMs: 25, threads: 8 });
    expect(p.usePool()).toBe(false);
  });
});

describe('a trainer with rollout workers on trial', () => {
  const config = trainConfig({ preset: 'mixed', seed: 5, tasksPerIteration: 2, groupSize: 3, epochs: 1 });
  /**
   * Workers that sample every block in this thread (the same rollouts), on a clock that moves
   * `poolMs` while they sample and `aloneMs` per call otherwise: the rollout times the trainer reads.
   */
  const run = async (poolMs: number, aloneMs: number, probe: boolean) => {
    let now = 0;
    let pooled = 0;
    let stopped = 0;
    const workers: RolloutWorkers = {
      threads: 3,
      problems: [],
      sample: async (r) => {
        pooled += 1;
        const out = await r.here(r.episodes);
        now += poolMs - aloneMs;
        return out;
      },
      dispose: () => void (stopped += 1),
    };
    const t = await Trainer.create({
      start: priorCheckpoint(DEFAULT_POOL),
      pool: DEFAULT_POOL,
      config,
      choice: { backend: 'cpu', reason: 'test', adapter: null, ctx: null },
      runners,
      sampling: 'batched',
      rolloutWorkers: workers,
      // Each reading moves the clock by `aloneMs`: an iteration's rollout reads it twice.
      ...(probe ? { rolloutProbe: () => (now += aloneMs) } : {}),
    });
    try {
      const metrics: string[] = [];
      const probing: boolean[] = [];
      for (let i = 0; i < 2 + 2 * PROBE_ROUNDS; i++) {
        const m: IterationMetrics = await t.iterate();
        // The probe's clock is its own: the metrics carry no timings.
        expect(m.timings).toBeUndefined();
        metrics.push(JSON.stringify(m));
        probing.push(t.rolloutProbing);
      }
      return {
        metrics,
        pooled,
        stopped,
        choice: t.rolloutChoice,
        probing,
        params: JSON.stringify(t.checkpoint.params),
      };
    } finally {
      t.dispose();
    }
  };

  it('keeps the workers when they sample faster, drops them when slower, with the same numbers', async () => {
    const fast = await run(5, 20, true);
    const slow = await run(90, 20, true);
    const always = await run(90, 20, false);
    // Warm-up and 2 + 2 turns, then the faster way: the workers sample 4 of 6 iterations when
    // kept, 3 when not; without a probe every one.
    expect(fast.choice).toEqual({ pool: true, poolMs: 5, aloneMs: 20, threads: 3 });
    expect(fast.pooled).toBe(4);
    expect(slow.choice).toEqual({ pool: false, poolMs: 90, aloneMs: 20, threads: 3 });
    expect(slow.pooled).toBe(3);
    expect(always.choice).toBeNull();
    expect(always.pooled).toBe(6);
    // Workers not kept are stopped once, when the trial ends; kept ones are left to their owner.
    expect([fast.stopped, slow.stopped, always.stopped]).toEqual([0, 1, 0]);
    expect(fast.probing).toEqual([true, true, true, true, false, false]);
    expect(fast.metrics).toEqual(always.metrics);
    expect(slow.metrics).toEqual(always.metrics);
    expect(fast.params).toBe(always.params);
  });
});
