/**
 * Training throughput: construction episodes per second of whole training iterations (sampling +
 * simulation + PPO update, amortised) on the CPU backend in Node, for the default config (B = 8
 * tasks × G = 8 constructions) and a larger batch (B = 16, G = 8), preset mixed, from `prior`.
 *
 * Two paths run the same iterations (same seed, so the same tasks, rollouts and updates; the bench
 * checks their metrics agree bit for bit):
 * - baseline: one episode at a time (`sampling: 'sequential'`, one policy pass per step and
 *   episode) with the traced simulator runners (every partial design executed, the final design
 *   run again with its full trace);
 * - fast: batched sampling (one pass per construction step over all B·G episodes) with the
 *   simulator fast path (`simulatedRunners`: calls and designs seen before answered from memory,
 *   no final trace).
 * - wasm: the fast path on the WebAssembly SIMD backend (src/gpu/wasm) instead of the TypeScript
 *   one: the same work, numbers equal to the TypeScript backend's within rounding (not bit for bit),
 *   so its metrics are not compared.
 * Rounds alternate the paths so that load on the machine hits all alike. Each run starts from a
 * fresh trainer with WARMUP iterations that are timed apart ("first iterations": V8 is still
 * compiling the hot code then, and the first iteration of the process also loads the wasm module),
 * then ITERS timed iterations (the steady state, what a training run of minutes gets). Then one more fast run under the V8 sampling profiler splits
 * iteration time into policy forward (sampling), simulator, learner forward (log π of old,
 * reference and current policy), backward, Adam, garbage collection, state encoding, and other
 * (rewards, bookkeeping), on each backend.
 *
 *   npm run bench:train-throughput            (ROUNDS=2 WARMUP=6 ITERS=6 by default)
 *
 * Rows go to bench/results/train-throughput.json; the table to the "Training throughput" section of
 * docs/benchmarks.md.
 */
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import { simulatedRunners, tracedSimulatedRunners } from '../src/executor/train-runners.ts';
import { DEFAULT_POOL, priorCheckpoint } from '../src/policy/index.ts';
import { Trainer, trainConfig, type RunnersFor, type TrainConfigInput } from '../src/train/index.ts';
import { machine, writeDocSection, writeResults } from './report.ts';

const HEADING = 'Training throughput';
const RESULTS = 'train-throughput';
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const WARMUP = Number(process.env.WARMUP ?? 6);
const ITERS = Number(process.env.ITERS ?? 6);
const CPU = { backend: 'cpu', reason: 'benchmark', adapter: null, ctx: null } as const;
const WASM = { backend: 'wasm', reason: 'benchmark', adapter: null, ctx: null } as const;
const DEFAULTS = trainConfig({});

const CONFIGS: { name: string; over: TrainConfigInput }[] = [
  { name: 'default (B=8, G=8)', over: {} },
  { name: 'large (B=16, G=8)', over: { tasksPerIteration: 16, groupSize: 8 } },
];

interface Path {
  name: 'baseline' | 'fast' | 'wasm';
  sampling: 'sequential' | 'batched';
  runners: RunnersFor;
  choice: typeof CPU | typeof WASM;
}
const PATHS: Path[] = [
  { name: 'baseline', sampling: 'sequential', runners: tracedSimulatedRunners, choice: CPU },
  { name: 'fast', sampling: 'batched', runners: simulatedRunners, choice: CPU },
  { name: 'wasm', sampling: 'batched', runners: simulatedRunners, choice: WASM },
];

interface Timed {
  ms: number;
  episodes: number;
  steps: number;
  rolloutMs: number;
  updateMs: number;
  /** Process CPU time over the timed iterations (load leaves less than one core: cpuMs < ms). */
  cpuMs: number;
  metrics: string;
  /** Wall time and episodes of the WARMUP iterations before the timed ones. */
  warmupMs: number;
  warmupEpisodes: number;
}

/** WARMUP iterations timed apart, then `iters` timed ones, from a fresh trainer (same seed: same work). */
async function timedRun(over: TrainConfigInput, path: Path, iters: number): Promise<Timed> {
  const config = trainConfig({ preset: 'mixed', seed: 0, ...over });
  const t = await Trainer.create({
    start: priorCheckpoint(DEFAULT_POOL),
    pool: DEFAULT_POOL,
    config,
    choice: path.choice,
    runners: path.runners,
    sampling: path.sampling,
    clock: () => performance.now(),
  });
  try {
    const w0 = performance.now();
    for (let i = 0; i < WARMUP; i++) await t.iterate();
    const r: Timed = {
      ms: 0,
      episodes: 0,
      steps: 0,
      rolloutMs: 0,
      updateMs: 0,
      cpuMs: 0,
      metrics: '',
      warmupMs: performance.now() - w0,
      warmupEpisodes: WARMUP * config.tasksPerIteration * config.groupSize,
    };
    const seen: unknown[] = [];
    for (let i = 0; i < iters; i++) {
      const [t0, u0] = [performance.now(), process.cpuUsage()];
      const m = await t.iterate();
      r.ms += performance.now() - t0;
      const u = process.cpuUsage(u0);
      r.cpuMs += (u.user + u.system) / 1000;
      r.episodes += config.tasksPerIteration * config.groupSize;
      r.steps += m.steps * config.tasksPerIteration * config.groupSize;
      r.rolloutMs += m.timings?.rolloutMs ?? 0;
      r.updateMs += m.timings?.updateMs ?? 0;
      const { timings: _t, ...rest } = m;
      seen.push(rest);
    }
    r.metrics = JSON.stringify(seen);
    return r;
  } finally {
    t.dispose();
  }
}

// ---------------------------------------------------------------- profile

type Category =
  | 'state encoding'
  | 'policy forward'
  | 'simulator'
  | 'learner forward'
  | 'backward'
  | 'Adam'
  | 'garbage collection'
  | 'other';
const CATEGORIES: Category[] = [
  'state encoding',
  'policy forward',
  'simulator',
  'learner forward',
  'backward',
  'Adam',
  'garbage collection',
  'other',
];

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The category of a sample, from the frames on its stack (leaf first). */
function categorise(stack: readonly ProfileNode['callFrame'][]): Category {
  const has = (fn: string | null, file: string): boolean =>
    stack.some((f) => f.url.includes(file) && (fn === null || f.functionName === fn));
  if (stack[0]?.functionName === '(garbage collector)') return 'garbage collection';
  if (has(null, '/src/executor/')) return 'simulator';
  const inLearner = has('update', '/src/train/learner.ts') || has('logProbs', '/src/train/learner.ts');
  if (inLearner) {
    if (has(null, '/src/gpu/optimizer.ts')) return 'Adam';
    if (has('backwardNode', '/src/gpu/')) return 'backward';
    return 'learner forward';
  }
  // Encoding states into the sampling pass's inputs (features, masks, packed rows), in or out of it.
  if (has(null, '/src/policy/encoder.ts') || has(null, '/src/policy/pack.ts')) return 'state encoding';
  if (
    has('nodePass', '/src/policy/') ||
    has('edgePass', '/src/policy/') ||
    has('evaluate', '/src/policy/network.ts')
  )
    return 'policy forward';
  return 'other';
}

async function profileShares(
  over: TrainConfigInput,
  iters: number,
  choice: Path['choice'],
): Promise<Record<Category, number>> {
  const config = trainConfig({ preset: 'mixed', seed: 0, ...over });
  const t = await Trainer.create({
    start: priorCheckpoint(DEFAULT_POOL),
    pool: DEFAULT_POOL,
    config,
    choice,
    runners: simulatedRunners,
  });
  for (let i = 0; i < WARMUP; i++) await t.iterate();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 250 });
  await session.post('Profiler.start');
  for (let i = 0; i < iters; i++) await t.iterate();
  const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile };
  session.disconnect();
  t.dispose();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const memo = new Map<number, Category | null>();
  const totals = Object.fromEntries(CATEGORIES.map((c) => [c, 0])) as Record<Category, number>;
  profile.samples.forEach((id, i) => {
    let cat = memo.get(id);
    if (cat === undefined) {
      const stack: ProfileNode['callFrame'][] = [];
      for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
        const n = byId.get(cur);
        if (n) stack.push(n.callFrame);
      }
      // Idle time (nothing to run) is not iteration work.
      cat = stack[0]?.functionName === '(idle)' ? null : categorise(stack);
      memo.set(id, cat);
    }
    if (cat) totals[cat] += profile.timeDeltas[i] ?? 0;
  });
  const sum = CATEGORIES.reduce((a, c) => a + totals[c], 0);
  return Object.fromEntries(CATEGORIES.map((c) => [c, sum > 0 ? totals[c] / sum : 0])) as Record<
    Category,
    number
  >;
}

// ---------------------------------------------------------------- main

const rows: {
  config: string;
  baselineEps: number;
  fastEps: number;
  ratio: number;
  stepsPerEpisode: number;
  fastRolloutShare: number;
  same: boolean;
  wasmEps: number;
  /** Episodes/s of the WARMUP iterations before the timed ones (TypeScript and wasm fast paths). */
  fastFirstEps: number;
  wasmFirstEps: number;
  /** Learner (PPO update) time per episode, TypeScript / wasm. */
  learnerRatio: number;
  fastUpdateMsPerEpisode: number;
  wasmUpdateMsPerEpisode: number;
  /** Episodes per second of process CPU time, TypeScript and wasm fast paths. */
  fastEpsCpu: number;
  wasmEpsCpu: number;
  /** CPU time over wall time of the wasm path's iterations. */
  wasmCpuPerWall: number;
}[] = [];
const load0 = loadavg()[0] ?? 0;
for (const c of CONFIGS) {
  const acc: Record<Path['name'], Timed[]> = { baseline: [], fast: [], wasm: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? PATHS : [...PATHS].reverse();
    for (const p of order) {
      const r = await timedRun(c.over, p, ITERS);
      acc[p.name].push(r);
      process.stderr.write(
        `${c.name} · ${p.name} · round ${round + 1}: ${((1000 * r.episodes) / r.ms).toFixed(1)} episodes/s\n`,
      );
    }
  }
  const eps = (xs: Timed[]): number =>
    (1000 * xs.reduce((a, x) => a + x.episodes, 0)) / xs.reduce((a, x) => a + x.ms, 0);
  const fast = acc.fast;
  const firstEps = (xs: Timed[]): number =>
    (1000 * xs.reduce((a, x) => a + x.warmupEpisodes, 0)) / xs.reduce((a, x) => a + x.warmupMs, 0);
  const epsCpu = (xs: Timed[]): number =>
    (1000 * xs.reduce((a, x) => a + x.episodes, 0)) / xs.reduce((a, x) => a + x.cpuMs, 0);
  const updatePerEpisode = (xs: Timed[]): number =>
    xs.reduce((a, x) => a + x.updateMs, 0) / xs.reduce((a, x) => a + x.episodes, 0);
  const same = acc.fast.every((f, i) => f.metrics === acc.baseline[i]?.metrics);
  rows.push({
    config: c.name,
    baselineEps: eps(acc.baseline),
    fastEps: eps(fast),
    ratio: eps(fast) / eps(acc.baseline),
    stepsPerEpisode: fast.reduce((a, x) => a + x.steps, 0) / fast.reduce((a, x) => a + x.episodes, 0),
    fastRolloutShare:
      fast.reduce((a, x) => a + x.rolloutMs, 0) / fast.reduce((a, x) => a + x.rolloutMs + x.updateMs, 0),
    same,
    wasmEps: eps(acc.wasm),
    fastFirstEps: firstEps(fast),
    wasmFirstEps: firstEps(acc.wasm),
    learnerRatio: updatePerEpisode(fast) / updatePerEpisode(acc.wasm),
    fastUpdateMsPerEpisode: updatePerEpisode(fast),
    wasmUpdateMsPerEpisode: updatePerEpisode(acc.wasm),
    fastEpsCpu: epsCpu(fast),
    wasmEpsCpu: epsCpu(acc.wasm),
    wasmCpuPerWall: acc.wasm.reduce((a, x) => a + x.cpuMs, 0) / acc.wasm.reduce((a, x) => a + x.ms, 0),
  });
}
const shares = await profileShares(CONFIGS[1]?.over ?? {}, 2, CPU);
const wasmShares = await profileShares(CONFIGS[1]?.over ?? {}, 2, WASM);
const load1 = loadavg()[0] ?? 0;
const m = machine();
writeResults(RESULTS, {
  machine: m,
  loadavg: [load0, load1],
  rounds: ROUNDS,
  warmup: WARMUP,
  iterations: ITERS,
  rows,
  shares,
  wasmShares,
});

const pct = (x: number): string => `${(100 * x).toFixed(0)}%`;
const wasmTable = [
  `| config | fast, TypeScript backend (episodes/s) | fast, wasm backend (episodes/s) | wasm / TypeScript | first ${WARMUP} iterations, TypeScript / wasm (episodes/s) | learner ms/episode, TypeScript | learner ms/episode, wasm | learner speed-up | episodes per CPU-second, TypeScript | episodes per CPU-second, wasm | CPU/wall, wasm |`,
  '|---|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.config} | ${r.fastEps.toFixed(1)} | ${r.wasmEps.toFixed(1)} | ${(r.wasmEps / r.fastEps).toFixed(2)}× | ${r.fastFirstEps.toFixed(1)} / ${r.wasmFirstEps.toFixed(1)} | ${r.fastUpdateMsPerEpisode.toFixed(2)} | ${r.wasmUpdateMsPerEpisode.toFixed(2)} | ${r.learnerRatio.toFixed(2)}× | ${r.fastEpsCpu.toFixed(1)} | ${r.wasmEpsCpu.toFixed(1)} | ${r.wasmCpuPerWall.toFixed(2)} |`,
  ),
].join('\n');
const table = [
  '| config | baseline (episodes/s) | fast (episodes/s) | ratio | steps/episode | sampling share of fast iteration | same metrics |',
  '|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.config} | ${r.baselineEps.toFixed(1)} | ${r.fastEps.toFixed(1)} | ${r.ratio.toFixed(2)}× | ${r.stepsPerEpisode.toFixed(1)} | ${pct(r.fastRolloutShare)} | ${r.same ? 'yes' : 'NO'} |`,
  ),
].join('\n');
const profileTable = [
  '| backend | state encoding | policy forward (sampling) | simulator | learner forward (log π) | backward | Adam | garbage collection | other |',
  '|---|---|---|---|---|---|---|---|---|',
  `| TypeScript | ${CATEGORIES.map((c) => pct(shares[c])).join(' | ')} |`,
  `| wasm | ${CATEGORIES.map((c) => pct(wasmShares[c])).join(' | ')} |`,
].join('\n');
writeDocSection(
  HEADING,
  `Construction episodes per second of whole training iterations (sampling + simulation + PPO update,
amortised), CPU backend in Node (${m.node}, ${m.cpu}, ${m.cores} cores; 1-minute load average
${load0.toFixed(1)} at the start, ${load1.toFixed(1)} at the end: the machine is shared, so absolute
numbers move with its load; the ratio is measured in the same run, rounds alternating the paths).
Preset mixed, from \`prior\`, every other constant at its default (K = ${DEFAULTS.epochs} epochs,
minibatch ${DEFAULTS.minibatch}, KL coefficient ${DEFAULTS.klCoef}). ${ROUNDS} rounds × ${ITERS} timed iterations per path, each run from a fresh trainer after
${WARMUP} iterations timed apart: the steady state that a training run of minutes gets, not the first
iterations, when V8 is still compiling the hot code (their rate is in the wasm table).
Baseline: one episode at a time, traced simulator runs. Fast: batched sampling over all B·G
episodes, simulator fast path. Both paths do the same work (same seed): "same metrics" compares
every iteration's metrics between them. Both run the same learner and compute core (packed
inputs, live rows only, forward reuse), so the ratio shows what batched sampling and the
simulator fast path add, not the compute core's own gains (docs/train.md, "Throughput").

\`\`\`
npm run bench:train-throughput
\`\`\`

${table}

The fast path on the WebAssembly SIMD backend (src/gpu/wasm) against the TypeScript backend, in the
same run (rounds alternate all three paths). "Learner" is the PPO update (the iteration's
\`updateMs\`: minibatch forward passes, backward, Adam) per episode. "Episodes per CPU-second" divides
by the process's CPU time instead of wall time: what one free core would give, less exposed to the
load (which also slows a core's caches, so it is still not an idle machine's number); "CPU/wall" is
the share of a core the wasm path got:

${wasmTable}

Where the fast path's iteration time goes (each backend, large config, 2 iterations under the V8 sampling
profiler after ${WARMUP} unprofiled ones; shares of busy time, idle excluded):

${profileTable}

"State encoding" is turning construction states into the sampling pass's inputs (features, masks,
packed agent and edge rows); "policy forward" the sampling pass itself. "Learner forward" is the PPO minibatch forward passes and the log π of the sampling and reference
policies; "backward" the compute core's backward pass, "Adam" its optimizer step; "other" the
minibatch assembly, advantages, episode bookkeeping and the event loop (the profiler's own work lands there too). The goal of 2,000
episodes/s and why these numbers are far from it: docs/train.md, "Throughput".
`,
);
process.stdout.write(`${table}\n\n${wasmTable}\n\n${profileTable}\n`);
