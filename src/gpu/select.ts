/**
 * Backend choice. `auto` takes WebGPU only on a hardware adapter: a software adapter (SwiftShader,
 * llvmpipe) runs these kernels slower than the plain TypeScript CPU backend (measured in
 * docs/benchmarks.md), so it falls back to the CPU and says why.
 */
import { describeAdapter } from './adapter.ts';
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
  // Loaded only when an adapter is asked for: importing the compute core pulls no WebGPU code.
  const { GpuContext } = await import('./webgpu/device.ts');
  const ctx = await GpuContext.create(opts);
  if (!ctx) {
    if (prefer === 'webgpu') throw new Error('WebGPU was forced but no adapter is available');
    return { backend: 'cpu', reason: 'no WebGPU adapter: CPU backend', adapter: null, ctx: null };
  }
  const name = describeAdapter(ctx.adapter);
  if (prefer === 'webgpu')
    return { backend: 'webgpu', reason: `WebGPU forced on ${name}`, adapter: ctx.adapter, ctx };
  if (ctx.adapter.software) {
    ctx.dispose();
    return {
      backend: 'cpu',
      reason: `${name} is a software adapter, slower than the CPU backend: CPU backend`,
      adapter: ctx.adapter,
      ctx: null,
    };
  }
  return { backend: 'webgpu', reason: `hardware adapter ${name}: WebGPU backend`, adapter: ctx.adapter, ctx };
}
