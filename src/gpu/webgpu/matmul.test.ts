/**
 * The tiled matmul (matmul_tiled.wgsl) against the simple one (matmul.wgsl), an f32 reference in the
 * same summation order, and the CPU backend, on the WebGPU adapter the suite finds (SwiftShader on a
 * machine without a GPU): odd sizes, 1×N, N×1, K = 0, a few hundred square, every transpose form,
 * with and without accumulation, and through a model whose rows follow live rows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../../core/rng.ts';
import { CpuModel } from '../cpu/model.ts';
import { Graph } from '../graph.ts';
import { uniform } from '../init.ts';
import { nodeGpu } from '../node-gpu.ts';
import { worstError } from '../testing/cases.ts';
import { GpuContext } from './device.ts';
import { GpuModel } from './model.ts';
import { PipelineCache } from './pipelines.ts';
import { MATMUL_TILES, MATMUL_WIDE_MIN_TILES, matmulCall, val, type MatmulKernel } from './plan-calls.ts';
import { backwardCalls } from './plan-backward.ts';
import { forwardCalls } from './plan-forward.ts';

let ctx: GpuContext;
let cache: PipelineCache;

beforeAll(async () => {
  const c = await GpuContext.create({ gpu: await nodeGpu() });
  if (!c) throw new Error('no WebGPU adapter: install libvulkan1 and chromium (SwiftShader) or run on a GPU');
  ctx = c;
  cache = new PipelineCache(ctx.device);
});

afterAll(() => {
  expect(ctx.errors).toEqual([]);
  ctx.dispose();
});

interface Shape {
  m: number;
  n: number;
  k: number;
  batch: number;
}

/** Runs one kernel on A, B and a starting C (with `extra` pipeline constants); returns C. */
async function run(
  kernel: MatmulKernel,
  s: Shape,
  ta: boolean,
  tb: boolean,
  acc: boolean,
  A: Float32Array,
  B: Float32Array,
  C0: Float32Array,
  extra: Record<string, number> = {},
): Promise<Float32Array> {
  const device = ctx.device;
  const buf = (data: Float32Array | Uint32Array, usage: number): GPUBuffer => {
    const b = device.createBuffer({
      size: Math.max(16, data.byteLength),
      usage: usage | GPUBufferUsage.COPY_DST,
    });
    device.queue.writeBuffer(b, 0, data);
    return b;
  };
  const S = GPUBufferUsage.STORAGE;
  // With K_FIXED the uniform's k is ignored: a wrong one there shows a kernel that still reads it.
  const k = extra.K_FIXED === undefined ? s.k : s.k + 3;
  const u = buf(new Uint32Array([s.m, s.n, k, s.batch]), GPUBufferUsage.UNIFORM);
  const a = buf(A.length ? A : new Float32Array(4), S);
  const b = buf(B.length ? B : new Float32Array(4), S);
  const c = buf(C0, S | GPUBufferUsage.COPY_SRC);
  const read = device.createBuffer({
    size: C0.byteLength,
    usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
  });
  const call = matmulCall([val(0), val(1), val(2)], s.m, s.n, s.k, s.batch, ta, tb, acc);
  const pipeline = cache.get(kernel, { ...call.constants, ...extra });
  const tile = MATMUL_TILES[kernel];
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
  pass.dispatchWorkgroups(Math.ceil(s.n / tile), Math.ceil(s.m / tile), s.batch);
  pass.end();
  enc.copyBufferToBuffer(c, 0, read, 0, C0.byteLength);
  device.queue.submit([enc.finish()]);
  await read.mapAsync(GPUMapMode.READ);
  const out = new Float32Array(read.getMappedRange().slice(0));
  read.unmap();
  for (const x of [u, a, b, c, read]) x.destroy();
  return out;
}

/** f32 reference in the kernels' order: Σ over increasing k from 0, each product and sum rounded, then C + Σ. */
function reference(
  s: Shape,
  ta: boolean,
  tb: boolean,
  acc: boolean,
  A: Float32Array,
  B: Float32Array,
  C0: Float32Array,
) {
  const f = Math.fround;
  const C = new Float32Array(C0.length);
  for (let bt = 0; bt < s.batch; bt++)
    for (let i = 0; i < s.m; i++)
      for (let j = 0; j < s.n; j++) {
        let sum = 0;
        for (let p = 0; p < s.k; p++) {
          const av = A[bt * s.m * s.k + (ta ? p * s.m + i : i * s.k + p)] as number;
          const bv = B[bt * s.k * s.n + (tb ? j * s.k + p : p * s.n + j)] as number;
          sum = f(sum + f(av * bv));
        }
        const o = bt * s.m * s.n + i * s.n + j;
        C[o] = acc ? f((C0[o] as number) + sum) : sum;
      }
  return C;
}

const bits = (x: Float32Array): Uint32Array => new Uint32Array(x.buffer, x.byteOffset, x.length);

describe('tiled and wide matmul: same bits as the simple kernel and an f32 reference in the same order', () => {
  const shapes: Shape[] = [
    { m: 1, n: 200, k: 37, batch: 1 },
    { m: 200, n: 1, k: 37, batch: 1 },
    { m: 65, n: 67, k: 0, batch: 1 },
    { m: 64, n: 64, k: 16, batch: 1 },
    { m: 129, n: 70, k: 33, batch: 2 },
    { m: 71, n: 130, k: 1, batch: 1 },
    { m: 300, n: 300, k: 300, batch: 1 },
    { m: 260, n: 131, k: 19, batch: 2 },
    { m: 128, n: 129, k: 8, batch: 1 },
  ];
  for (const s of shapes) {
    it(`${s.m}x${s.n}x${s.k} batch ${s.batch}, all transpose forms, with and without accumulation`, async () => {
      const rng = createRng(s.m * 7 + s.n * 3 + s.k);
      const A = uniform(rng, s.batch * s.m * s.k, 1);
      const B = uniform(rng, s.batch * s.k * s.n, 1);
      const C0 = uniform(rng, s.batch * s.m * s.n, 1);
      for (const ta of [false, true])
        for (const tb of [false, true])
          for (const acc of [false, true]) {
            const label = `trans=${+ta}${+tb} acc=${+acc}`;
            const tiled = await run('matmul_tiled', s, ta, tb, acc, A, B, C0);
            const wide = await run('matmul_wide', s, ta, tb, acc, A, B, C0);
            const simple = await run('matmul', s, ta, tb, acc, A, B, C0);
            const ref = reference(s, ta, tb, acc, A, B, C0);
            expect(bits(tiled), label).toEqual(bits(simple));
            // K as a pipeline constant (K_FIXED, a variant the device benchmark times): the same loop.
            if (s.k > 0) {
              const fixed = await run('matmul', s, ta, tb, acc, A, B, C0, { K_FIXED: s.k });
              expect(bits(fixed), label).toEqual(bits(ref));
            }
            expect(bits(tiled), label).toEqual(bits(ref));
            expect(bits(wide), label).toEqual(bits(ref));
          }
    });
  }
});

describe('tiled matmul in the plan', () => {
  it('is chosen when the output fills a 64x64 tile, the simple kernel otherwise', () => {
    const k = (m: number, n: number) => matmulCall([val(0), val(1), val(2)], m, n, 8, 1, false, false, false);
    expect(k(64, 64).kernel).toBe('matmul_tiled');
    expect(k(64, 64).wg).toEqual([1, 1, 1]);
    expect(k(300, 65).wg).toEqual([2, 5, 1]);
    expect(k(63, 1000).kernel).toBe('matmul');
    expect(k(1000, 32).kernel).toBe('matmul');
    expect(k(1000, 32).wg).toEqual([1, 32, 1]);
    // 128x128 tiles once the output has MATMUL_WIDE_MIN_TILES of them (2048² has 256).
    expect(MATMUL_WIDE_MIN_TILES).toBe(128);
    expect(k(2048, 2048).kernel).toBe('matmul_wide');
    expect(k(2048, 2048).wg).toEqual([16, 16, 1]);
    expect(k(2048, 1024).kernel).toBe('matmul_wide');
    expect(k(2047, 1024).wg).toEqual([8, 16, 1]);
    expect(k(1024, 1024).kernel).toBe('matmul_tiled');
    expect(k(20000, 127).kernel).toBe('matmul_tiled');
    const g = new Graph();
    const x = g.param('x', [100, 80], new Float32Array(8000));
    const w = g.param('w', [96, 80], new Float32Array(96 * 80));
    const y = g.matmul(x, w, { transB: true });
    expect(forwardCalls(g, g.node(y.id)).map((c) => c.kernel)).toEqual(['matmul_tiled']);
    // dX = dY·W is 100x80, dW = dYᵀ·X is 96x80: both tiled.
    expect(backwardCalls(g, g.node(y.id)).map((c) => c.kernel)).toEqual(['matmul_tiled', 'matmul_tiled']);
  });

  it('a model of tiled products matches the CPU backend; its rows follow live rows, padding is never read', async () => {
    const R = 320;
    const rng = createRng(31);
    const g = new Graph();
    const x = g.input('x', [R, 72]);
    const w1 = g.param('w1', [72, 96], uniform(rng, 72 * 96, 0.3));
    const w2 = g.param('w2', [80, 96], uniform(rng, 80 * 96, 0.3));
    const h = g.biasAct(g.matmul(x, w1), null, 'tanh');
    const y = g.matmul(h, w2, { transB: true });
    const loss = g.sum(g.sum(g.mul(y, g.input('wt', [R, 80]))));
    for (const live of [R, 200, 37, 0]) {
      const gpu = new GpuModel(ctx, g, { loss });
      const cpu = new CpuModel(g, { loss });
      const r = createRng(live + 1);
      const xs = Float32Array.from({ length: R * 72 }, (_, i) => (i < live * 72 ? r.next() - 0.5 : NaN));
      const wt = Float32Array.from({ length: R * 80 }, (_, i) => (i < live * 80 ? r.next() - 0.5 : NaN));
      for (const m of [gpu, cpu]) {
        m.setInput('x', xs, live);
        m.setInput('wt', wt, live);
      }
      const [rg, rc] = [await gpu.step(), await cpu.step()];
      expect(Number.isFinite(rg.loss), `${live} live`).toBe(true);
      expect(Math.abs(rg.loss - rc.loss)).toBeLessThanOrEqual(1e-4 * Math.max(1, Math.abs(rc.loss)));
      const a = (await gpu.read(y)).subarray(0, live * 80);
      const b = (await cpu.read(y)).subarray(0, live * 80);
      expect(worstError(a, b, 1e-5, 1e-4), `${live} live`).toBeLessThanOrEqual(1);
      for (const p of [w1, w2]) {
        const [gg, gc] = [await gpu.readGrad(p), await cpu.readGrad(p)];
        expect(worstError(gg, gc, 1e-4, 1e-3), `grad ${p.id}, ${live} live`).toBeLessThanOrEqual(1);
        if (live === 0) expect(gg.every((v) => v === 0)).toBe(true);
      }
      gpu.dispose();
    }
  });

  it('a model with a wide product matches the CPU backend; its rows follow live rows', async () => {
    const R = 2048;
    const rng = createRng(41);
    const g = new Graph();
    const x = g.input('x', [R, 8]);
    const w = g.param('w', [8, 1024], uniform(rng, 8 * 1024, 0.3));
    const y = g.matmul(x, w);
    const loss = g.sum(g.sum(g.mul(y, g.input('wt', [R, 1024]))));
    expect(forwardCalls(g, g.node(y.id)).map((c) => c.kernel)).toEqual(['matmul_wide']);
    for (const live of [R, 1100]) {
      const gpu = new GpuModel(ctx, g, { loss });
      const cpu = new CpuModel(g, { loss });
      const r = createRng(live + 5);
      const xs = Float32Array.from({ length: R * 8 }, (_, i) => (i < live * 8 ? r.next() - 0.5 : NaN));
      const wt = Float32Array.from({ length: R * 1024 }, (_, i) => (i < live * 1024 ? r.next() - 0.5 : NaN));
      for (const m of [gpu, cpu]) {
        m.setInput('x', xs, live);
        m.setInput('wt', wt, live);
      }
      const [rg, rc] = [await gpu.step(), await cpu.step()];
      expect(Number.isFinite(rg.loss), `${live} live`).toBe(true);
      expect(Math.abs(rg.loss - rc.loss)).toBeLessThanOrEqual(1e-4 * Math.max(1, Math.abs(rc.loss)));
      // The CPU backend sums these products in another order: equal within rounding, not bit for bit.
      const a = (await gpu.read(y)).subarray(0, live * 1024);
      const b = (await cpu.read(y)).subarray(0, live * 1024);
      expect(worstError(a, b, 1e-5, 1e-4), `${live} live`).toBeLessThanOrEqual(1);
      const [gg, gc] = [await gpu.readGrad(w), await cpu.readGrad(w)];
      expect(worstError(gg, gc, 1e-4, 1e-3), `grad, ${live} live`).toBeLessThanOrEqual(1);
      gpu.dispose();
    }
  });

  it('a model of tiled products recovers from device.destroy() and continues like a model that kept its device', async () => {
    const gpuObj = await nodeGpu();
    const lost = await GpuContext.create({ gpu: gpuObj });
    const ref = await GpuContext.create({ gpu: gpuObj });
    if (!lost || !ref) throw new Error('no adapter');
    const rng = createRng(8);
    const g = new Graph();
    const x = g.input('x', [96, 80]);
    const w = g.param('w', [80, 72], uniform(rng, 80 * 72, 0.3));
    const y = g.matmul(x, w);
    const loss = g.sum(g.sum(g.unary('tanh', y)));
    expect(forwardCalls(g, g.node(y.id)).map((c) => c.kernel)).toEqual(['matmul_tiled']);
    const opt = { lr: 0.01, weightDecay: 0.01, clipNorm: 0.5 };
    const [a, b] = [lost, ref].map((c) => new GpuModel(c, g, { loss, optimizer: opt, hostSyncEvery: 2 })) as [
      GpuModel,
      GpuModel,
    ];
    const steps = async (m: GpuModel, from: number, count: number): Promise<number[]> => {
      const out: number[] = [];
      for (let s = from; s < from + count; s++) {
        m.setInput('x', uniform(createRng(100 + s), 96 * 80, 1));
        out.push((await m.step()).loss);
      }
      return out;
    };
    expect(await steps(a, 0, 2)).toEqual(await steps(b, 0, 2));
    const gone = lost.device.lost;
    lost.device.destroy();
    await gone;
    const [la, lb] = [await steps(a, 2, 3), await steps(b, 2, 3)];
    expect(a.recoveries).toBe(1);
    expect(la).toEqual(lb);
    a.dispose();
    b.dispose();
    lost.dispose();
    ref.dispose();
  });
});
