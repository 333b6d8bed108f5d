/**
 * Backend choice. `auto` never takes a software adapter (SwiftShader, llvmpipe): it runs these
 * kernels slower than the CPU backends (measured in docs/benchmarks.md), so it falls back to the
 * CPU and says why: the WebAssembly SIMD kernels where the engine has SIMD, else plain TypeScript.
 * On a hardware adapter, `auto` times a small trainer-shaped step on WebGPU and on that CPU-side
 * backend (probe.ts, probe-run.ts), or the caller's own workload where it passes one (the trainer:
 * a whole training iteration of its config), keeps the faster and puts both timings in the reason.
 * The timings are measured once per adapter, workload and page (or process).
 */
import { describeAdapter } from './adapter.ts';
import { wasmSimdAvailable } from './wasm/simd.ts';
import type { BackendKind } from './model.ts';
import { decideBackend, type ProbeTimings, type ProbeWorkload } from './probe.ts';
import type { ProbeRunOptions } from './probe-run.ts';
import type { AcquireOptions, AdapterReport, GpuContext } from './webgpu/device.ts';

export type BackendPreference = BackendKind | 'auto';

export interface BackendChoice {
  backend: BackendKind;
  /** Why this backend was chosen, for the UI and the CLI. */
  reason: string;
  /** The adapter that was found, if any (also when the CPU was chosen over it). */
  adapter: AdapterReport | null;
  /** The device context when the choice is WebGPU. */
  ctx: GpuContext | null;
  /** The probe's timings, when `auto` timed WebGPU against the CPU side. */
  probe?: ProbeTimings;
  /**
   * WebGPU: run small products on matmul_lanes.wgsl (GpuModelOptions.lanes) in every model compiled
   * with this choice; absent: on a hardware adapter only.
   */
  lanes?: boolean;
  /**
   * WebGPU: long rows one workgroup per row (GpuModelOptions.wideRows) in every model compiled with
   * this choice; absent: on a hardware adapter only.
   */
  wideRows?: boolean;
  /**
   * WebGPU: the subgroup twins of the kernels with trees across invocations (GpuModelOptions.subgroups)
   * in every model compiled with this choice, where the device's check allows; absent: off.
   */
  subgroups?: boolean;
  /**
   * WebGPU: sibling lanes products in one dispatch (GpuModelOptions.siblings) in every model
   * compiled with this choice; absent: on (where lanes products are).
   */
  siblings?: boolean;
  /**
   * WebGPU: a backward pass's grouped gradient products (GpuModelOptions.gradGroups) in every model
   * compiled with this choice; absent: on (where lanes products are).
   */
  gradGroups?: boolean;
  /**
   * WebGPU: sample the trainer's rollouts on this CPU-side backend rather than on the device (the
   * `auto` probe sets it where sampling there made whole iterations faster; TrainerOptions.samplerChoice
   * overrides it).
   */
  samplerBackend?: 'wasm' | 'cpu';
}

export interface SelectOptions extends AcquireOptions {
  /** Steps and budget of the probe (probe-run.ts). */
  probe?: ProbeRunOptions;
  /**
   * The caller's own workload, timed by `auto` in place of the generic probe step (probe.ts
   * `ProbeWorkload`): the trainer passes one training iteration of its config.
   */
  workload?: ProbeWorkload;
  /**
   * Tests only: time the probe on a software adapter too, as if it were hardware, so that the
   * timing path runs where CI has only SwiftShader. Never set by the app or the CLI.
   */
  probeSoftwareAdapter?: boolean;
}

/** Probe timings per adapter and CPU-side backend, for the life of the page or process. */
const probeCache = new Map<string, Promise<ProbeTimings>>();

/** Forgets the probe timings (tests). */
export function clearProbeCache(): void {
  probeCache.clear();
}

async function probeTimings(
  ctx: GpuContext,
  cpu: 'wasm' | 'cpu',
  o: ProbeRunOptions | undefined,
  w: ProbeWorkload | undefined,
): Promise<ProbeTimings> {
  const key = `${describeAdapter(ctx.adapter)}|${cpu}|${w ? w.key : 'probe step'}`;
  let got = probeCache.get(key);
  if (!got) {
    got = import('./probe-run.ts').then((m) => (w ? m.runWorkload(ctx, cpu, w) : m.runProbe(ctx, cpu, o)));
    probeCache.set(key, got);
    got.catch(() => probeCache.delete(key));
  }
  return got;
}

export async function chooseBackend(
  prefer: BackendPreference = 'auto',
  opts: SelectOptions = {},
): Promise<BackendChoice> {
  if (prefer === 'cpu') return { backend: 'cpu', reason: 'CPU backend forced', adapter: null, ctx: null };
  if (prefer === 'wasm') {
    if (!wasmSimdAvailable())
      throw new Error('the wasm backend was forced but WebAssembly SIMD is not available');
    return { backend: 'wasm', reason: 'WebAssembly SIMD backend forced', adapter: null, ctx: null };
  }
  // Loaded only when an adapter is asked for: importing the compute core pulls no WebGPU code.
  const { GpuContext } = await import('./webgpu/device.ts');
  const ctx = await GpuContext.create(opts);
  if (!ctx) {
    if (prefer === 'webgpu') throw new Error('WebGPU was forced but no adapter is available');
    return { ...cpuChoice('no WebGPU adapter'), adapter: null };
  }
  const name = describeAdapter(ctx.adapter);
  if (prefer === 'webgpu')
    return { backend: 'webgpu', reason: `WebGPU forced on ${name}`, adapter: ctx.adapter, ctx };
  if (ctx.adapter.software && !opts.probeSoftwareAdapter) {
    ctx.dispose();
    return {
      ...cpuChoice(`${name} is a software adapter, slower than the CPU backends`),
      adapter: ctx.adapter,
    };
  }
  const cpu = wasmSimdAvailable() ? 'wasm' : 'cpu';
  let timings: ProbeTimings | null = null;
  let error = '';
  try {
    timings = await probeTimings(ctx, cpu, opts.probe, opts.workload);
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  }
  const d = decideBackend(name, cpu, timings, error, opts.workload?.unit);
  const probe = timings ? { probe: timings } : {};
  if (d.backend === 'webgpu') {
    const sampler = timings?.samplerBackend ? { samplerBackend: timings.samplerBackend } : {};
    return { backend: 'webgpu', reason: d.reason, adapter: ctx.adapter, ctx, ...probe, ...sampler };
  }
  ctx.dispose();
  return { backend: d.backend, reason: d.reason, adapter: ctx.adapter, ctx: null, ...probe };
}

/** The CPU-side choice after `why`: WebAssembly SIMD where the engine has it, else TypeScript. */
function cpuChoice(why: string): Omit<BackendChoice, 'adapter'> {
  if (wasmSimdAvailable()) return { backend: 'wasm', reason: `${why}: WebAssembly SIMD backend`, ctx: null };
  return { backend: 'cpu', reason: `${why}, no WebAssembly SIMD: CPU (TypeScript) backend`, ctx: null };
}
