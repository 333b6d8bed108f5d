/**
 * The trainer's small kernels one at a time, timed two ways, to tell a kernel's own cost from what
 * the per-dispatch profile adds. The update profile on an H200 (docs/benchmarks.md) put every small
 * product at 55–75 µs whatever its size (64×12×64 as much as 1024×64×64), a 64-row column sum at
 * 58 µs and a 1,024-float sum at 140 µs, while a 64-long serial sum with a constant trip count cost
 * 3.8 µs per dispatch in a chain (floor.ts). Per case:
 * - `chain_us`: `N` dispatches of the call in one compute pass (each waits for the last: they write
 *   the same buffer), wall time per dispatch up to onSubmittedWorkDone, and `chain_gpu_us` the
 *   GPU span of that pass per dispatch (timestamp queries);
 * - `alone_gpu_us`: each dispatch in its own timestamped pass, as the profile measures
 *   (profile.ts `profileTimestamps`), median.
 * The cases are calls the trainer's update makes (shapes from that profile), on the compute core's
 * own pipelines (PipelineCache: the same WGSL and constants), plus two synthetic 64-long serial
 * sums per invocation that differ only in where the trip count comes from: a constant, or a
 * uniform (as every kernel here reads its sizes), and the two small products again with K as a
 * pipeline constant (matmul.wgsl `K_FIXED`, not planned yet: these rows decide), and the two sums
 * again on reduce_wide.wgsl (one workgroup per row), which the plan now takes for them, and three of
 * the products on matmul_lanes.wgsl (K split over the invocations of a 4x4 block), which the plan
 * takes for them on a hardware adapter (plan-calls.ts lanesFit). Where the device has subgroups,
 * the lanes products and the wide sums again on their subgroup twins (kernels.ts SUBGROUP_TWINS,
 * `… on subgroups`): the same trees with shuffles below the subgroup size.
 */
import { SUBGROUP_TWINS, type KernelName } from '../../src/gpu/webgpu/kernels.ts';
import type { PipelineCache } from '../../src/gpu/webgpu/pipelines.ts';
import { lanesOf, lanesWorkgroups } from '../../src/gpu/webgpu/plan-calls.ts';

interface Case {
  name: string;
  kernel: KernelName | { wgsl: string };
  constants: Record<string, number>;
  /** Uniform words (u32). */
  uniform: number[];
  /** Floats of each storage binding after the uniform, the last one written. */
  floats: number[];
  wg: [number, number, number];
}

const serial = (bound: string): string => `
struct P { n: u32, cols: u32 }
@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3u) {
  if (p.cols == 0u) {
    return;
  }
  var s = 0.0;
  for (var r = 0u; r < ${bound}; r++) {
    s += x[r * 64u + g.x];
  }
  y[g.x] = y[g.x] + s;
}`;

/** A 64×n product with K = 64 (matmul.wgsl), K from the uniform and then as a pipeline constant. */
const smallProduct = (n: number): Case[] =>
  ([{}, { K_FIXED: 64 }] as Record<string, number>[]).map((constants) => ({
    name: `matmul 64x${n}, K 64${'K_FIXED' in constants ? ' as a constant' : ''}`,
    kernel: 'matmul',
    constants,
    uniform: [64, n, 64, 1],
    floats: [64 * 64, 64 * n, 64 * n],
    wg: [Math.ceil(n / 32), 2, 1],
  }));

/** The same products on matmul_lanes.wgsl (16 lanes per 4x4 block for K = 64; 64 for K = 768). */
const lanesProduct = (m: number, n: number, k: number, transA: boolean): Case => {
  const LK = lanesOf(k);
  return {
    name: `matmul_lanes ${m}x${n}, K ${k} (${LK} lanes)`,
    kernel: 'matmul_lanes',
    constants: { LK, TRANS_A: transA ? 1 : 0 },
    uniform: [m, n, k, 1],
    floats: [m * k, k * n, m * n],
    wg: [lanesWorkgroups(m, n, LK), 1, 1],
  };
};

/** A sum of one row of `cols` floats. */
const sum = (kernel: KernelName, cols: number): Case => ({
  name: `${kernel} 1 row x ${cols}`,
  kernel,
  constants: { OP: 0 },
  uniform: [1, cols],
  floats: [cols, 1],
  wg: [1, 1, 1],
});

const CASES: Case[] = [
  {
    name: 'serial sum 64, constant trip count',
    kernel: { wgsl: serial('64u') },
    constants: {},
    uniform: [64, 64],
    floats: [64 * 64, 64],
    wg: [1, 1, 1],
  },
  {
    name: 'serial sum 64, trip count from a uniform',
    kernel: { wgsl: serial('p.n') },
    constants: {},
    uniform: [64, 64],
    floats: [64 * 64, 64],
    wg: [1, 1, 1],
  },
  ...smallProduct(12),
  ...smallProduct(64),
  {
    name: 'matmul_tiled 1024x64, K 64',
    kernel: 'matmul_tiled',
    constants: {},
    uniform: [1024, 64, 64, 1],
    floats: [1024 * 64, 64 * 64, 1024 * 64],
    wg: [1, 16, 1],
  },
  {
    name: 'split-K 18x32, K 768 (12 chunks of 64)',
    kernel: 'matmul',
    constants: { SPLIT_K: 1, TRANS_A: 1 },
    uniform: [18, 32, 768, 64],
    floats: [768 * 18, 768 * 32, 12 * 18 * 32],
    wg: [1, 1, 12],
  },
  lanesProduct(64, 12, 64, false),
  lanesProduct(64, 64, 64, false),
  // The split-K product above in one pass.
  lanesProduct(18, 32, 768, true),
  {
    name: 'col_rows 64 rows x 12',
    kernel: 'col_rows',
    constants: { ACCUMULATE: 0 },
    uniform: [64, 12],
    floats: [64 * 12, 12],
    wg: [1, 1, 1],
  },
  ...(['reduce', 'reduce_wide'] as const).flatMap((k) => [sum(k, 1024), sum(k, 12288)]),
];

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

export async function smallKernelRows(
  device: GPUDevice,
  cache: PipelineCache,
  quick: boolean,
): Promise<Record<string, unknown>[]> {
  const N = quick ? 32 : 500;
  const reps = quick ? 2 : 7;
  const stamps = device.features.has('timestamp-query');
  const qs = stamps ? device.createQuerySet({ type: 'timestamp', count: 2 * N }) : null;
  const resolve = device.createBuffer({
    size: 16 * N,
    usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC,
  });
  const read = device.createBuffer({
    size: 16 * N,
    usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
  });
  const rows: Record<string, unknown>[] = [];
  // Each kernel with a subgroup twin again on the twin, where the device has subgroups.
  const twins: Partial<Record<KernelName, KernelName>> = SUBGROUP_TWINS;
  const cases = CASES.flatMap((c) => {
    const twin = typeof c.kernel === 'string' ? twins[c.kernel] : undefined;
    return twin && device.features.has('subgroups')
      ? [c, { ...c, name: `${c.name} on subgroups`, kernel: twin }]
      : [c];
  });
  for (const c of cases) {
    const pipeline =
      typeof c.kernel === 'string'
        ? cache.get(c.kernel, c.constants)
        : device.createComputePipeline({
            layout: 'auto',
            compute: { module: device.createShaderModule({ code: c.kernel.wgsl }), entryPoint: 'main' },
          });
    const made: GPUBuffer[] = [];
    const buffer = (bytes: number, usage: number): GPUBuffer => {
      const b = device.createBuffer({ size: Math.max(16, bytes), usage: usage | GPUBufferUsage.COPY_DST });
      made.push(b);
      return b;
    };
    const u = buffer(16 * Math.ceil(c.uniform.length / 4), GPUBufferUsage.UNIFORM);
    device.queue.writeBuffer(
      u,
      0,
      new Uint32Array([...c.uniform, 0, 0, 0].slice(0, 4 * Math.ceil(c.uniform.length / 4))),
    );
    const storage = c.floats.map((f) => {
      const b = buffer(4 * f, GPUBufferUsage.STORAGE);
      device.queue.writeBuffer(
        b,
        0,
        Float32Array.from({ length: f }, (_, i) => ((i % 7) - 3) * 0.01),
      );
      return b;
    });
    const group = device.createBindGroup({
      layout: pipeline.getBindGroupLayout(0),
      entries: [u, ...storage].map((b, binding) => ({ binding, resource: { buffer: b } })),
    });
    // alone: each dispatch its own pass with timestamps; chain: one pass, optionally timestamped.
    const once = async (mode: 'chain' | 'alone', timed: boolean): Promise<number> => {
      const enc = device.createCommandEncoder();
      const passes = mode === 'alone' ? N : 1;
      for (let p = 0; p < passes; p++) {
        const pass = enc.beginComputePass(
          timed && qs
            ? {
                timestampWrites: {
                  querySet: qs,
                  beginningOfPassWriteIndex: 2 * p,
                  endOfPassWriteIndex: 2 * p + 1,
                },
              }
            : {},
        );
        pass.setPipeline(pipeline);
        pass.setBindGroup(0, group);
        for (let i = 0; i < (mode === 'alone' ? 1 : N); i++) pass.dispatchWorkgroups(...c.wg);
        pass.end();
      }
      if (timed && qs) {
        enc.resolveQuerySet(qs, 0, 2 * passes, resolve, 0);
        enc.copyBufferToBuffer(resolve, 0, read, 0, 16 * passes);
      }
      const t0 = performance.now();
      device.queue.submit([enc.finish()]);
      if (timed && qs) {
        await read.mapAsync(GPUMapMode.READ, 0, 16 * passes);
        const t = new BigUint64Array(read.getMappedRange(0, 16 * passes).slice(0));
        read.unmap();
        const spans = Array.from(
          { length: passes },
          (_, p) => Number((t[2 * p + 1] as bigint) - (t[2 * p] as bigint)) / 1e3,
        );
        return mode === 'alone' ? median(spans) : (spans[0] as number) / N;
      }
      await device.queue.onSubmittedWorkDone();
      return ((performance.now() - t0) * 1000) / N;
    };
    await once('chain', false);
    const chain: number[] = [];
    for (let r = 0; r < reps; r++) chain.push(await once('chain', false));
    const row: Record<string, unknown> = { case: c.name, dispatches: N, chain_us: median(chain) };
    if (stamps) {
      const gpu: number[] = [];
      const alone: number[] = [];
      for (let r = 0; r < reps; r++) {
        gpu.push(await once('chain', true));
        alone.push(await once('alone', true));
      }
      row.chain_gpu_us = median(gpu);
      row.alone_gpu_us = median(alone);
    }
    rows.push(row);
    console.error(JSON.stringify(row));
    for (const b of made) b.destroy();
  }
  qs?.destroy();
  resolve.destroy();
  read.destroy();
  return rows;
}
