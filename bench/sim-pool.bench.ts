/**
 * `npm run bench:sim-pool`: whole training iterations with the simulated sub-agents in the
 * trainer's thread (as `simulatedRunners` runs them) against the simulator pool
 * (src/workers/sim-pool.ts: that thread and `--workers` worker threads; default
 * `defaultSimWorkers` of this machine's cores, at least 1 here so that the pool is measured), on the
 * wasm backend (`--backend cpu` for TypeScript), B=32 × G=8 (`--tasks 8`: the default config), from
 * `prior`, preset mixed. The workers run one esbuild bundle of src/workers/sim.node-worker.ts, as a
 * page or the device benchmark's packed folder runs them (the sources through tsx run slower).
 *
 * `npm run bench:rollout-pool` (`--pool rollouts`): the same against the rollout pool
 * (src/workers/rollout-pool.ts: blocks of constructions sampled whole, one in the trainer's thread
 * and one per worker; a bundle of rollout.node-worker.ts), and then what one worker's answer costs
 * the trainer's thread (`answerCost`).
 *
 * Two trainers of the same seed take turns, one iteration each, the order alternating by round,
 * after one untimed round; the bench checks that their metrics agree exactly in every round. Per
 * round and in medians: the rollout (sampling + simulation), the whole iteration, the pool's speed
 * ratio, and how long each thread was busy (event-loop utilisation: the trainer's thread for either
 * trainer, and the workers' sum for the pool). On a machine with a free core per worker, the
 * rollout's simulation time is what the workers' busy time divided among them leaves; where the
 * workers share cores with the trainer's thread (two cores here), only the busy times move. Writes
 * nothing.
 *
 *   npm run bench:sim-pool [-- --rounds 6 --workers 1 --tasks 32 --backend wasm]
 *   npm run bench:rollout-pool [-- --rounds 6 --workers 1 --tasks 32 --backend wasm]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance as perf, type EventLoopUtilization } from 'node:perf_hooks';
import type { Worker } from 'node:worker_threads';
import { simulatedRunners } from '../src/executor/train-runners.ts';
import { z } from 'zod';
import { ConstructionStepSchema } from '../src/core/trace.ts';
import { DEFAULT_POOL, actionNames, priorCheckpoint, replay, toValidDesign } from '../src/policy/index.ts';
import {
  Learner,
  PRESET_TABLE,
  Trainer,
  drawTasks,
  trainConfig,
  type RolloutWorkers,
} from '../src/train/index.ts';
import { createRolloutPool } from '../src/workers/rollout-pool.ts';
import { rolloutsFromWire } from '../src/workers/rollout-wire.ts';
import { rolloutHandlers } from '../src/workers/rollout.handlers.ts';
import { RolloutRequestSchema, rolloutMethods } from '../src/workers/rollout.methods.ts';
import { createSimPool, defaultSimWorkers } from '../src/workers/sim-pool.ts';
import { nodeRolloutSpawner, nodeSimSpawner } from '../src/workers/sim.node.ts';
import { buildSimWorker } from './sim-worker-build.ts';

const argv = process.argv.slice(2);
const opt = (name: string, dflt: string): string => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? (argv[i + 1] ?? dflt) : dflt;
};
const CORES = availableParallelism();
const ROUNDS = Number(opt('rounds', '6'));
const WORKERS = Number(opt('workers', String(Math.max(1, defaultSimWorkers(CORES)))));
const TASKS = Number(opt('tasks', '32'));
const BACKEND = opt('backend', 'wasm') as 'wasm' | 'cpu';
const POOL = opt('pool', 'sim') as 'sim' | 'rollouts';
if (POOL !== 'sim' && POOL !== 'rollouts') throw new Error(`--pool ${POOL}: sim or rollouts`);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;
const f1 = (x: number): string => x.toFixed(1);

const dir = mkdtempSync(join(tmpdir(), 'baton-sim-'));
const script = join(dir, `${POOL}-worker.mjs`);
await buildSimWorker(script, POOL === 'sim' ? 'sim' : 'rollout');
const threads: Worker[] = [];
const spawned = (w: Worker): number => threads.push(w);
const pool =
  POOL === 'sim'
    ? createSimPool({ workers: WORKERS, spawn: nodeSimSpawner({ script: pathToFileURL(script) }, spawned) })
    : createRolloutPool({
        workers: WORKERS,
        spawn: nodeRolloutSpawner({ script: pathToFileURL(script) }, spawned),
      });
const config = trainConfig({ preset: 'mixed', seed: 0, tasksPerIteration: TASKS, groupSize: 8 });
const make = (runners: typeof simulatedRunners, rolloutWorkers?: RolloutWorkers): Promise<Trainer> =>
  Trainer.create({
    start: priorCheckpoint(DEFAULT_POOL),
    pool: DEFAULT_POOL,
    config,
    choice: { backend: BACKEND, reason: 'bench', adapter: null, ctx: null },
    runners,
    sampling: 'batched',
    clock: () => performance.now(),
    ...(rolloutWorkers ? { rolloutWorkers } : {}),
  });
interface Side {
  name: string;
  t: Trainer;
  rollout: number[];
  iter: number[];
  busy: number[];
  workersBusy: number[];
}
const side = async (
  name: string,
  runners: typeof simulatedRunners,
  rolloutWorkers?: RolloutWorkers,
): Promise<Side> => ({
  name,
  t: await make(runners, rolloutWorkers),
  rollout: [],
  iter: [],
  busy: [],
  workersBusy: [],
});
const one = await side('one thread', simulatedRunners);
const pooled =
  'runners' in pool
    ? await side(`pool (${WORKERS + 1} threads)`, pool.runners)
    : await side(`pool (${WORKERS + 1} threads)`, simulatedRunners, pool);
console.log(
  `${BACKEND} backend, B=${TASKS} × G=8 (${TASKS * 8} episodes), ${CORES} cores, ${WORKERS} ${POOL === 'sim' ? 'simulator' : 'rollout'} worker${WORKERS === 1 ? '' : 's'} (bundled)`,
);
const rows: Record<string, string | number>[] = [];
try {
  for (let r = -1; r < ROUNDS; r++) {
    const metrics: string[] = [];
    for (const s of r % 2 === 0 ? [one, pooled] : [pooled, one]) {
      const e0 = perf.eventLoopUtilization();
      const w0 = threads.map((w) => w.performance.eventLoopUtilization());
      const t0 = performance.now();
      const m = await s.t.iterate();
      const ms = performance.now() - t0;
      const e = perf.eventLoopUtilization(e0);
      const w = threads.map((x, i) => x.performance.eventLoopUtilization(w0[i] as EventLoopUtilization));
      const { timings, ...rest } = m;
      metrics.push(JSON.stringify(rest));
      if (r < 0) continue;
      s.rollout.push(timings?.rolloutMs ?? NaN);
      s.iter.push(ms);
      s.busy.push(e.active);
      s.workersBusy.push(w.reduce((a, x) => a + x.active, 0));
    }
    if (metrics[0] !== metrics[1])
      throw new Error(`round ${r + 1}: the pool's metrics differ from one thread's`);
    if (r < 0) continue;
    rows.push({
      round: r + 1,
      'rollout ms (one / pool)': `${f1(one.rollout[r] as number)} / ${f1(pooled.rollout[r] as number)}`,
      'iteration ms (one / pool)': `${f1(one.iter[r] as number)} / ${f1(pooled.iter[r] as number)}`,
      'iteration speed-up': Number(((one.iter[r] as number) / (pooled.iter[r] as number)).toFixed(2)),
      'trainer thread busy ms (one / pool)': `${f1(one.busy[r] as number)} / ${f1(pooled.busy[r] as number)}`,
      'workers busy ms (pool)': f1(pooled.workersBusy[r] as number),
    });
  }
  console.table(rows);
  const ratio = (x: number[], y: number[]): number => median(x.map((v, i) => v / (y[i] as number)));
  console.log(
    `medians: rollout ${f1(median(one.rollout))} → ${f1(median(pooled.rollout))} ms, iteration ` +
      `${f1(median(one.iter))} → ${f1(median(pooled.iter))} ms (speed-up per round, median ` +
      `${ratio(one.iter, pooled.iter).toFixed(2)}×), trainer thread busy ${f1(median(one.busy))} → ` +
      `${f1(median(pooled.busy))} ms, workers busy ${f1(median(pooled.workersBusy))} ms; metrics equal in every round`,
  );
  console.log(
    `pool: ${pool.threads} threads in use${pool.problems.length ? `; ${pool.problems.join('; ')}` : ''}`,
  );
  if (POOL === 'rollouts') console.log(await answerCost());
} finally {
  one.t.dispose();
  pooled.t.dispose();
  pool.dispose();
  rmSync(dir, { recursive: true, force: true });
}

/**
 * What one worker's answer costs the trainer's thread, alone in this thread: an answer for a whole
 * iteration's constructions (B × 8, the bench's config, from `prior`) made by the rollout handlers
 * here, in columns (the wire) and, as the baseline, as the objects they decode to with the steps'
 * role distributions as bare probabilities and no states (the answer of the object form this wire
 * replaced): each one's structured clone (what postMessage does: the trainer's thread pays the
 * reading), its schema parse (what the RPC client does: `WireBlockSchema`, or
 * `ConstructionStepSchema` per step) and what makes rollouts of it (`rolloutsFromWire`: every number
 * checked and the replay; the baseline: the names put back, `replay` and the design); medians of 30
 * rounds taking turns.
 */
async function answerCost(): Promise<string> {
  const cp = priorCheckpoint(DEFAULT_POOL);
  const learner = await Learner.create(cp, cp, DEFAULT_POOL, config, {
    backend: BACKEND,
    reason: 'bench',
    adapter: null,
    ctx: null,
  });
  const arena = await learner.arena();
  learner.dispose();
  const tasks = drawTasks(PRESET_TABLE[config.preset], 11, TASKS, 'train');
  const episodes = tasks.flatMap((task, i) =>
    Array.from({ length: 8 }, (_, g) => ({ task, seed: 100 * i + g })),
  );
  const request = {
    setup: {
      checkpoint: cp,
      pool: DEFAULT_POOL,
      backend: BACKEND,
      maxBatch: episodes.length,
      jpss: true,
      edgeMode: 'two-pass' as const,
    },
    name: cp.name,
    arena,
    resetTasks: false,
    tasks: tasks.map((task, key) => ({ key, task })),
    episodes: episodes.map((e, i) => ({ task: Math.floor(i / 8), seed: e.seed })),
    maxSteps: config.maxSteps,
    temperature: 1,
    greedy: false,
    intermediate: true,
    rewards: config.actionReward,
  };
  const ctx = { signal: new AbortController().signal, progress: () => undefined };
  const wire = await rolloutHandlers().rollouts(RolloutRequestSchema.parse(request), ctx);
  const on = { pool: DEFAULT_POOL, checkpoint: cp, maxSteps: config.maxSteps };
  const decoded = rolloutsFromWire(rolloutMethods.rollouts.output.parse(wire), episodes, on);
  if (typeof decoded === 'string') throw new Error(`the bench's own answer does not fit: ${decoded}`);
  // The baseline: the same rollouts as objects, each step's role distribution as probabilities.
  const objects = decoded.map((r) => ({
    steps: r.steps.map(({ roleDistribution, ...step }) => ({
      ...step,
      roleP: roleDistribution.map((d) => d.p),
    })),
    correct: r.correct,
    tokens: r.tokens,
    intermediate: [...r.intermediate],
  }));
  const ObjectStep = ConstructionStepSchema.omit({ roleDistribution: true }).extend({
    roleP: z.array(z.number().min(0).max(1)).max(256),
  });
  const ObjectAnswer = z.array(
    z.object({
      steps: z.array(ObjectStep).max(64),
      correct: z.boolean().nullable(),
      tokens: z.number().int().nonnegative(),
      intermediate: z.array(z.boolean().nullable()).max(64),
    }),
  );
  const names = actionNames(DEFAULT_POOL);
  const limits = { maxAgents: cp.config.maxAgents, maxSteps: Math.min(config.maxSteps, cp.config.maxSteps) };
  const fromObjects = (answer: z.infer<typeof ObjectAnswer>): number =>
    answer.reduce((n, r) => {
      const steps = r.steps.map(({ roleP, ...x }) => ({
        ...x,
        roleDistribution: roleP.map((p, j) => ({ action: names[j] as string, p })),
      }));
      const { final } = replay(DEFAULT_POOL, limits, steps);
      return n + (toValidDesign(final)?.agents.length ?? 0);
    }, 0);
  fromObjects(ObjectAnswer.parse(objects));
  const forms = {
    columns: {
      clone: () => structuredClone(wire),
      parse: () => rolloutMethods.rollouts.output.parse(wire),
      make: () => rolloutsFromWire(wire, episodes, on),
    },
    objects: {
      clone: () => structuredClone(objects),
      parse: () => ObjectAnswer.parse(objects),
      make: () => fromObjects(objects),
    },
  };
  type Form = keyof typeof forms;
  type Part = keyof (typeof forms)[Form];
  const times = {
    columns: { clone: [], parse: [], make: [] },
    objects: { clone: [], parse: [], make: [] },
  } as Record<Form, Record<Part, number[]>>;
  for (let k = 0; k < 30; k++)
    for (const form of (k % 2 ? ['objects', 'columns'] : ['columns', 'objects']) as Form[])
      for (const part of ['clone', 'parse', 'make'] as Part[]) {
        const t0 = performance.now();
        forms[form][part]();
        times[form][part].push(performance.now() - t0);
      }
  const m = (form: Form, part: Part): number => median(times[form][part]);
  const total = (form: Form): number => m(form, 'clone') + m(form, 'parse') + m(form, 'make');
  const steps = decoded.reduce((a, r) => a + r.steps.length, 0);
  const bytes = (x: object): number =>
    Object.values(x).reduce(
      (a: number, v) => a + (ArrayBuffer.isView(v) ? v.byteLength : JSON.stringify(v).length),
      0,
    );
  const f2 = (x: number): string => x.toFixed(2);
  const line = (form: Form): string =>
    `${form}: clone ${f2(m(form, 'clone'))} ms, parse ${f2(m(form, 'parse'))} ms, rollouts ${f2(m(form, 'make'))} ms, ` +
    `sum ${f2(total(form))} ms`;
  return (
    `one answer of ${episodes.length} constructions (${steps} steps; columns ${(bytes(wire) / 1000).toFixed(0)} kB, ` +
    `objects ${(JSON.stringify(objects).length / 1000).toFixed(0)} kB as JSON) on the trainer's thread, medians of 30:\n` +
    `  ${line('columns')}\n  ${line('objects')}\n  objects / columns: ${f2(total('objects') / total('columns'))}×`
  );
}
