/**
 * The simulator fast path's CPU per training episode (`simulatedRunners`, what the trainer's
 * rollouts call), two ways:
 * - in whole training iterations (B = 16 tasks × G = 8, preset mixed, from `prior`, batched
 *   sampling; BK = wasm or cpu picks the compute backend): one untimed warm-up iteration, then N
 *   under the V8 sampling profiler; the self time of the simulator's code (src/executor/**,
 *   src/answers/**, src/design/**, src/masbench/**, src/core/rng.ts, src/core/graph.ts) per
 *   episode, next to episodes/s and the learner's and rollouts' ms per episode;
 * - alone: the runner calls of those iterations recorded, then replayed R times through fresh
 *   runners (fresh task objects each time, as the trainer draws new tasks each iteration); the
 *   process CPU time per episode, median of the replays.
 *
 *   BK=wasm npm run bench:simulator-cpu        (N=6 iterations, R=7 replays by default)
 *
 * Prints its figures; the "Simulator fast path: CPU per episode" section of docs/benchmarks.md
 * holds a run before and after the fast path's rework (the same script on both commits).
 */
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import type { Design, Task, Trace } from '../src/core/trace.ts';
import { simulatedRunners } from '../src/executor/train-runners.ts';
import type { MasBenchTask } from '../src/masbench/index.ts';
import { DEFAULT_POOL, priorCheckpoint } from '../src/policy/index.ts';
import { Trainer, trainConfig, type RunnersFor } from '../src/train/index.ts';

const BACKEND = (process.env.BK ?? 'wasm') as 'wasm' | 'cpu';
const N = Number(process.env.N ?? 6);
const R = Number(process.env.R ?? 7);
const B = 16;
const G = 8;
/** Where the simulator's code lives (profile URLs). */
const SIMULATOR = /\/src\/(executor\/|answers\/|design\/|masbench\/|core\/rng\.ts|core\/graph\.ts)/;

type Call = { design: Design; t: Task } | { trace: Trace };
const episodes: { task: MasBenchTask; seed: number; calls: Call[] }[] = [];
const recording: RunnersFor = (task, seed) => {
  const r = simulatedRunners(task, seed);
  const e = { task, seed, calls: [] as Call[] };
  episodes.push(e);
  return {
    intermediate: (design, t) => (e.calls.push({ design, t }), r.intermediate(design, t)),
    final: (trace) => (e.calls.push({ trace }), r.final(trace)),
  };
};

const trainer = await Trainer.create({
  start: priorCheckpoint(DEFAULT_POOL),
  pool: DEFAULT_POOL,
  config: trainConfig({ preset: 'mixed', seed: 0, tasksPerIteration: B, groupSize: G }),
  choice: { backend: BACKEND, reason: 'benchmark', adapter: null, ctx: null },
  runners: recording,
  clock: () => performance.now(),
  sampling: 'batched',
});
await trainer.iterate();

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.start');
const t0 = performance.now();
let updateMs = 0;
let rolloutMs = 0;
for (let i = 0; i < N; i++) {
  const m = await trainer.iterate();
  updateMs += m.timings?.updateMs ?? 0;
  rolloutMs += m.timings?.rolloutMs ?? 0;
}
const wallMs = performance.now() - t0;
const { profile } = await session.post('Profiler.stop');
session.disconnect();
trainer.dispose();

const self = new Map<number, number>();
profile.samples?.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas?.[i] ?? 0)));
let totalUs = 0;
let simUs = 0;
for (const node of profile.nodes) {
  const us = self.get(node.id) ?? 0;
  if (node.callFrame.functionName === '(idle)') continue;
  totalUs += us;
  if (SIMULATOR.test(node.callFrame.url)) simUs += us;
}
const timed = N * B * G;
console.log(
  `${BACKEND}: ${((timed / wallMs) * 1000).toFixed(1)} episodes/s; learner ${(updateMs / timed).toFixed(2)} ms/episode, ` +
    `rollouts ${(rolloutMs / timed).toFixed(2)} ms/episode; simulator self time ${(simUs / 1000 / timed).toFixed(3)} ms/episode ` +
    `(${((simUs / totalUs) * 100).toFixed(1)}% of busy time) under the V8 sampling profiler`,
);

// The recorded calls again (the warm-up's and the timed iterations'), through fresh runners.
const replay = async (): Promise<number> => {
  const copies = new Map<MasBenchTask, MasBenchTask>();
  const c0 = process.cpuUsage();
  for (const e of episodes) {
    let task = copies.get(e.task);
    if (!task) {
      task = structuredClone(e.task);
      copies.set(e.task, task);
    }
    const r = simulatedRunners(task, e.seed);
    for (const c of e.calls) await ('trace' in c ? r.final(c.trace) : r.intermediate(c.design, c.t));
  }
  const cpu = process.cpuUsage(c0);
  return (cpu.user + cpu.system) / 1000 / episodes.length;
};
const perEpisode: number[] = [];
for (let i = 0; i < R; i++) perEpisode.push(await replay());
perEpisode.sort((a, b) => a - b);
console.log(
  `runners alone: ${(perEpisode[Math.floor(R / 2)] ?? 0).toFixed(3)} CPU ms/episode (median of ${R} replays of ` +
    `${episodes.length} episodes; all: ${perEpisode.map((x) => x.toFixed(3)).join(', ')}); ` +
    `load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
);
