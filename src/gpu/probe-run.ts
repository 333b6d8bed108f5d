/**
 * Runs the `auto` probe (probe.ts) on a device and on the CPU-side backend: compiles the probe
 * step on each, runs one untimed warm-up step (pipelines, arenas) and then times steps until
 * `reps` have run or the budget is spent, keeping the median. Loaded only with the WebGPU code.
 */
import { CpuModel } from './cpu/model.ts';
import type { Model } from './model.ts';
import { PROBE_ADAM, probeWork, type ProbeTimings, type ProbeWorkload } from './probe.ts';
import type { GpuContext } from './webgpu/device.ts';

export interface ProbeRunOptions {
  /** Timed steps per backend (default 5). */
  reps?: number;
  /** Wall-time budget per backend for the timed steps, in ms (default 100): fewer steps past it. */
  budgetMs?: number;
}

const now = (): number => globalThis.performance?.now() ?? Date.now();

async function timeSteps(
  model: Model,
  inputs: Record<string, Float32Array | Uint32Array>,
  o: ProbeRunOptions,
): Promise<number> {
  for (const [k, v] of Object.entries(inputs)) model.setInput(k, v);
  await model.step();
  const reps = o.reps ?? 5;
  const budget = o.budgetMs ?? 100;
  const times: number[] = [];
  const start = now();
  while (times.length < reps && (times.length === 0 || now() - start < budget)) {
    const t0 = now();
    await model.step();
    times.push(now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}

/**
 * Times a caller's workload (probe.ts `ProbeWorkload`) on `ctx`'s device and on `cpuBackend`, the
 * same way: a WebGPU failure throws, a CPU-side one gives NaN.
 */
export async function runWorkload(
  ctx: GpuContext,
  cpuBackend: 'wasm' | 'cpu',
  w: ProbeWorkload,
): Promise<ProbeTimings> {
  const t0 = now();
  const webgpu = await w.time('webgpu', ctx, cpuBackend);
  let cpuMs = NaN;
  try {
    const cpu = await w.time(cpuBackend, null, cpuBackend);
    cpuMs = typeof cpu === 'number' ? cpu : cpu.ms;
  } catch {
    // cpuMs stays NaN: WebGPU, which ran, is kept.
  }
  const timings: ProbeTimings = { webgpuMs: NaN, cpuMs, cpuBackend, totalMs: now() - t0, unit: w.unit };
  if (typeof webgpu === 'number') return { ...timings, webgpuMs: webgpu };
  return {
    ...timings,
    webgpuMs: webgpu.ms,
    webgpuNote: webgpu.note,
    ...(webgpu.samplerBackend ? { samplerBackend: webgpu.samplerBackend } : {}),
  };
}

/** Times the probe step on `ctx`'s device and on `cpuBackend`; a WebGPU failure throws, a CPU one gives NaN. */
export async function runProbe(
  ctx: GpuContext,
  cpuBackend: 'wasm' | 'cpu',
  o: ProbeRunOptions = {},
): Promise<ProbeTimings> {
  const t0 = now();
  const work = probeWork();
  const opts = { loss: work.loss, optimizer: PROBE_ADAM };
  const { GpuModel } = await import('./webgpu/model.ts');
  const gpu = new GpuModel(ctx, work.graph, opts);
  let webgpuMs: number;
  try {
    webgpuMs = await timeSteps(gpu, work.inputs, o);
  } finally {
    gpu.dispose();
  }
  // A CPU side that fails to compile or run leaves cpuMs NaN: WebGPU, which ran, is kept.
  let cpuMs = NaN;
  let cpu: Model | null = null;
  try {
    cpu =
      cpuBackend === 'wasm'
        ? await (await import('./wasm/model.ts')).createWasmModel(work.graph, opts)
        : new CpuModel(work.graph, opts);
    cpuMs = await timeSteps(cpu, work.inputs, o);
  } catch {
    // cpuMs stays NaN.
  } finally {
    cpu?.dispose();
  }
  return { webgpuMs, cpuMs, cpuBackend, totalMs: now() - t0, unit: 'probe step' };
}
