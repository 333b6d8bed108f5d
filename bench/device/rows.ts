/**
 * Rows of the device benchmark (run.ts) beyond the trainer, matmul and MLP step: whole training
 * iterations (episodes/s) on every backend, the GPT-2-style training step on Baton WebGPU and TF.js
 * WebGPU, the `auto` probe, and the per-kernel profile (timestamp queries where the device has
 * them). Each row is bounded: a rep budget per measure, and rows past the run's deadline are
 * skipped with the reason in the JSON.
 */
import type * as TF from '@tensorflow/tfjs';
import { chooseBackend, compile, type BackendChoice } from '../../src/gpu/index.ts';
import { runProbe } from '../../src/gpu/probe-run.ts';
import { wasmSimdAvailable } from '../../src/gpu/wasm/simd.ts';
import type { GpuContext } from '../../src/gpu/webgpu/device.ts';
import type { GpuModel } from '../../src/gpu/webgpu/model.ts';
import { simulatedRunners } from '../../src/executor/train-runners.ts';
import { buildTinyGptGraph, initWeights } from '../../src/lm/index.ts';
import { TinyGptConfigSchema, paramCount } from '../../src/lm/spec.ts';
import { DEFAULT_POOL, priorCheckpoint } from '../../src/policy/index.ts';
import {
  Learner,
  Trainer,
  iterationWorkload,
  trainConfig,
  type TrainConfigInput,
  type TrainerOptions,
} from '../../src/train/index.ts';
import { sampleBatch } from '../train-tfjs/episodes.ts';
import { ADAM, tfjsStep, window, type LmSize } from '../lm-common.ts';

export type Timer = (fn: () => Promise<unknown>, reps: number, budgetMs: number) => Promise<number>;

/** Run-wide bound: `left()` says whether a row may start. */
export interface Bound {
  left(): boolean;
  skipped: string;
}

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** The `auto` probe's two timings (forced on whatever adapter this is, software included). */
export async function probeRow(ctx: GpuContext, quick: boolean): Promise<Record<string, unknown>> {
  const cpu = wasmSimdAvailable() ? 'wasm' : 'cpu';
  const t = await runProbe(ctx, cpu, quick ? { reps: 1 } : {});
  return { webgpu_ms: t.webgpuMs, cpu_ms: t.cpuMs, cpu_backend: t.cpuBackend, probe_ms: t.totalMs };
}

/** The training configs of the iteration rows: the default and B=32, G=8 (`--quick`: B=2, G=4). */
const iterationConfigs = (quick: boolean): { name: string; over: TrainConfigInput }[] =>
  quick
    ? [{ name: 'quick (B=2, G=4)', over: { tasksPerIteration: 2, groupSize: 4 } }]
    : [
        { name: 'default (B=8, G=8)', over: {} },
        { name: 'B=32, G=8', over: { tasksPerIteration: 32, groupSize: 8 } },
      ];

/**
 * What `auto` picks for training when it times the run's own iteration (src/train/backend-probe.ts),
 * per config: both timings, the choice and the probe's wall time. `--quick` (a software adapter)
 * times it as if the adapter were hardware, so that the path runs.
 */
export async function autoTrainRows(
  gpu: GPU,
  quick: boolean,
  bound: Bound,
): Promise<Record<string, unknown>[]> {
  const configs = iterationConfigs(quick);
  const rows: Record<string, unknown>[] = [];
  for (const c of configs) {
    if (!bound.left()) {
      rows.push({ config: c.name, skipped: bound.skipped });
      continue;
    }
    const config = trainConfig({ preset: 'mixed', seed: 0, ...c.over });
    const workload = iterationWorkload({
      start: priorCheckpoint(DEFAULT_POOL),
      pool: DEFAULT_POOL,
      config,
      runners: simulatedRunners,
    });
    const t0 = performance.now();
    const choice = await chooseBackend('auto', {
      gpu,
      workload,
      ...(quick ? { probeSoftwareAdapter: true } : {}),
    });
    const p = choice.probe;
    rows.push({
      config: c.name,
      backend: choice.backend,
      reason: choice.reason,
      webgpu_ms: p?.webgpuMs ?? null,
      // Which sampler the WebGPU timing kept, and both samplers' times (backend-probe.ts).
      webgpu_note: p?.webgpuNote ?? null,
      sampler_backend: choice.samplerBackend ?? null,
      cpu_ms: p?.cpuMs ?? null,
      choose_ms: performance.now() - t0,
    });
    choice.ctx?.dispose();
    console.error(JSON.stringify({ auto_train: rows[rows.length - 1] }));
  }
  return rows;
}

/**
 * Episodes per second of whole training iterations (batched sampling, simulated runners, the PPO
 * update), preset mixed from `prior`, the same seed on every backend. Per config, one trainer per
 * path, each warmed up with one untimed iteration; then rounds of one timed iteration per path, the
 * paths in a different order each round, until `rounds` rounds or the config's budget. A host
 * whose speed drifts (a shared machine's does, by 1.5× within minutes) then slows every path of a
 * round alike, and each round gives a ratio of paths measured side by side (`_by_round`).
 */
export interface IterationPath {
  /** Column prefix in the JSON (e.g. `webgpu`, `webgpu_wasm_sampler`). */
  label: string;
  choice: BackendChoice;
  /** Where rollouts are sampled when not on `choice` (TrainerOptions.samplerChoice). */
  sampler?: BackendChoice;
  /**
   * Trainer options that change speed, not numbers: `overlap` (default 2: each minibatch submitted
   * before the last is awaited), `passRows` (default 512 rows per log π pass; 0: a minibatch each)
   * `samplerEdgeMode` (default on WebGPU `fused`: one sampler pass per construction step) and
   * `samplerStreams` (default 1; a smaller batch per pass can move a probability's last bits on
   * a GPU whose product kernels are picked by size).
   */
  options?: Pick<
    TrainerOptions,
    'overlap' | 'passRows' | 'samplerEdgeMode' | 'samplerStreams' | 'rolloutWorkers'
  >;
  /** The simulated sub-agents (default `simulatedRunners`, in this thread; a simulator pool's). */
  runners?: typeof simulatedRunners;
}

export async function iterationRows(
  paths: IterationPath[],
  quick: boolean,
  bound: Bound,
): Promise<Record<string, unknown>[]> {
  const configs = iterationConfigs(quick);
  // Ten rounds: in six, the H200's per-round ratios of WebGPU (rollouts on wasm) to the TypeScript
  // CPU backend spread over 3.1–5.7× (docs/benchmarks.md, the H200 runs' table).
  const rounds = quick ? 1 : 10;
  const budgetMs = quick ? 60_000 : 40_000;
  const rows: Record<string, unknown>[] = [];
  for (const c of configs) {
    const row: Record<string, unknown> = { config: c.name };
    const config = trainConfig({ preset: 'mixed', seed: 0, ...c.over });
    const episodes = config.tasksPerIteration * config.groupSize;
    const live: {
      p: IterationPath;
      t: Trainer;
      ms: number[];
      rollout: number;
      update: number;
      phases: Phases;
    }[] = [];
    try {
      for (const p of paths) {
        if (!bound.left()) {
          row[`${p.label}_episodes_per_s`] = bound.skipped;
          continue;
        }
        const t = await Trainer.create({
          start: priorCheckpoint(DEFAULT_POOL),
          pool: DEFAULT_POOL,
          config,
          choice: p.choice,
          ...(p.sampler ? { samplerChoice: p.sampler } : {}),
          ...p.options,
          runners: p.runners ?? simulatedRunners,
          sampling: 'batched',
          clock: () => performance.now(),
        });
        live.push({ p, t, ms: [], rollout: 0, update: 0, phases: { ...NO_PHASES } });
        await t.iterate();
      }
      const t0 = performance.now();
      for (let r = 0; r < rounds && (r < 2 || performance.now() - t0 < budgetMs) && bound.left(); r++) {
        for (let k = 0; k < live.length; k++) {
          const x = live[(k + r) % live.length] as (typeof live)[number];
          const s0 = performance.now();
          const m = await x.t.iterate();
          x.ms.push(performance.now() - s0);
          x.rollout += m.timings?.rolloutMs ?? 0;
          x.update += m.timings?.updateMs ?? 0;
          const ph = m.timings?.phases;
          if (ph) for (const key of Object.keys(x.phases) as (keyof Phases)[]) x.phases[key] += ph[key];
        }
      }
    } finally {
      for (const x of live) x.t.dispose();
    }
    for (const x of live) {
      const n = x.ms.length;
      const label = x.p.label;
      row[`${label}_episodes_per_s`] = (n * episodes) / (x.ms.reduce((a, b) => a + b, 0) / 1000);
      row[`${label}_iterations`] = n;
      // Each round's episodes/s, in round order (the paths of a round ran one after another).
      row[`${label}_by_round`] = x.ms.map((ms) => episodes / (ms / 1000));
      // Per iteration: sampling the rollouts, and advantages + every minibatch update.
      row[`${label}_rollout_ms`] = x.rollout / n;
      row[`${label}_update_ms`] = x.update / n;
      // The update's parts: encoding, old/reference log π, the minibatch updates, the read-back.
      for (const [k, v] of Object.entries(x.phases))
        row[`${label}_update_${k.replace(/Ms$/, '')}_ms`] = v / n;
    }
    rows.push(row);
    console.error(JSON.stringify(row));
  }
  return rows;
}

type Phases = { encodeMs: number; oldLogpMs: number; stepsMs: number; readBackMs: number };
const NO_PHASES: Phases = { encodeMs: 0, oldLogpMs: 0, stepsMs: 0, readBackMs: 0 };

export const GPT_SIZES: LmSize[] = [
  { vocab: 1024, embd: 256, layers: 4, heads: 4, batch: 16, seq: 256 },
  { vocab: 1024, embd: 384, layers: 6, heads: 6, batch: 16, seq: 512 },
];
const GPT_QUICK: LmSize[] = [{ vocab: 256, embd: 64, layers: 1, heads: 4, batch: 2, seq: 16 }];

/**
 * The GPT-2-style training step (src/lm/graph.ts: embeddings, pre-LayerNorm blocks with causal
 * attention and a GELU MLP, tied head, cross-entropy, backward, clipping, Adam) on Baton WebGPU and
 * the same step in TF.js WebGPU (`tf` already on its WebGPU backend, or null), same weights and
 * inputs; the first losses are reported so that a reader can see both computed the same step.
 */
export async function gptRows(
  webgpu: BackendChoice,
  tf: typeof TF | null,
  quick: boolean,
  time: Timer,
  bound: Bound,
): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  for (const s of quick ? GPT_QUICK : GPT_SIZES) {
    const config = TinyGptConfigSchema.parse({
      vocabSize: s.vocab,
      nPositions: s.seq,
      nEmbd: s.embd,
      nHead: s.heads,
      nLayer: s.layers,
    });
    const row: Record<string, unknown> = {
      params: paramCount(config),
      tokens: `${s.batch}x${s.seq}`,
      size: `V ${s.vocab}, d ${s.embd}, ${s.layers} layers, ${s.heads} heads`,
    };
    if (!bound.left()) {
      row.skipped = bound.skipped;
      rows.push(row);
      continue;
    }
    const weights = initWeights(config, 1);
    const { inputs } = window(config, s);
    const tg = buildTinyGptGraph(config, { batch: s.batch, seq: s.seq, weights });
    const m = await compile(webgpu, tg.graph, { loss: tg.loss, optimizer: ADAM });
    for (const [k, x] of Object.entries(inputs)) m.setInput(k, x);
    row.baton_first_loss = (await m.step()).loss;
    row.baton_webgpu_ms = await time(() => m.step(), quick ? 1 : 10, quick ? 0 : 6000);
    m.dispose();
    // The same step with layer norm one invocation per row (wideRows off: the plan before it).
    if (bound.left()) {
      const narrow = await compile({ ...webgpu, wideRows: false }, tg.graph, {
        loss: tg.loss,
        optimizer: ADAM,
      });
      for (const [k, x] of Object.entries(inputs)) narrow.setInput(k, x);
      row.baton_narrow_rows_first_loss = (await narrow.step()).loss;
      row.baton_webgpu_narrow_rows_ms = await time(() => narrow.step(), quick ? 1 : 10, quick ? 0 : 6000);
      narrow.dispose();
    }
    if (tf && bound.left()) {
      try {
        const tj = tfjsStep(tf, weights, s, inputs);
        row.tfjs_first_loss = await tj.step();
        row.tfjs_webgpu_ms = await time(() => tj.step(), quick ? 1 : 10, quick ? 0 : 6000);
        tj.dispose();
      } catch (e) {
        row.tfjs_webgpu_ms = `failed: ${errorText(e)}`;
      }
    } else row.tfjs_webgpu_ms = tf ? bound.skipped : 'TF.js WebGPU unavailable';
    rows.push(row);
    console.error(JSON.stringify(row));
  }
  return rows;
}

/**
 * Where one trainer update's time goes, per kernel: with `timestamp-query` on the device, GPU
 * timestamps around each dispatch's pass (one submission); otherwise wall time per dispatch, each
 * in its own submission. Minimum of two profiled steps per dispatch; `method` says which timer.
 */
export async function profileRow(webgpu: BackendChoice, M: number): Promise<Record<string, unknown>> {
  const pool = DEFAULT_POOL;
  const cp = priorCheckpoint(pool);
  const config = trainConfig({ minibatch: M });
  const data = await sampleBatch(cp, pool, config, M, 17);
  const learner = await Learner.create(cp, cp, pool, config, webgpu);
  const pick = Array.from({ length: M }, (_, i) => i);
  const old = await learner.logProbs(data.full);
  await learner.update(data.full, pick, old, old, data.advantages);
  const shares = await kernelShares(learner.model as GpuModel);
  learner.dispose();
  return {
    minibatch: M,
    method:
      shares.timer === 'timestamp'
        ? 'timestamp-query: GPU timestamps around each dispatch, all dispatches in one submission'
        : 'wall time per dispatch, each in its own submission (no timestamp-query on this device)',
    ...shares,
  };
}

/** Per-kernel totals of two profiled steps (minimum per dispatch), shares of the whole. */
async function kernelShares(model: GpuModel): Promise<Record<string, unknown>> {
  const a = await model.profileStep(2, { timestamps: true });
  const b = await model.profileStep(2, { timestamps: true });
  const byKernel = new Map<string, number>();
  // Every dispatch, slowest first: phase, kernel, its first uniform words (sizes), µs.
  const each = a
    .map((d, i) => ({
      phase: d.phase,
      kernel: d.kernel,
      uniform: d.uniform.join(','),
      us: 1000 * Math.min(d.ms, b[i]?.ms ?? d.ms),
    }))
    .sort((x, y) => y.us - x.us);
  a.forEach((d, i) => {
    const k = `${d.phase} ${d.kernel}`;
    byKernel.set(k, (byKernel.get(k) ?? 0) + Math.min(d.ms, b[i]?.ms ?? d.ms));
  });
  const byName = new Map<string, number>();
  a.forEach((d, i) => byName.set(d.kernel, (byName.get(d.kernel) ?? 0) + Math.min(d.ms, b[i]?.ms ?? d.ms)));
  const total = [...byKernel.values()].reduce((x, y) => x + y, 0);
  const stamped = a.length > 0 && a.every((d) => d.timer === 'timestamp');
  const shares = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((x, y) => y[1] - x[1])
      .map(([kernel, ms]) => ({ kernel, ms, share: total > 0 ? ms / total : 0 }));
  return {
    timer: stamped ? 'timestamp' : 'wall',
    dispatches: a.length,
    total_ms: total,
    by_kernel: shares(byName),
    kernels: shares(byKernel),
    slowest: each.slice(0, 60),
  };
}

/** Where one GPT-2-style training step's time goes, per kernel, at each GPT size (or the quick one). */
export async function gptProfileRows(
  webgpu: BackendChoice,
  quick: boolean,
  bound: Bound,
): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  for (const s of quick ? GPT_QUICK : GPT_SIZES) {
    if (!bound.left()) {
      rows.push({ tokens: `${s.batch}x${s.seq}`, skipped: bound.skipped });
      continue;
    }
    const config = TinyGptConfigSchema.parse({
      vocabSize: s.vocab,
      nPositions: s.seq,
      nEmbd: s.embd,
      nHead: s.heads,
      nLayer: s.layers,
    });
    const weights = initWeights(config, 1);
    const { inputs } = window(config, s);
    const tg = buildTinyGptGraph(config, { batch: s.batch, seq: s.seq, weights });
    const m = (await compile(webgpu, tg.graph, { loss: tg.loss, optimizer: ADAM })) as GpuModel;
    try {
      for (const [k, x] of Object.entries(inputs)) m.setInput(k, x);
      await m.step();
      rows.push({ params: paramCount(config), tokens: `${s.batch}x${s.seq}`, ...(await kernelShares(m)) });
    } finally {
      m.dispose();
    }
  }
  return rows;
}
