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
 * - a per-dispatch profile of one trainer step (GpuModel.profileStep: wall time per dispatch).
 * Prints one JSON object. `--quick`: the smallest size of each, for a software adapter.
 */
import * as tf from '@tensorflow/tfjs';
import { allowWgslImports } from '../../src/cli/wgsl-loader.ts';
import { describeAdapter } from '../../src/gpu/adapter.ts';
import { CpuModel } from '../../src/gpu/cpu/model.ts';
import { Graph } from '../../src/gpu/graph.ts';
import { uniform } from '../../src/gpu/init.ts';
import { chooseBackend, compile, type BackendChoice } from '../../src/gpu/index.ts';
import { nodeGpu } from '../../src/gpu/node-gpu.ts';
import type { GpuModel } from '../../src/gpu/webgpu/model.ts';
import { createRng } from '../../src/core/rng.ts';
import { DEFAULT_POOL, priorCheckpoint } from '../../src/policy/index.ts';
import { Learner, trainConfig } from '../../src/train/index.ts';
import { ADAM, feed, problem, tfjsStep, type BenchSize } from '../gpu-common.ts';
import { sampleBatch } from '../train-tfjs/episodes.ts';

const quick = process.argv.includes('--quick');
const out: Record<string, unknown> = { quick, node: process.version, started: new Date().toISOString() };
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
const gpu = await nodeGpu();
const auto = await chooseBackend('auto', { gpu });
out.adapter = auto.adapter ? describeAdapter(auto.adapter) : null;
out.auto = { backend: auto.backend, reason: auto.reason };
auto.ctx?.dispose();
const webgpu = await chooseBackend('webgpu', { gpu });
if (webgpu.backend !== 'webgpu' || !webgpu.ctx) throw new Error(`no WebGPU adapter: ${webgpu.reason}`);
const ctx = webgpu.ctx;
const cpu: BackendChoice = { backend: 'cpu', reason: 'forced', adapter: null, ctx: null };
const budget = quick ? 4000 : 8000;

// The trainer: update and forward per minibatch, both backends.
const trainer: Record<string, unknown>[] = [];
const pool = DEFAULT_POOL;
const cp = priorCheckpoint(pool);
for (const M of quick ? [64] : [64, 256, 1024]) {
  const config = trainConfig({ minibatch: M });
  const data = await sampleBatch(cp, pool, config, M, 17);
  const pick = Array.from({ length: M }, (_, i) => i);
  const row: Record<string, unknown> = { minibatch: M };
  for (const choice of [webgpu, cpu]) {
    const learner = await Learner.create(cp, cp, pool, config, choice);
    const old = await learner.logProbs(data.full);
    const ref = await learner.logProbs(data.full, 'reference');
    if (choice === webgpu) {
      ctx.resetCounters();
      await learner.update(data.full, pick, old, ref, data.advantages);
      row.counters = ctx.resetCounters();
    }
    const upd = await timeIt(() => learner.update(data.full, pick, old, ref, data.advantages), 9, budget);
    const fwd = await timeIt(() => learner.logProbs(data.full), 9, budget);
    const passes = Math.ceil(data.full.batch / M);
    row[`${choice.backend}_update_ms`] = upd;
    row[`${choice.backend}_forward_ms`] = fwd / passes;
    learner.dispose();
  }
  trainer.push(row);
  console.error(JSON.stringify(row));
}
out.trainer = trainer;

// Matmul N³ on WebGPU (forward only).
const matmul: Record<string, unknown>[] = [];
for (const N of quick ? [256] : [2048, 4096]) {
  const g = new Graph();
  const rng = createRng(1);
  const x = g.input('x', [N, N]);
  // Σ of the product as the step's scalar: its 4-byte read-back waits for the matmul (N² adds).
  const loss = g.sum(g.sum(g.matmul(x, g.param('w', [N, N], uniform(rng, N * N, 0.1)))));
  const m = await compile(webgpu, g, { loss });
  m.setInput('x', uniform(rng, N * N, 1));
  const ms = await timeIt(() => m.step({ backward: false }), quick ? 3 : 10, budget);
  matmul.push({ n: N, ms, tflops: (2 * N ** 3) / (ms * 1e-3) / 1e12 });
  console.error(JSON.stringify(matmul[matmul.length - 1]));
  m.dispose();
}
out.matmul = matmul;

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
const sizes: BenchSize[] = quick
  ? [{ batch: 256, hidden: 64 }]
  : [
      { batch: 256, hidden: 64 },
      { batch: 16384, hidden: 1024 },
    ];
const mlp: Record<string, unknown>[] = [];
for (const s of sizes) {
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

// Where one trainer step's time goes, per dispatch (wall time per dispatch, minimum of 2).
{
  const M = quick ? 64 : 256;
  const config = trainConfig({ minibatch: M });
  const data = await sampleBatch(cp, pool, config, M, 17);
  const learner = await Learner.create(cp, cp, pool, config, webgpu);
  const old = await learner.logProbs(data.full);
  await learner.update(
    data.full,
    Array.from({ length: M }, (_, i) => i),
    old,
    old,
    data.advantages,
  );
  const model = learner.model as GpuModel;
  const a = await model.profileStep(2);
  const b = await model.profileStep(2);
  const byKernel = new Map<string, number>();
  a.forEach((d, i) => {
    const k = `${d.phase} ${d.kernel}`;
    byKernel.set(k, (byKernel.get(k) ?? 0) + Math.min(d.ms, b[i]?.ms ?? d.ms));
  });
  const total = [...byKernel.values()].reduce((x, y) => x + y, 0);
  out.profile = {
    minibatch: M,
    method: 'wall time per dispatch, each in its own submission (GpuModel.profileStep)',
    total_ms: total,
    kernels: [...byKernel.entries()]
      .sort((x, y) => y[1] - x[1])
      .map(([kernel, ms]) => ({ kernel, ms, share: ms / total })),
  };
  learner.dispose();
}
out.finished = new Date().toISOString();
console.log(JSON.stringify(out, null, 2));
ctx.dispose();
process.exit(0);
