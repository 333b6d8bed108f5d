/**
 * The simulator pool (sim-pool.ts) gives the trainer the numbers of its own thread's runners: the
 * same iterations, bit for bit, with episodes on real Node worker threads, and with workers that
 * answer garbage, crash or report errors (their calls then run in this thread, and the pool says
 * why). A call's design crosses as changes from the last one its worker holds; they rebuild it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Agent, Design, Task } from '../core/trace.ts';
import { simulatedRunners } from '../executor/train-runners.ts';
import { BatchedPolicy, DEFAULT_POOL, priorCheckpoint } from '../policy/index.ts';
import {
  PRESET_TABLE,
  Trainer,
  drawTasks,
  rolloutMany,
  trainConfig,
  type IterationMetrics,
  type Rollout,
} from '../train/index.ts';
import type { WorkerEndpoint } from './rpc/endpoint.ts';
import { answeringWorker, channelServed, crashingWorker, simulatedSampling } from './stand-in-workers.ts';
import { trainHandlers } from './train.session.ts';
import { designOfJob, simHandlers } from './sim.handlers.ts';
import { simMethods, type SimJob } from './sim.methods.ts';
import { nodeSimSpawner } from './sim.node.ts';
import { createSimPool, defaultSimWorkers, jobOf, simWorkersFor, type SimPool } from './sim-pool.ts';

const CPU = { backend: 'cpu', reason: 'test', adapter: null, ctx: null } as const;
const config = trainConfig({ preset: 'mixed', seed: 3, tasksPerIteration: 3, groupSize: 3, epochs: 1 });

/** Two iterations' metrics (timings left out) and the policy after them. */
async function train(runners: typeof simulatedRunners): Promise<{ metrics: string[]; params: string }> {
  const t = await Trainer.create({
    start: priorCheckpoint(DEFAULT_POOL),
    pool: DEFAULT_POOL,
    config,
    choice: CPU,
    runners,
    sampling: 'batched',
  });
  try {
    const metrics: string[] = [];
    for (let i = 0; i < 2; i++) {
      const { timings: _t, ...m }: IterationMetrics = await t.iterate();
      metrics.push(JSON.stringify(m));
    }
    return { metrics, params: JSON.stringify(t.checkpoint.params) };
  } finally {
    t.dispose();
  }
}

const reference = train(simulatedRunners);

/** One batch of rollouts (4 tasks × 4 constructions): every step's intermediate run included. */
async function rollouts(runners: typeof simulatedRunners): Promise<Rollout[]> {
  const policy = BatchedPolicy.create(priorCheckpoint(DEFAULT_POOL), CPU, { maxBatch: 16 });
  try {
    const tasks = drawTasks(PRESET_TABLE.mixed, 11, 4, 'train');
    return await rolloutMany({
      ...simulatedSampling(config, runners),
      policy,
      episodes: tasks.flatMap((task, i) => [0, 1, 2, 3].map((g) => ({ task, seed: 100 * i + g }))),
    });
  } finally {
    policy.dispose();
  }
}
const referenceRollouts = rollouts(simulatedRunners);
const pools: SimPool[] = [];
afterAll(() => {
  for (const p of pools) p.dispose();
});
const pool = (workers: number, spawn: () => WorkerEndpoint): SimPool => {
  const p = createSimPool({ workers, spawn });
  pools.push(p);
  return p;
};

/** A simulator worker on a MessageChannel in this thread, its handlers as given. */
const channelWorker = (handlers = simHandlers()): (() => WorkerEndpoint) =>
  channelServed(simMethods, handlers, 'sim');

describe('the simulator pool', () => {
  it('gives the rollouts of this thread, step by step, from workers on Node threads', async () => {
    const p = pool(2, nodeSimSpawner());
    const got = await rollouts(p.runners);
    const want = await referenceRollouts;
    expect(
      got.flatMap((r) => r.steps).filter((s) => s.intermediateCorrect !== undefined).length,
    ).toBeGreaterThan(16);
    expect(got).toEqual(want);
    expect(p.problems).toEqual([]);
  }, 120_000);

  it('trains as this thread does, with episodes on two Node worker threads', async () => {
    const p = pool(2, nodeSimSpawner());
    const got = await train(p.runners);
    expect(got).toEqual(await reference);
    expect(p.problems).toEqual([]);
    expect(p.threads).toBe(3);
  }, 120_000);

  it('trains as this thread does with channel workers (no thread), and none with 0 workers', async () => {
    const p = pool(3, channelWorker());
    expect(await rollouts(p.runners)).toEqual(await referenceRollouts);
    expect(await train(p.runners)).toEqual(await reference);
    expect(p.problems).toEqual([]);
    const none = pool(0, () => {
      throw new Error('no worker should start');
    });
    expect(await train(none.runners)).toEqual(await reference);
    expect(none.threads).toBe(1);
  }, 120_000);

  it('runs the calls of a worker that answers garbage in this thread, with the same numbers', async () => {
    const p = pool(1, answeringWorker({ answers: [{ kind: 'intermediate' }] }));
    expect(await rollouts(p.runners)).toEqual(await referenceRollouts);
    expect(p.threads).toBe(1);
    expect(p.problems).toHaveLength(1);
    expect(p.problems[0]).toMatch(
      /^simulator worker 1 stopped \(.*answers.*\); its episodes run in this thread$/,
    );
  }, 120_000);

  it('runs the calls of a crashed worker, and of one that reports errors, in this thread', async () => {
    const crashed = pool(1, crashingWorker('out of memory'));
    expect(await rollouts(crashed.runners)).toEqual(await referenceRollouts);
    expect(crashed.problems[0]).toMatch(/^simulator worker 1 stopped \(.*out of memory.*\)/);

    const erring = pool(
      2,
      channelWorker({
        run: async (b) => ({ answers: b.jobs.map(() => ({ kind: 'error' as const, message: 'broken' })) }),
      }),
    );
    expect(await rollouts(erring.runners)).toEqual(await referenceRollouts);
    expect(erring.threads).toBe(1);
    expect(erring.problems).toEqual([
      'simulator worker 1 stopped (broken); its episodes run in this thread',
      'simulator worker 2 stopped (broken); its episodes run in this thread',
    ]);
  }, 120_000);

  it('sends a design as changes from the one its worker holds, which rebuilds it', () => {
    const agent = (id: string, input = ''): Agent => ({
      id,
      type: 'CoTAgent',
      description: `role ${id}`,
      input,
      params: {},
    });
    const [a, b, c, d] = [agent('a'), agent('b', '${a}'), agent('c', '${a} ${b}'), agent('d')];
    const designs: Design[] = [
      { dom: 'high', agents: [a], edges: [] },
      { dom: 'high', agents: [a, b], edges: [{ from: 'a', to: 'b' }] },
      {
        dom: 'high',
        agents: [a, b, c],
        edges: [
          { from: 'a', to: 'b' },
          { from: 'b', to: 'c' },
        ],
      },
      // b deleted, d added, c kept: indices move
      { dom: 'high', agents: [a, c, d], edges: [{ from: 'a', to: 'c' }], thinking: 'why' },
      { dom: 'low', agents: [], edges: [], directAnswer: '42' },
    ];
    const mb = { id: 'x' } as never;
    const task: Task = { query: 'q', groundTruth: null, source: { kind: 'custom' } };
    const r = {
      id: 7,
      lane: { taskKeys: new Map(), nextKey: 0, newTasks: [] },
      mb,
      seed: 1,
      task,
      seen: task,
      started: false,
      sentAgents: [] as readonly Agent[],
      local: null,
    } as unknown as Parameters<typeof jobOf>[0];
    let held: readonly Agent[] = [];
    const jobs: SimJob[] = [];
    for (const d of designs) {
      const job = jobOf(r, 'intermediate', d, task);
      jobs.push(job);
      const got = designOfJob(job, held);
      expect(got).toEqual(d);
      held = got.agents;
    }
    // The first job starts the runner; unchanged agents go as indices, so each new agent crosses once.
    expect(jobs[0]?.start).toEqual({ task: 0, seed: 1 });
    expect(jobs.slice(1).every((j) => j.start === undefined && j.task === undefined)).toBe(true);
    expect(jobs.map((j) => j.added.map((x) => x.id))).toEqual([['a'], ['b'], ['c'], ['d'], []]);
    expect(jobs[3]?.agents).toEqual([0, 2, 3]);
    // A call whose task differs from the runner's sends it.
    const other = { ...task, query: 'another' };
    expect(jobOf(r, 'final', designs[0] as Design, other).task).toEqual(other);
    // An index the worker cannot resolve is refused, not guessed.
    expect(() => designOfJob({ ...(jobs[1] as SimJob), agents: [0, 5] }, [a])).toThrow(/neither/);
  });

  it('the training session runs on the pool its start asks for, and says so in the reason', async () => {
    const asked: unknown[] = [];
    const handlers = trainHandlers({
      choose: async () => CPU,
      simPool: (threads) => {
        asked.push(threads);
        return pool(simWorkersFor(threads, 2), channelWorker());
      },
    });
    const small = { ...config, evalEvery: 0 };
    const ctx = { signal: new AbortController().signal, progress: () => undefined } as never;
    const started = await handlers.start(
      { config: small, from: { kind: 'prior' }, backend: 'cpu', simThreads: 3, rolloutThreads: 1 },
      ctx,
    );
    expect(asked).toEqual([3]);
    expect(started.reason).toBe('test; simulated sub-agents on 3 threads');
    const ran = await handlers.run({ iterations: 1, snapshotEvery: 10 }, ctx);
    expect(ran.backend.reason).toBe('test; simulated sub-agents on 3 threads');
    // The held-out evaluation runs on the pool too, with the numbers of one thread.
    const alone = trainHandlers({ choose: async () => CPU });
    await alone.start(
      { config: small, from: { kind: 'prior' }, backend: 'cpu', simThreads: 1, rolloutThreads: 1 },
      ctx,
    );
    await alone.run({ iterations: 1, snapshotEvery: 10 }, ctx);
    const [a, b] = [
      await handlers.evaluate({ n: 4, seed: 5 }, ctx),
      await alone.evaluate({ n: 4, seed: 5 }, ctx),
    ];
    expect(a.current).not.toBeNull();
    expect(a).toEqual(b);
    await handlers.reset(undefined as never, ctx);
    await alone.reset(undefined as never, ctx);
  }, 120_000);

  it('uses a core each beyond two, at most 7 workers; a threads setting counts this thread', () => {
    expect([1, 2, 3, 4, 8, 16, 64].map(defaultSimWorkers)).toEqual([0, 0, 1, 2, 6, 7, 7]);
    expect(simWorkersFor('auto', 8)).toBe(6);
    expect(simWorkersFor(1, 8)).toBe(0);
    expect(simWorkersFor(4, 2)).toBe(3);
  });
});
