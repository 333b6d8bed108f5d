/**
 * Backend choice. `auto` takes WebGPU only on a hardware adapter: a software adapter (SwiftShader,
 * llvmpipe) runs these kernels slower than the CPU backends (measured in docs/benchmarks.md), so it
 * falls back to the CPU and says why: the WebAssembly SIMD kernels where the engine has SIMD, else
 * plain TypeScript.
 */
import { describeAdapter } from './adapter.ts';
import { wasmSimdAvailable } from './wasm/simd.ts';
import type { BackendKind } from './model.ts';
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
}

export async function chooseBackend(
  prefer: BackendPreference = 'auto',
  opts: AcquireOptions = {},
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
  if (ctx.adapter.software) {
    ctx.dispose();
    return {
      ...cpuChoice(`${name} is a software adapter, slower than the CPU backends`),
      adapter: ctx.adapter,
    };
  }
  return { backend: 'webgpu', reason: `hardware adapter ${name}: WebGPU backend`, adapter: ctx.adapter, ctx };
}

/** The CPU-side choice after `why`: WebAssembly SIMD where the engine has it, else TypeScript. */
function cpuChoice(why: string): Omit<BackendChoice, 'adapter'> {
  if (wasmSimdAvailable()) return { backend: 'wasm', reason: `${why}: WebAssembly SIMD backend`, ctx: null };
  return { backend: 'cpu', reason: `${why}, no WebAssembly SIMD: CPU (TypeScript) backend`, ctx: null };
}
