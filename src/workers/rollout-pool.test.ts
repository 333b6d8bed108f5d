/**
 * The rollout pool (rollout-pool.ts) gives the trainer the numbers of its own thread: the same
 * iterations, bit for bit, with blocks of constructions sampled whole on real Node worker threads
 * (cpu and wasm), and with workers that answer garbage, answer a wrong block, crash or report
 * errors (their blocks are then sampled in this thread, and the pool says why).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { simulatedRunners } from '../executor/train-runners.ts';
import { BatchedPolicy, DEFAULT_POOL, priorCheckpoint } from '../policy/index.ts';
import {
  Learner,
  PRESET_TABLE,
  Trainer,
  drawTasks,
  rolloutMany,
  trainConfig,
  type IterationMetrics,
  type RolloutWorkers,
} from '../train/index.ts';
import type { WorkerEndpoint } from './rpc/endpoint.ts';
import { answeringWorker, channelServed, crashingWorker, simulatedSampling } from './stand-in-workers.ts';
import { rolloutHandlers } from './rollout.handlers.ts';
import { rolloutMethods, RolloutRequestSchema } from './rollout.methods.ts';
import { nodeRolloutSpawner } from './sim.node.ts';
import { blockBounds, createRolloutPool } from './rollout-pool.ts';
import { encodeRollouts } from './rollout-wire.ts';
import { simWorkersFor } from './sim-pool.ts';
import { trainHandlers } from './train.session.ts';

const choiceOf = (backend: 'cpu' | 'wasm') =>
  ({ backend, reason: 'test', adapter: null, ctx: null }) as const;
const config = trainConfig({ preset: 'mixed', seed: 5, tasksPerIteration: 3, groupSize: 3, epochs: 1 });

/** Two iterations' metrics (timings left out), their mean steps per construction summed, and the policy after them. */
async function train(
  backend: 'cpu' | 'wasm',
  rolloutWorkers?: RolloutWorkers,
): Promise<{ metrics: string[]; params: string; sampled: number }> {
  const t = await Trainer.create({
    start: priorCheckpoint(DEFAULT_POOL),
    pool: DEFAULT_POOL,
    config,
    choice: choiceOf(backend),
    runners: simulatedRunners,
    sampling: 'batched',
    ...(rolloutWorkers ? { rolloutWorkers } : {}),
  });
  try {
    const metrics: string[] = [];
    let sampled = 0;
    for (let i = 0; i < 2; i++) {
      const { timings: _t, ...m }: IterationMetrics = await t.iterate();
      sampled += m.steps;
      metrics.push(JSON.stringify(m));
    }
    return { metrics, params: JSON.stringify(t.checkpoint.params), sampled };
  } finally {
    t.dispose();
  }
}

const reference = { cpu: train('cpu'), wasm: train('wasm') };

const pools: RolloutWorkers[] = [];
afterAll(() => {
  for (const p of pools) p.dispose();
});
const pool = (workers: number, spawn: () => WorkerEndpoint): RolloutWorkers => {
  const p = createRolloutPool({ workers, spawn });
  pools.push(p);
  return p;
};

/** A rollout worker on a MessageChannel in this thread, its handlers as given. */
const channelWorker = (handlers = rolloutHandlers(), seen?: unknown[]): (() => WorkerEndpoint) =>
  channelServed(
    rolloutMethods,
    {
      rollouts: (req, ctx) => {
        seen?.push(req);
        return handlers.rollouts(req, ctx);
      },
    },
    'rollout',
  );

describe('the rollout pool', () => {
  it('deals contiguous blocks whose sizes differ by at most one', () => {
    expect(blockBounds(9, 3)).toEqual([
      [0, 3],
      [3, 6],
      [6, 9],
    ]);
    expect(blockBounds(7, 3)).toEqual([
      [0, 3],
      [3, 5],
      [5, 7],
    ]);
    expect(blockBounds(2, 4)).toEqual([
      [0, 1],
      [1, 2],
    ]);
    expect(blockBounds(0, 3)).toEqual([[0, 0]]);
    expect(() => createRolloutPool({ workers: -1, spawn: channelWorker() })).toThrow(/0 to 63/);
  });

  it('gives the rollouts of this thread, designs and states replayed from the steps', async () => {
    const cp = priorCheckpoint(DEFAULT_POOL);
    const policy = BatchedPolicy.create(cp, choiceOf('cpu'), { maxBatch: 16 });
    const tasks = drawTasks(PRESET_TABLE.mixed, 11, 4, 'train');
    const episodes = tasks.flatMap((task, i) => [0, 1, 2, 3].map((g) => ({ task, seed: 100 * i + g })));
    const common = simulatedSampling(config);
    try {
      const want = await rolloutMany({ ...common, policy, episodes });
      const here: { task: unknown; seed: number }[][] = [];
      const p = pool(3, channelWorker());
      // The parameters as the trainer hands them on: the learner's arena.
      const learner = await Learner.create(cp, cp, DEFAULT_POOL, config, choiceOf('cpu'));
      const arena = await learner.arena();
      learner.dispose();
      policy.load(cp, arena);
      const got = await p.sample({
        ...common,
        checkpoint: policy.checkpoint,
        arena,
        backend: 'cpu',
        jpss: true,
        edgeMode: policy.edgeMode,
        episodes,
        here: (block) => {
          here.push([...block]);
          return rolloutMany({ ...common, policy, episodes: block });
        },
      });
      expect(p.problems).toEqual([]);
      expect(here.map((b) => b.length)).toEqual([4]);
      expect(
        got.flatMap((r) => r.steps).filter((s) => s.intermediateAnswer !== undefined).length,
      ).toBeGreaterThan(16);
      const drop = ({ states: _s, ...r }: (typeof want)[number]) => r;
      expect(got.map(drop)).toEqual(want.map(drop));
      expect(got.map((r) => r.states?.map((s) => [s.step, s.agents.length, s.results.length]))).toEqual(
        want.map((r) => r.states?.map((s) => [s.step, s.agents.length, s.results.length])),
      );
    } finally {
      policy.dispose();
    }
  }, 120_000);

  it('trains as this thread does with blocks on two Node worker threads (wasm)', async () => {
    const p = pool(2, nodeRolloutSpawner());
    const got = await train('wasm', p);
    const want = await reference.wasm;
    expect(want.sampled).toBeGreaterThan(4);
    expect(got).toEqual(want);
    expect(p.problems).toEqual([]);
    expect(p.threads).toBe(3);
  }, 120_000);

  it('trains as this thread does on the CPU backend, with channel workers, and with none', async () => {
    const seen: unknown[] = [];
    const p = pool(2, channelWorker(rolloutHandlers(), seen));
    expect(await train('cpu', p)).toEqual(await reference.cpu);
    expect(p.problems).toEqual([]);
    // Per worker: the setup once, the parameters every iteration, each task sent once.
    const reqs = seen.map((r) => RolloutRequestSchema.parse(r));
    expect(reqs).toHaveLength(4);
    expect(reqs.filter((r) => r.setup !== undefined)).toHaveLength(2);
    expect(reqs.every((r) => r.setup === undefined || r.setup.backend === 'cpu')).toBe(true);
    expect(reqs.every((r) => r.episodes.length === 3)).toBe(true);
    const none = pool(0, () => {
      throw new Error('no worker should start');
    });
    expect(await train('cpu', none)).toEqual(await reference.cpu);
    expect(none.threads).toBe(1);
  }, 120_000);

  it('samples the block of a worker that answers garbage or a wrong block here, with the same numbers', async () => {
    const garbage = pool(1, answeringWorker({ rollouts: [{ steps: 'none' }] }));
    expect(await train('cpu', garbage)).toEqual(await reference.cpu);
    expect(garbage.threads).toBe(1);
    expect(garbage.problems).toHaveLength(1);
    expect(garbage.problems[0]).toMatch(/^rollout worker 1 stopped \(.*\); its blocks run in this thread$/);

    const short = pool(1, answeringWorker(encodeRollouts([], DEFAULT_POOL)));
    expect(await train('cpu', short)).toEqual(await reference.cpu);
    expect(short.problems).toEqual([
      'rollout worker 1 stopped (it answered 0 constructions for a block of 4); its blocks run in this thread',
    ]);
  }, 120_000);

  it('samples the blocks of a crashed worker, and of one that reports errors, here', async () => {
    const crashed = pool(1, crashingWorker('out of memory'));
    expect(await train('cpu', crashed)).toEqual(await reference.cpu);
    expect(crashed.problems[0]).toMatch(/^rollout worker 1 stopped \(.*out of memory.*\)/);

    const erring = pool(
      2,
      channelWorker({
        rollouts: async () => {
          throw new Error('broken');
        },
      }),
    );
    expect(await train('cpu', erring)).toEqual(await reference.cpu);
    expect(erring.threads).toBe(1);
    expect(erring.problems).toHaveLength(2);
    expect(erring.problems[1]).toMatch(
      /^rollout worker 2 stopped \(.*broken.*\); its blocks run in this thread$/,
    );
  }, 120_000);

  it('the training session samples on the rollout workers its start asks for, and says so in the reason', async () => {
    const asked: unknown[] = [];
    const handlers = trainHandlers({
      choose: async () => choiceOf('cpu'),
      rolloutPool: (threads) => {
        asked.push(threads);
        return pool(simWorkersFor(threads, 2), channelWorker());
      },
    });
    const small = { ...config, evalEvery: 0 };
    const ctx = { signal: new AbortController().signal, progress: () => undefined } as never;
    const start = { config: small, from: { kind: 'prior' as const }, backend: 'cpu' as const, simThreads: 1 };
    const started = await handlers.start({ ...start, rolloutThreads: 3 }, ctx);
    expect(asked).toEqual([3]);
    expect(started.reason).toBe('test; rollouts on 3 threads');
    const ran = await handlers.run({ iterations: 2, snapshotEvery: 10 }, ctx);
    expect(ran.backend.reason).toBe('test; rollouts on 3 threads');
    // One thread's numbers: the same trained policy and history as a run without workers.
    const alone = trainHandlers({
      choose: async () => choiceOf('cpu'),
      rolloutPool: () => {
        throw new Error('1 thread starts no pool');
      },
    });
    await alone.start({ ...start, rolloutThreads: 1 }, ctx);
    await alone.run({ iterations: 2, snapshotEvery: 10 }, ctx);
    const strip = (h: { history: { timings?: unknown }[] }) => h.history.map(({ timings: _t, ...m }) => m);
    const [a, b] = [await handlers.snapshot({}, ctx), await alone.snapshot({}, ctx)];
    expect(a.history).toHaveLength(2);
    expect(strip(a)).toEqual(strip(b));
    expect(a.checkpoint.params).toEqual(b.checkpoint.params);
    await handlers.reset(undefined as never, ctx);
    await alone.reset(undefined as never, ctx);
  }, 120_000);

  it('with auto threads the session times the workers against this thread, keeps the faster and says so', async () => {
    // A clock that moves 1 ms per reading: the workers are no faster, so this thread keeps the
    // rollouts once the trial is over.
    let t = 0;
    const handlers = trainHandlers({
      choose: async () => choiceOf('cpu'),
      now: () => (t += 1),
      rolloutPool: (threads) => pool(simWorkersFor(threads, 4), channelWorker()),
    });
    const events: { kind: string; backend?: { reason: string } }[] = [];
    const ctx = {
      signal: new AbortController().signal,
      progress: (p: (typeof events)[number]) => events.push(p),
    } as never;
    const small = { ...config, evalEvery: 0 };
    const start = { config: small, from: { kind: 'prior' as const }, backend: 'cpu' as const, simThreads: 1 };
    const started = await handlers.start({ ...start, rolloutThreads: 'auto' }, ctx);
    expect(started.reason).toBe('test; rollouts on 3 threads (timing them against this thread alone)');
    const ran = await handlers.run({ iterations: 6, snapshotEvery: 10 }, ctx);
    const told = events.filter((e) => e.kind === 'backend').map((e) => e.backend?.reason);
    const kept =
      'test; rollouts on this thread (1.0 ms per iteration on 3 threads, 1.0 ms on this one alone)';
    expect(told).toEqual([kept]);
    expect(ran.backend.reason).toBe(kept);
    // The same numbers as a run on one thread.
    const alone = trainHandlers({ choose: async () => choiceOf('cpu') });
    await alone.start({ ...start, rolloutThreads: 1 }, ctx);
    await alone.run({ iterations: 6, snapshotEvery: 10 }, ctx);
    const [a, b] = [await handlers.snapshot({}, ctx), await alone.snapshot({}, ctx)];
    expect(a.checkpoint.params).toEqual(b.checkpoint.params);
    await handlers.reset(undefined as never, ctx);
    await alone.reset(undefined as never, ctx);
    // Auto on two cores starts no worker: this thread alone, and nothing said about threads.
    const two = trainHandlers({
      choose: async () => choiceOf('cpu'),
      rolloutPool: (threads) => pool(simWorkersFor(threads, 2), channelWorker()),
    });
    expect((await two.start({ ...start, rolloutThreads: 'auto' }, ctx)).reason).toBe('test');
    await two.reset(undefined as never, ctx);
  }, 120_000);

  it('a worker refuses parameters that do not fit its sampler, and a call before its setup', async () => {
    const h = rolloutHandlers();
    const ctx = { signal: new AbortController().signal, progress: () => undefined };
    const base = {
      name: 'prior',
      resetTasks: false,
      tasks: [],
      episodes: [{ task: 0, seed: 1 }],
      maxSteps: 10,
      temperature: 1,
      greedy: false,
      intermediate: true,
      rewards: config.actionReward,
    };
    await expect(
      h.rollouts(RolloutRequestSchema.parse({ ...base, arena: new Float32Array(4) }), ctx),
    ).rejects.toThrow(/carries its setup/);
    const setup = {
      checkpoint: priorCheckpoint(DEFAULT_POOL),
      pool: DEFAULT_POOL,
      backend: 'cpu' as const,
      maxBatch: 4,
      jpss: true,
      edgeMode: 'two-pass' as const,
    };
    await expect(
      h.rollouts(RolloutRequestSchema.parse({ ...base, setup, arena: new Float32Array(4) }), ctx),
    ).rejects.toThrow(/task 0 was not sent/);
    expect(RolloutRequestSchema.safeParse({ ...base, arena: new Float32Array([Number.NaN]) }).success).toBe(
      false,
    );
    expect(RolloutRequestSchema.safeParse({ ...base, arena: [1, 2] }).success).toBe(false);
  });
});
