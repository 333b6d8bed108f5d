/**
 * The `auto` probe's workload and decision (pure: no device, no clock). On a hardware adapter,
 * `chooseBackend('auto')` times one small training step shaped like the construction policy's
 * update (message passing over a graph of agents with gather and scatter-add rows, readouts per
 * state, a node head, masked log-softmax, Adam) on WebGPU and on the best CPU-side backend, and
 * keeps the faster (probe-run.ts runs it; docs/compute-core.md, "Choosing a backend").
 */
import { createRng } from '../core/rng.ts';
import { Graph } from './graph.ts';
import type { Tensor } from './graph.ts';
import { glorot, uniform } from './init.ts';
import type { AdamConfig } from './optimizer.ts';
import type { GpuContext } from './webgpu/device.ts';

/** States, agents per state, links per agent, widths: a training minibatch's shapes, scaled down. */
export const PROBE_SHAPE = {
  states: 64,
  agents: 12,
  links: 2,
  features: 24,
  state: 128,
  hidden: 64,
  graph: 32,
  actions: 16,
} as const;

export const PROBE_ADAM: AdamConfig = { lr: 1e-3, clipNorm: 1 };

export interface ProbeWork {
  graph: Graph;
  loss: Tensor;
  inputs: Record<string, Float32Array | Uint32Array>;
}

/** The probe step's graph and inputs (seeded: the same numbers on every backend and every call). */
export function probeWork(shape: typeof PROBE_SHAPE = PROBE_SHAPE): ProbeWork {
  const rng = createRng(17);
  const { states: B, agents: N, links: L, features: Da, state: Ds, hidden: H, graph: G, actions: A } = shape;
  const BN = B * N;
  const M = BN * L;
  const g = new Graph();
  const p = (name: string, rows: number, cols: number): Tensor =>
    g.param(name, [rows, cols], glorot(rng, rows, cols));
  const bias = (name: string, n: number): Tensor => g.param(name, [n], uniform(rng, n, 0.1));
  const state = g.input('state', [B, Ds]);
  const mask = g.input('mask', [B, A]);
  const action = g.input('action', [B], 'u32');
  const adv = g.input('adv', [B]);
  const agents = g.input('agents', [BN, Da]);
  const from = g.input('from', [M], 'u32');
  const to = g.input('to', [M], 'u32');
  const agentBatch = g.input('agentBatch', [BN], 'u32');
  const linkW = g.input('linkW', [M, G]);
  const readW = g.input('readW', [BN, G]);
  let x = g.biasAct(g.matmul(agents, p('embed', Da, G)), bias('embedB', G), 'tanh');
  const fromReads = g.scatterAddRows(g.mul(g.gatherRows(g.matmul(x, p('in', G, G)), from), linkW), to, BN);
  const fromReaders = g.scatterAddRows(g.mul(g.gatherRows(g.matmul(x, p('out', G, G)), to), linkW), from, BN);
  x = g.biasAct(g.add(g.add(g.matmul(x, p('self', G, G)), fromReads), fromReaders), bias('gb', G), 'tanh');
  const mean = g.scatterAddRows(g.mul(x, readW), agentBatch, B);
  const h = g.biasAct(
    g.add(g.matmul(state, p('w1', Ds, H)), g.matmul(mean, p('wg', G, H))),
    bias('b1', H),
    'tanh',
  );
  const logits = g.biasAct(g.matmul(h, p('w2', H, A)), bias('b2', A), 'none');
  const taken = g.pick(g.logSoftmax(logits, mask), action);
  const loss = g.scale(g.mean(g.mul(taken, adv)), -1);

  const maskData = new Float32Array(B * A);
  const actionData = new Uint32Array(B);
  for (let b = 0; b < B; b++) {
    for (let a = 0; a < A; a++) if (a === 0 || rng.next() < 0.6) maskData[b * A + a] = 1;
    do actionData[b] = rng.int(A);
    while (maskData[b * A + (actionData[b] as number)] === 0);
  }
  const fromData = new Uint32Array(M);
  const toData = new Uint32Array(M);
  for (let e = 0; e < M; e++) {
    const b = Math.floor(e / (N * L));
    fromData[e] = b * N + rng.int(N);
    toData[e] = b * N + rng.int(N);
  }
  const batchData = new Uint32Array(BN);
  for (let i = 0; i < BN; i++) batchData[i] = Math.floor(i / N);
  return {
    graph: g,
    loss,
    inputs: {
      state: uniform(rng, B * Ds, 1),
      mask: maskData,
      action: actionData,
      adv: uniform(rng, B, 1),
      agents: uniform(rng, BN * Da, 1),
      from: fromData,
      to: toData,
      agentBatch: batchData,
      linkW: new Float32Array(M * G).fill(1 / L),
      readW: new Float32Array(BN * G).fill(1 / N),
    },
  };
}

/** Milliseconds per probe step (median of the timed steps) on WebGPU and on the CPU-side backend. */
export interface ProbeTimings {
  webgpuMs: number;
  cpuMs: number;
  /** The CPU-side backend that was timed: wasm where the engine has SIMD, else the TypeScript one. */
  cpuBackend: 'wasm' | 'cpu';
  /** Wall time of the whole probe (compiling, warming up and timing both backends). */
  totalMs: number;
  /** What one timed unit is, as the reason says it: `probe step`, or a caller's workload's unit. */
  unit: string;
  /** What the WebGPU timing ran with, when the workload timed variants (`ProbeTime.note`). */
  webgpuNote?: string;
  /** The CPU-side backend the WebGPU run's rollouts were sampled on (`ProbeTime.samplerBackend`). */
  samplerBackend?: 'wasm' | 'cpu';
}

/**
 * A workload's timing on WebGPU when it tried variants of its own and kept the fastest: the
 * trainer times its iterations with rollouts sampled on the device and on the CPU side.
 */
export interface ProbeTime {
  ms: number;
  /** The variant kept, for the reason, e.g. `rollouts on wasm: 141 ms; on WebGPU: 212 ms`. */
  note: string;
  /** Rollouts sampled on this CPU-side backend (BackendChoice.samplerBackend); absent: on the device. */
  samplerBackend?: 'wasm' | 'cpu';
}

/**
 * A caller's own workload for the `auto` probe (`SelectOptions.workload`), timed on WebGPU and on
 * the CPU side in place of the generic probe step. The generic step predicts badly where a workload
 * differs from it in how many dispatches and read-backs it needs per unit of arithmetic: on a real
 * GPU those, not the arithmetic, set the time of a small network's training (docs/compute-core.md,
 * "Choosing a backend"). The trainer times a whole training iteration of the run's own config
 * (src/train/backend-probe.ts).
 */
export interface ProbeWorkload {
  /** One timed unit, for the reason: e.g. `training iteration (64 episodes)`. */
  unit: string;
  /** Keys the per-page timing cache, beside the adapter and the CPU-side backend. */
  key: string;
  /**
   * Milliseconds per unit on this backend, warm-up included in the call but not in the result.
   * `ctx` is the device for WebGPU and null on the CPU side; `cpuBackend` is the probe's CPU-side
   * backend. Throws when the backend fails. On WebGPU it may time variants and give the fastest
   * with what it ran (`ProbeTime`).
   */
  time(
    backend: 'webgpu' | 'wasm' | 'cpu',
    ctx: GpuContext | null,
    cpuBackend: 'wasm' | 'cpu',
  ): Promise<number | ProbeTime>;
}

/** Milliseconds as the probe's reasons write them: whole from 10, one decimal from 1, else two. */
export const formatMs = (x: number): string =>
  x >= 10 ? x.toFixed(0) : x >= 1 ? x.toFixed(1) : x.toFixed(2);

export interface ProbeDecision {
  backend: 'webgpu' | 'wasm' | 'cpu';
  reason: string;
}

/**
 * The faster backend, with both timings in the reason, e.g. "hardware adapter nvidia …: WebGPU
 * 1.2 ms vs wasm 9.8 ms per probe step: WebGPU backend" (with the WebGPU variant kept, when the
 * workload timed variants, in parentheses after its time). `t` null means the WebGPU probe failed
 * (`error` says why): the CPU side is chosen. A CPU timing that is not a positive finite number
 * never wins; ties go to the CPU side.
 */
export function decideBackend(
  adapter: string,
  cpuBackend: 'wasm' | 'cpu',
  t: Pick<ProbeTimings, 'webgpuMs' | 'cpuMs' | 'webgpuNote'> | null,
  error = '',
  unit = 'probe step',
): ProbeDecision {
  const cpuName = cpuBackend === 'wasm' ? 'WebAssembly SIMD' : 'CPU (TypeScript)';
  if (!t || !(t.webgpuMs > 0) || !Number.isFinite(t.webgpuMs)) {
    const why = error ? ` (${error})` : '';
    return {
      backend: cpuBackend,
      reason: `hardware adapter ${adapter}: the WebGPU ${unit} failed${why}: ${cpuName} backend`,
    };
  }
  const note = t.webgpuNote ? ` (${t.webgpuNote})` : '';
  const head = `hardware adapter ${adapter}: WebGPU ${formatMs(t.webgpuMs)} ms${note} vs ${cpuBackend} ${formatMs(t.cpuMs)} ms per ${unit}`;
  const cpuOk = t.cpuMs > 0 && Number.isFinite(t.cpuMs);
  if (!cpuOk || t.webgpuMs < t.cpuMs) return { backend: 'webgpu', reason: `${head}: WebGPU backend` };
  return { backend: cpuBackend, reason: `${head}: ${cpuName} backend` };
}
