/**
 * The matmul kernels one against another on the device, dispatched directly (no model): each
 * shape below runs on matmul.wgsl (32x32 per workgroup), matmul_tiled.wgsl (64x64 tiles) and
 * matmul_wide.wgsl (128x128 tiles), `REPEAT` dispatches per submission up to onSubmittedWorkDone,
 * median of the repetitions, TFLOP/s at 2·M·N·K per product. The shapes are the square products of
 * the matmul row and the products of the GPT-2-style step at 3.5 M parameters (16 × 256 tokens,
 * d 256): forward (tokens × d) · (d × 3d), (tokens × d) · (d × 4d), (tokens × 4d) · (4d × d), and a
 * weight gradient (d × tokens)ᵀ-layout · (tokens × 3d). matmulCall's choice between the kernels
 * follows from these figures (docs/compute-core.md).
 */
import { createRng } from '../../src/core/rng.ts';
import { uniform } from '../../src/gpu/init.ts';
import type { KernelName } from '../../src/gpu/webgpu/kernels.ts';
import type { PipelineCache } from '../../src/gpu/webgpu/pipelines.ts';
import { matmulCall, val } from '../../src/gpu/webgpu/plan-calls.ts';

interface Shape {
  name: string;
  m: number;
  n: number;
  k: number;
  transA: boolean;
  transB: boolean;
}

const FULL: Shape[] = [
  { name: 'square 2048', m: 2048, n: 2048, k: 2048, transA: false, transB: false },
  { name: 'square 4096', m: 4096, n: 4096, k: 4096, transA: false, transB: false },
  { name: 'gpt qkv 4096x768x256', m: 4096, n: 768, k: 256, transA: false, transB: false },
  { name: 'gpt mlp up 4096x1024x256', m: 4096, n: 1024, k: 256, transA: false, transB: false },
  { name: 'gpt mlp down 4096x256x1024', m: 4096, n: 256, k: 1024, transA: false, transB: false },
  { name: 'gpt dW 256x768x4096 (A^T)', m: 256, n: 768, k: 4096, transA: true, transB: false },
  { name: 'gpt dX 4096x256x768 (B^T)', m: 4096, n: 256, k: 768, transA: false, transB: true },
];
const QUICK: Shape[] = [
  { name: 'square 256', m: 256, n: 256, k: 256, transA: false, transB: false },
  { name: 'A^T 160x130x70', m: 160, n: 130, k: 70, transA: true, transB: false },
];
const KERNELS: KernelName[] = ['matmul', 'matmul_tiled', 'matmul_wide'];
const TILE: Record<string, number> = { matmul: 32, matmul_tiled: 64, matmul_wide: 128 };

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** One row per shape: ms and TFLOP/s per kernel, and the kernel matmulCall picks for it. */
export async function matmulKernelRows(
  device: GPUDevice,
  cache: PipelineCache,
  quick: boolean,
  left: () => boolean,
): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  const REPEAT = quick ? 1 : 5;
  for (const s of quick ? QUICK : FULL) {
    if (!left()) {
      rows.push({ shape: s.name, skipped: 'past the run bound' });
      continue;
    }
    const rng = createRng(s.m + s.n + s.k);
    const buf = (data: Float32Array | Uint32Array, usage: number): GPUBuffer => {
      const b = device.createBuffer({ size: data.byteLength, usage: usage | GPUBufferUsage.COPY_DST });
      device.queue.writeBuffer(b, 0, data);
      return b;
    };
    const u = buf(new Uint32Array([s.m, s.n, s.k, 1]), GPUBufferUsage.UNIFORM);
    const a = buf(uniform(rng, s.m * s.k, 1), GPUBufferUsage.STORAGE);
    const b = buf(uniform(rng, s.k * s.n, 1), GPUBufferUsage.STORAGE);
    const c = buf(new Float32Array(s.m * s.n), GPUBufferUsage.STORAGE);
    const consts = { TRANS_A: s.transA ? 1 : 0, TRANS_B: s.transB ? 1 : 0, ACCUMULATE: 0 };
    const once = async (kernel: KernelName): Promise<number> => {
      const pipeline = cache.get(kernel, consts);
      const tile = TILE[kernel] as number;
      const group = device.createBindGroup({
        layout: pipeline.getBindGroupLayout(0),
        entries: [u, a, b, c].map((buffer, binding) => ({ binding, resource: { buffer } })),
      });
      const enc = device.createCommandEncoder();
      for (let r = 0; r < REPEAT; r++) {
        const pass = enc.beginComputePass();
        pass.setPipeline(pipeline);
        pass.setBindGroup(0, group);
        pass.dispatchWorkgroups(Math.ceil(s.n / tile), Math.ceil(s.m / tile), 1);
        pass.end();
      }
      const t0 = performance.now();
      device.queue.submit([enc.finish()]);
      await device.queue.onSubmittedWorkDone();
      return (performance.now() - t0) / REPEAT;
    };
    const times = new Map<KernelName, number[]>(KERNELS.map((k) => [k, []]));
    for (const k of KERNELS) await once(k);
    for (let r = 0; r < (quick ? 1 : 5); r++) for (const k of KERNELS) times.get(k)?.push(await once(k));
    const flop = 2 * s.m * s.n * s.k;
    const row: Record<string, unknown> = {
      shape: s.name,
      picked: matmulCall([val(0), val(1), val(2)], s.m, s.n, s.k, 1, s.transA, s.transB, false).kernel,
    };
    for (const k of KERNELS) {
      const ms = median(times.get(k) ?? []);
      row[`${k}_ms`] = ms;
      row[`${k}_tflops`] = flop / (ms * 1e-3) / 1e12;
    }
    rows.push(row);
    console.error(JSON.stringify(row));
    for (const x of [u, a, b, c]) x.destroy();
  }
  return rows;
}
