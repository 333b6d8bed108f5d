/**
 * Runs the kernel calls of one matrix product on a device and holds the result to the CPU at the
 * tolerance of products summed in another order than increasing k (split-K, matmul_lanes.wgsl):
 * |gpu − cpu| ≤ 2⁻²²·√K·Σ_k|a·b| + 2⁻²³·|C₀| (docs/compute-core.md). Shared by splitk.test.ts and
 * lanes.test.ts.
 */
import type { PipelineCache } from '../webgpu/pipelines.ts';
import type { Call } from '../webgpu/plan-calls.ts';
import { runOnBuffers } from '../webgpu/run-calls.ts';

export interface Shape {
  m: number;
  n: number;
  k: number;
}

/**
 * Runs the calls of one product (refs val(0) = A, val(1) = B, val(2) = C, a temp = the chunk
 * scratch) with their own uniforms and workgroups; returns C.
 */
export async function runCalls(
  device: GPUDevice,
  cache: PipelineCache,
  calls: Call[],
  A: Float32Array,
  B: Float32Array,
  C0: Float32Array,
): Promise<Float32Array> {
  // Scratch starts as NaN, so a read of a word no call wrote shows in C.
  return new Float32Array(await runOnBuffers(device, cache, calls, [A, B, C0], 2, { tempFill: NaN }));
}

/** Σ_k |op(A)[i,k]·op(B)[k,j]| per output element (the scale of the rounding errors). */
export function absSums(s: Shape, ta: boolean, tb: boolean, A: Float32Array, B: Float32Array): Float64Array {
  const out = new Float64Array(s.m * s.n);
  for (let i = 0; i < s.m; i++)
    for (let p = 0; p < s.k; p++) {
      const av = Math.abs(A[ta ? p * s.m + i : i * s.k + p] as number);
      if (av === 0) continue;
      for (let j = 0; j < s.n; j++)
        out[i * s.n + j] =
          (out[i * s.n + j] as number) + av * Math.abs(B[tb ? j * s.k + p : p * s.n + j] as number);
    }
  return out;
}

/** The stated tolerance: the largest |gpu − cpu| over 2⁻²²·√K·Σ|a·b| + 2⁻²³·|C₀| (≤ 1 passes). */
export function worstProduct(
  s: Shape,
  gpu: Float32Array,
  cpu: Float32Array,
  sums: Float64Array,
  C0: Float32Array | null,
): number {
  let worst = 0;
  for (let o = 0; o < gpu.length; o++) {
    const tol =
      2 ** -22 * Math.sqrt(s.k) * (sums[o] as number) + (C0 ? 2 ** -23 * Math.abs(C0[o] as number) : 0);
    const d = Math.abs((gpu[o] as number) - (cpu[o] as number));
    const e = d === 0 ? 0 : d / tol;
    if (!(e <= worst)) worst = Number.isNaN(e) ? Infinity : e;
  }
  return worst;
}
