/**
 * `npm run bench:gpu-matmul`: the simple matmul kernel (matmul.wgsl) against the tiled one
 * (matmul_tiled.wgsl) on the adapter Node finds (Dawn; SwiftShader without a GPU), square N³ for
 * N = 256, 512, 1024 (`--quick`: 256), both in the same run, alternating repetitions. Times one
 * submission of one dispatch up to onSubmittedWorkDone (no read-back); reports the median and
 * GFLOP/s (2N³ per product). Writes bench/results/gpu-matmul.json and its docs/benchmarks.md section.
 */
import { allowWgslImports } from '../src/cli/wgsl-loader.ts';
import { createRng } from '../src/core/rng.ts';
import { uniform } from '../src/gpu/init.ts';
import { nodeGpu } from '../src/gpu/node-gpu.ts';
import { GpuContext, describeAdapter } from '../src/gpu/webgpu/device.ts';
import { MATMUL_TILE } from '../src/gpu/webgpu/plan-calls.ts';
import { loadAverage, machine, writeDocSection, writeResults } from './report.ts';

allowWgslImports();
// The kernels' .wgsl sources load through the hook just registered.
const { PipelineCache } = await import('../src/gpu/webgpu/pipelines.ts');

const quick = process.argv.includes('--quick');
const SIZES = quick ? [256] : [256, 512, 1024];
const KERNELS = ['matmul', 'matmul_tiled'] as const;

const ctx = await GpuContext.create({ gpu: await nodeGpu() });
if (!ctx) throw new Error('no WebGPU adapter');
const device = ctx.device;
const cache = new PipelineCache(device);
const adapter = describeAdapter(ctx.adapter);
console.log(`adapter: ${adapter}`);

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};

const rows: Record<string, number | string>[] = [];
for (const N of SIZES) {
  const rng = createRng(N);
  const buf = (data: Float32Array | Uint32Array, usage: number): GPUBuffer => {
    const b = device.createBuffer({ size: data.byteLength, usage: usage | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(b, 0, data);
    return b;
  };
  const u = buf(new Uint32Array([N, N, N, 1]), GPUBufferUsage.UNIFORM);
  const a = buf(uniform(rng, N * N, 1), GPUBufferUsage.STORAGE);
  const b = buf(uniform(rng, N * N, 1), GPUBufferUsage.STORAGE);
  const c = buf(new Float32Array(N * N), GPUBufferUsage.STORAGE);
  const once = async (kernel: (typeof KERNELS)[number]): Promise<number> => {
    const pipeline = cache.get(kernel, { TRANS_A: 0, TRANS_B: 0, ACCUMULATE: 0 });
    const tile = kernel === 'matmul' ? 32 : MATMUL_TILE;
    const enc = device.createCommandEncoder();
    const pass = enc.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(
      0,
      device.createBindGroup({
        layout: pipeline.getBindGroupLayout(0),
        entries: [u, a, b, c].map((buffer, binding) => ({ binding, resource: { buffer } })),
      }),
    );
    pass.dispatchWorkgroups(Math.ceil(N / tile), Math.ceil(N / tile), 1);
    pass.end();
    const t0 = performance.now();
    device.queue.submit([enc.finish()]);
    await device.queue.onSubmittedWorkDone();
    return performance.now() - t0;
  };
  const times: Record<string, number[]> = { matmul: [], matmul_tiled: [] };
  for (const k of KERNELS) await once(k); // compile and warm up
  const reps = N >= 1024 ? 3 : 7;
  for (let r = 0; r < reps; r++) for (const k of KERNELS) times[k]?.push(await once(k));
  const ms = KERNELS.map((k) => median(times[k] ?? []));
  const [simple, tiled] = ms as [number, number];
  const row = {
    n: N,
    simple_ms: simple,
    tiled_ms: tiled,
    simple_gflops: (2 * N ** 3) / (simple * 1e-3) / 1e9,
    tiled_gflops: (2 * N ** 3) / (tiled * 1e-3) / 1e9,
    speedup: simple / tiled,
  };
  console.log(JSON.stringify(row));
  rows.push(row);
  for (const x of [u, a, b, c]) x.destroy();
}
ctx.dispose();

writeResults('gpu-matmul', { adapter, machine: machine(), load: loadAverage(), rows });
const f = (x: number, d = 1): string => x.toFixed(d);
writeDocSection(
  'WebGPU matmul: simple vs tiled kernel',
  [
    `Command: \`npm run bench:gpu-matmul\` (Node, Dawn on ${adapter}; ${machine().cores} shared CPU`,
    `cores, load average ${loadAverage().join(' / ')} at the end of the run). One N³ product`,
    '(no transposes) per submission, waited with onSubmittedWorkDone, no',
    'read-back; medians of alternating repetitions of both kernels in the same run. matmul.wgsl: 32x32',
    'per workgroup of 8x8, 4x4 per invocation, no workgroup memory; matmul_tiled.wgsl: 64x64 tiles of',
    'op(A) and op(B) staged in workgroup memory per K-tile of 16, 16x16 invocations, 4x4 per',
    'invocation. Both give the same bits (src/gpu/webgpu/matmul.test.ts). The plan uses the tiled',
    'kernel when the output is at least 64x64 (src/gpu/webgpu/plan-calls.ts `matmulCall`).',
    '',
    '| N | simple (ms) | tiled (ms) | simple GFLOP/s | tiled GFLOP/s | tiled speed-up |',
    '|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.n} | ${f(r.simple_ms as number)} | ${f(r.tiled_ms as number)} | ${f(r.simple_gflops as number, 2)} | ` +
        `${f(r.tiled_gflops as number, 2)} | ${f(r.speedup as number, 2)}× |`,
    ),
    '',
    'SwiftShader runs the shaders on the CPU (each workgroup barrier is a coroutine switch): these',
    'figures say nothing about a real GPU, where the tiled kernel is the one meant to approach the',
    "card's limits. The real-GPU figure is the matmul 2048³ / 4096³ row of `npm run bench:device`,",
    'which goes through the plan and so uses the tiled kernel.',
    '',
  ].join('\n'),
);
