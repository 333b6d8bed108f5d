/**
 * The device benchmark: what `run.sh` of the packed folder runs (bench/device/pack.ts bundles this
 * file with esbuild). On whatever adapter Dawn finds (a real GPU through Vulkan, or SwiftShader
 * here) it measures, with the CPU backend of the same machine beside it:
 * - the adapter, and what `chooseBackend('auto')` picks and why;
 * - the construction-policy trainer: one minibatch update and one forward (log-probability) pass at
 *   minibatch 64, 256 and 1024, WebGPU and CPU, medians, plus the device counters of one update;
 * - a matmul N³ (2048, 4096) on WebGPU, TFLOP/s (plus a sum of the product: one 4-byte read-back);
 * - the MLP training step (batch 256 hidden 64×2, batch 16384 hidden 1024×2): Baton WebGPU, Baton
 *   CPU (small size) and TF.js WebGPU on the same Dawn device (navigator.gpu shim);
 * - the GPT-2-style training step at 3.5 M (16 × 256 tokens) and 11.2 M parameters (16 × 512 tokens)
 *   on Baton WebGPU and TF.js WebGPU (rows.ts);
 * - whole training iterations, episodes/s, default config and B=32, G=8, on WebGPU (as the trainer
 *   runs by default, and with each speed option turned back: one minibatch at a time, no lanes
 *   products, no subgroup twins, log π a minibatch per pass, two sampler passes per step), wasm and the TypeScript CPU
 *   backend in the same run (rows.ts);
 * - the `auto` probe's two timings and its cost (rows.ts), and what `auto` picks for training when it
 *   times one iteration of the config on each backend (rows.ts `autoTrainRows`);
 * - the floor: µs per near-empty dispatch (chained, independent, one pass each), an empty
 *   submission's and a 4-byte read-back's round trip (floor.ts);
 * - the trainer's small kernels (products, a column sum, sums) and two serial loops that differ in
 *   their trip count's source, each chained and each alone in a timestamped pass (small.ts);
 * - each iteration path's update phases (encode, old log π, minibatch updates, read-back);
 * - a per-kernel profile of one trainer update: GPU timestamps (`timestamp-query`) where the device
 *   has them, else wall time per dispatch; the JSON says which (rows.ts).
 * Prints one JSON object. Every measure has a rep budget, and rows that would start after
 * DEADLINE_S are skipped (said in the JSON), so a full run ends in under 4 minutes.
 * `--quick`: the smallest size of each, for a software adapter (no deadline).
 */
import { existsSync, readFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import { allowWgslImports } from '../../src/cli/wgsl-loader.ts';
import { describeAdapter } from '../../src/gpu/adapter.ts';
import { CpuModel } from '../../src/gpu/cpu/model.ts';
import { Graph } from '../../src/gpu/graph.ts';
import { uniform } from '../../src/gpu/init.ts';
import { chooseBackend, compile, type BackendChoice } from '../../src/gpu/index.ts';
import { nodeGpu } from '../../src/gpu/node-gpu.ts';
import { createRng } from '../../src/core/rng.ts';
import { DEFAULT_POOL, priorCheckpoint } from '../../src/policy/index.ts';
import { Learner, trainConfig } from '../../src/train/index.ts';
import { ADAM, feed, problem, tfjsStep, type BenchSize } from '../gpu-common.ts';
import { sampleBatch } from '../train-tfjs/episodes.ts';
import { measure } from '../train-tfjs/measure.ts';
import { passHostSplit } from '../pass-host.ts';
import { updateHostSplit } from '../update-host.ts';
import { matmulKernelRows } from './kernels.ts';
import { PipelineCache } from '../../src/gpu/webgpu/pipelines.ts';
import { clocksBySection, parseClockLog, sectionsOf } from './clocks.ts';
import { floorRows } from './floor.ts';
import { summarize } from './summary.ts';
import { rolloutPoolForBench, simPoolForBench } from './sim-pool.ts';
import { smallKernelRows } from './small.ts';
import {
  autoTrainRows,
  gptProfileRows,
  gptRows,
  iterationRows,
  probeRow,
  profileRow,
  type Bound,
} from './rows.ts';

const quick = process.argv.includes('--quick');
// stdout carries the one JSON object; what libraries log (TF.js prints GPU validation errors with
// console.log) goes to stderr.
const writeJson = (o: unknown): boolean => process.stdout.write(`${JSON.stringify(o, null, 2)}\n`);
console.log = console.error;
/** Rows that would start later than this many seconds into the run are skipped (full runs only). */
const DEADLINE_S = 190;
const t00 = performance.now();
const bound: Bound = {
  left: () => quick || (performance.now() - t00) / 1000 < DEADLINE_S,
  skipped: `skipped: past the run's ${DEADLINE_S} s bound`,
};
const startedAt = Date.now();
/** When each result key was written (the end of its section; clocks.ts reads the card's clock log by them). */
const marks: [string, number][] = [];
const out: Record<string, unknown> = new Proxy<Record<string, unknown>>(
  { quick, node: process.version, started: new Date(startedAt).toISOString() },
  {
    set(o, key, value) {
      o[key as string] = value;
      if (typeof key === 'string') marks.push([key, Date.now()]);
      return true;
    },
  },
);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function timeIt(fn: () => Promise<unknown>, reps: number, budgetMs: number): Promise<number> {
  await fn();
  const ts: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < reps && (i < 2 || performance.now() - t0 < budgetMs); i++) {
    const s = performance.now();
    await fn();
    ts.push(performance.now() - s);
  }
  return median(ts);
}

allowWgslImports();
// Exact GPU timestamps for the profiles (Dawn rounds them by default).
const gpu = await nodeGpu(['disable-dawn-features=timestamp_quantization']);
const ta = performance.now();
const auto = await chooseBackend('auto', { gpu });
out.adapter = auto.adapter ? describeAdapter(auto.adapter) : null;
out.auto = { backend: auto.backend, reason: auto.reason, choose_ms: performance.now() - ta };
auto.ctx?.dispose();
const webgpu = await chooseBackend('webgpu', { gpu });
if (webgpu.backend !== 'webgpu' || !webgpu.ctx) throw new Error(`no WebGPU adapter: ${webgpu.reason}`);
const ctx = webgpu.ctx;
const cpu: BackendChoice = { backend: 'cpu', reason: 'forced', adapter: null, ctx: null };
const wasm: BackendChoice = { backend: 'wasm', reason: 'forced', adapter: null, ctx: null };
const budget = quick ? 4000 : 8000;
out.device_features = [...ctx.device.features].map(String).sort();
// The subgroup sizes the adapter reports (GPUAdapterInfo, where the implementation has them).
{
  const info = ctx.device.adapterInfo as GPUAdapterInfo & {
    subgroupMinSize?: number;
    subgroupMaxSize?: number;
  };
  out.subgroup_sizes = [info.subgroupMinSize ?? null, info.subgroupMaxSize ?? null];
}
out.probe = await probeRow(ctx, quick);
console.error(JSON.stringify({ probe: out.probe }));
// The floor: an empty-ish dispatch, a submission, a read-back (floor.ts).
out.floor = await floorRows(ctx.device, quick);
console.error(JSON.stringify({ floor: out.floor }));
// The trainer's small kernels: in a chain, and alone as the per-dispatch profile times them.
out.small = await smallKernelRows(ctx.device, new PipelineCache(ctx.device), quick);
// What auto picks for training when it times the run's own iteration.
out.auto_train = await autoTrainRows(gpu, quick, bound);

// The trainer: update and forward per minibatch, both backends.
const trainer: Record<string, unknown>[] = [];
const pool = DEFAULT_POOL;
const cp = priorCheckpoint(pool);
for (const M of quick ? [64] : [64, 256, 1024]) {
  if (!bound.left()) {
    trainer.push({ minibatch: M, skipped: bound.skipped });
    continue;
  }
  const config = trainConfig({ minibatch: M });
  const data = await sampleBatch(cp, pool, config, M, 17);
  // The forward rows time two batches in turn (as measure.ts does): a pass over the rows of the
  // pass before skips what did not change, so repeating one batch of a single pass times nothing.
  const other = (await sampleBatch(cp, pool, config, M, 18)).full;
  const pick = Array.from({ length: M }, (_, i) => i);
  const row: Record<string, unknown> = { minibatch: M };
  // webgpu_exact: without lanes products (matmul_lanes.wgsl; on by default on a hardware adapter);
  // webgpu_subgroups: the trees of the lanes products, long sums and the norm on their subgroup
  // twins (BackendChoice.subgroups; off by default), not in workgroup memory.
  // webgpu_no_siblings: lanes products one per dispatch (BackendChoice.siblings off; plan-siblings.ts).
  // webgpu_no_grad_groups: the backward's gradient products one per dispatch (BackendChoice.gradGroups
  // off; plan-grads.ts).
  const exact: BackendChoice = { ...webgpu, lanes: false };
  for (const [label, choice] of [
    ['webgpu', webgpu],
    ['webgpu_exact', exact],
    ['webgpu_no_siblings', { ...webgpu, siblings: false }],
    ['webgpu_no_grad_groups', { ...webgpu, gradGroups: false }],
    ['webgpu_subgroups', { ...webgpu, subgroups: true }],
    ['wasm', wasm],
    ['cpu', cpu],
  ] as const) {
    const learner = await Learner.create(cp, cp, pool, config, choice);
    // Log π passes of one minibatch each (the trainer runs them over up to Learner.passRows rows).
    learner.passRows = 0;
    const old = await learner.logProbs(data.full);
    const ref = await learner.logProbs(data.full, 'reference');
    if (choice === webgpu) {
      ctx.resetCounters();
      await learner.update(data.full, pick, old, ref, data.advantages);
      row.counters = ctx.resetCounters();
    }
    const upd = await timeIt(() => learner.update(data.full, pick, old, ref, data.advantages), 9, budget);
    const fwd = await timeIt(
      async () => {
        await learner.logProbs(data.full);
        await learner.logProbs(other);
      },
      9,
      budget,
    );
    const passes = Math.ceil(data.full.batch / M) + Math.ceil(other.batch / M);
    row[`${label}_update_ms`] = upd;
    row[`${label}_forward_ms`] = fwd / passes;
    learner.dispose();
  }
  trainer.push(row);
  console.error(JSON.stringify(row));
}
out.trainer = trainer;

// Where one trainer update's host time goes (bench/update-host.ts): packing, applyLive, encoding,
// finish and submit, and the update's wall time alone and two in flight.
const updateHost: Record<string, unknown>[] = [];
for (const M of quick ? [64] : [64, 256]) {
  if (!bound.left()) {
    updateHost.push({ minibatch: M, skipped: bound.skipped });
    continue;
  }
  updateHost.push(await updateHostSplit(webgpu, M, quick ? 4 : 20));
  console.error(JSON.stringify(updateHost[updateHost.length - 1]));
}
out.update_host = updateHost;
// The host's part of the trainer's old and reference log π (bench/pass-host.ts), and the pass's wall time.
out.pass_host = bound.left() ? await passHostSplit(webgpu, quick ? 2 : 10) : { skipped: bound.skipped };
console.error(JSON.stringify({ pass_host: out.pass_host }));

// Where one trainer update's time goes, per kernel.
out.profile = bound.left() ? await profileRow(webgpu, quick ? 64 : 256) : { skipped: bound.skipped };
if (!quick) out.profile64 = bound.left() ? await profileRow(webgpu, 64) : { skipped: bound.skipped };
// The same update without lanes products: which kernels they replaced, and at what cost.
if (!quick)
  out.profile64_exact = bound.left()
    ? await profileRow({ ...webgpu, lanes: false }, 64)
    : { skipped: bound.skipped };
// At 1024 its forward phase is the forward pass that trails TF.js's (the `forward` kernels).
if (!quick) out.profile1024 = bound.left() ? await profileRow(webgpu, 1024) : { skipped: bound.skipped };
console.error(JSON.stringify({ profile: out.profile }));
// Where one GPT-2-style step's time goes, per kernel (issue: no kernel over 40% of the step).
out.gpt_profile = await gptProfileRows(webgpu, quick, bound);
console.error(JSON.stringify({ gpt_profile: out.gpt_profile }));

// Matmul N³ on WebGPU (forward only).
const matmul: Record<string, unknown>[] = [];
for (const N of quick ? [256] : [2048, 4096]) {
  if (!bound.left()) {
    matmul.push({ n: N, skipped: bound.skipped });
    continue;
  }
  const g = new Graph();
  const rng = createRng(1);
  const x = g.input('x', [N, N]);
  // Σ of the product as the step's scalar: its 4-byte read-back waits for the matmul (N² adds).
  const loss = g.sum(g.sum(g.matmul(x, g.param('w', [N, N], uniform(rng, N * N, 0.1)))));
  const m = await compile(webgpu, g, { loss });
  // Two inputs that differ in one float, set in turn outside the timing: a forward pass runs only
  // what changed since the last (src/gpu/fresh.ts), so the same input twice would time no product.
  const xa = uniform(rng, N * N, 1);
  const xb = xa.slice();
  xb[0] = (xb[0] as number) + 1;
  const times: number[] = [];
  for (let r = 0; r <= (quick ? 3 : 10); r++) {
    m.setInput('x', r % 2 === 0 ? xa : xb);
    const t0 = performance.now();
    await m.step({ backward: false });
    if (r > 0) times.push(performance.now() - t0);
  }
  const ms = [...times].sort((a, b) => a - b)[times.length >> 1] as number;
  matmul.push({ n: N, ms, tflops: (2 * N ** 3) / (ms * 1e-3) / 1e12 });
  console.error(JSON.stringify(matmul[matmul.length - 1]));
  m.dispose();
}
out.matmul = matmul;
// The three matmul kernels one against another on the same shapes (bench/device/kernels.ts).
out.matmul_kernels = await matmulKernelRows(ctx.device, new PipelineCache(ctx.device), quick, () =>
  bound.left(),
);

// The MLP step: Baton WebGPU and CPU, TF.js WebGPU on the same Dawn device.
let tfWebgpu: string;
try {
  (globalThis as { navigator?: unknown }).navigator ??= {};
  Object.defineProperty(globalThis.navigator, 'gpu', { value: gpu, configurable: true });
  await import('@tensorflow/tfjs-backend-webgpu');
  tfWebgpu = (await tf.setBackend('webgpu')) ? 'webgpu' : 'setBackend failed';
} catch (e) {
  tfWebgpu = `unavailable: ${e instanceof Error ? e.message : String(e)}`;
}
out.tfjs = tfWebgpu;
// TF.js's matmul on the same device, timed like the matmul row above: the product's sum read back
// (4 bytes), so that both wait for the whole product and neither copies the matrix to the host.
const tfMatmul: Record<string, unknown>[] = [];
if (tfWebgpu === 'webgpu')
  for (const N of quick ? [256] : [2048, 4096]) {
    if (!bound.left()) {
      tfMatmul.push({ n: N, skipped: bound.skipped });
      continue;
    }
    const a = tf.randomUniform([N, N], -1, 1, 'float32', 1);
    const b = tf.randomUniform([N, N], -0.1, 0.1, 'float32', 2);
    const ms = await timeIt(
      async () => {
        const s = tf.tidy(() => tf.sum(tf.matMul(a, b)));
        await s.data();
        s.dispose();
      },
      quick ? 3 : 10,
      budget,
    );
    tf.dispose([a, b]);
    tfMatmul.push({ n: N, ms, tflops: (2 * N ** 3) / (ms * 1e-3) / 1e12 });
    console.error(JSON.stringify({ tfjs_matmul: tfMatmul[tfMatmul.length - 1] }));
  }
out.tfjs_matmul = tfMatmul;
const sizes: BenchSize[] = quick
  ? [{ batch: 256, hidden: 64 }]
  : [
      { batch: 256, hidden: 64 },
      { batch: 16384, hidden: 1024 },
    ];
const mlp: Record<string, unknown>[] = [];
for (const s of sizes) {
  if (!bound.left()) {
    mlp.push({ batch: s.batch, hidden: s.hidden, skipped: bound.skipped });
    continue;
  }
  const pr = problem(s);
  const row: Record<string, unknown> = { batch: s.batch, hidden: s.hidden };
  const gm = await compile(webgpu, pr.graph, { loss: pr.loss, optimizer: ADAM });
  feed(gm, pr);
  row.baton_webgpu_ms = await timeIt(() => gm.step(), 20, budget);
  gm.dispose();
  if (s.batch * s.hidden <= 256 * 256) {
    const cm = new CpuModel(pr.graph, { loss: pr.loss, optimizer: ADAM });
    feed(cm, pr);
    row.baton_cpu_ms = await timeIt(() => cm.step(), 20, budget);
  }
  if (tfWebgpu === 'webgpu') {
    const tj = tfjsStep(tf, pr);
    row.tfjs_webgpu_ms = await timeIt(() => tj.step(), 20, budget);
    tj.dispose();
  }
  mlp.push(row);
  console.error(JSON.stringify(row));
}
out.mlp = mlp;

// The trainer against the same update in TF.js WebGPU (bench/train-tfjs/tfjs-policy.ts), timed
// alternately on the same device: update, graph step and forward per minibatch.
const tfTrainer: Record<string, unknown>[] = [];
if (tfWebgpu === 'webgpu') {
  const timing = { warmup: 1, minReps: quick ? 1 : 3, maxReps: quick ? 1 : 9, budgetMs: quick ? 0 : 4000 };
  for (const M of quick ? [64] : [64, 256, 1024]) {
    if (!bound.left()) {
      tfTrainer.push({ minibatch: M, skipped: bound.skipped });
      continue;
    }
    try {
      for (const r of await measure(tf, webgpu, 'webgpu (node)', cp, M, timing, (l) => console.error(l)))
        tfTrainer.push({ ...r });
    } catch (e) {
      tfTrainer.push({ minibatch: M, failed: e instanceof Error ? e.message : String(e) });
    }
  }
}
out.tfjs_trainer = tfTrainer;

out.gpt = await gptRows(webgpu, tfWebgpu === 'webgpu' ? tf : null, quick, timeIt, bound);
// The simulated sub-agents on this thread and a worker per core beyond two (at most 7), for the
// `_sim_pool` paths: the same numbers, the simulation spread over the cores (src/workers/sim-pool.ts).
const simPool = simPoolForBench(import.meta.url, quick);
out.sim_workers = simPool.workers;
// … and for the `_rollout_pool` paths: blocks of constructions sampled whole on as many workers
// (src/workers/rollout-pool.ts), one block in the trainer's thread.
const rolloutPool = rolloutPoolForBench(import.meta.url, quick);
out.rollout_workers = rolloutPool.workers;
out.iterations = await iterationRows(
  [
    { label: 'webgpu', choice: webgpu },
    // The same iterations with every log π pass and update awaited before the next is submitted.
    { label: 'webgpu_serial', choice: webgpu, options: { overlap: 1 } },
    // … and with three in flight (the host two steps ahead of the device).
    { label: 'webgpu_overlap3', choice: webgpu, options: { overlap: 3 } },
    // A minibatch per log π pass, and the sampler's node and edge heads in two passes per step.
    { label: 'webgpu_minibatch_passes', choice: webgpu, options: { passRows: 0 } },
    { label: 'webgpu_two_pass_sampler', choice: webgpu, options: { samplerEdgeMode: 'two-pass' } },
    // The sampler's episodes in two streams: one stream's pass runs while the host simulates the other's.
    { label: 'webgpu_streams', choice: webgpu, options: { samplerStreams: 2 } },
    // Without lanes products (the kernels' exact bits of before).
    { label: 'webgpu_exact', choice: { ...webgpu, lanes: false } },
    // With the subgroup twins (the same bits; off by default).
    { label: 'webgpu_subgroups', choice: { ...webgpu, subgroups: true } },
    { label: 'webgpu_wasm_sampler', choice: webgpu, sampler: wasm },
    { label: 'wasm', choice: wasm },
    { label: 'cpu', choice: cpu },
    // The same two paths with the simulator pool.
    { label: 'webgpu_wasm_sampler_sim_pool', choice: webgpu, sampler: wasm, runners: simPool.pool.runners },
    { label: 'cpu_sim_pool', choice: cpu, runners: simPool.pool.runners },
    // … and with the rollout pool.
    {
      label: 'webgpu_wasm_sampler_rollout_pool',
      choice: webgpu,
      sampler: wasm,
      options: { rolloutWorkers: rolloutPool.pool },
    },
    { label: 'cpu_rollout_pool', choice: cpu, options: { rolloutWorkers: rolloutPool.pool } },
  ],
  quick,
  bound,
);
out.sim_pool_problems = simPool.pool.problems;
simPool.pool.dispose();
out.rollout_pool_problems = rolloutPool.pool.problems;
rolloutPool.pool.dispose();
out.elapsed_s = (performance.now() - t00) / 1000;
out.finished = new Date().toISOString();
// What the subgroup check found on this device (the first compile ran it; subgroup-check.ts).
out.subgroup_check = ctx.subgroupCheck;
// The ratios and what each speed option gives, read off the rows above.
out.summary = summarize(out);
// The card's SM clock and utilization per section, from the log run.sh had nvidia-smi write.
const clockLog = process.env.BATON_CLOCK_LOG;
const sections = sectionsOf(startedAt, marks);
out.section_times = sections.map((x) => ({ section: x.name, seconds: (x.end - x.start) / 1000 }));
if (clockLog && existsSync(clockLog)) {
  const samples = parseClockLog(readFileSync(clockLog, 'utf8'), new Date().getTimezoneOffset());
  out.clocks = { log: clockLog, samples: samples.length, by_section: clocksBySection(samples, sections) };
} else out.clocks = { skipped: 'no clock log (run.sh writes one where nvidia-smi is found)' };
writeJson(out);
ctx.dispose();
process.exit(0);
