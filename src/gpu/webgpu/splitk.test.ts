/**
 * Split-K products (matmul.wgsl with SPLIT_K = 1 + matmul_splitk_sum.wgsl, planned by plan-calls.ts
 * matmulCalls) against the CPU backend's matmul on the WebGPU adapter the suite finds (SwiftShader
 * on a machine without a GPU): odd sizes, K in the thousands and about 20,000, every transpose
 * form, with and without accumulation, live K that shrinks to one chunk or to zero, and a model
 * whose weight gradients sum over live rows. Tolerance (docs/compute-core.md): |gpu − cpu| ≤
 * 2⁻²²·√K·Σ_k|a·b| + 2⁻²³·|C₀|.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../../core/rng.ts';
import { CpuModel } from '../cpu/model.ts';
import { matmul as cpuMatmul } from '../cpu/ops-matmul.ts';
import { Graph } from '../graph.ts';
import { uniform } from '../init.ts';
import { nodeGpu } from '../node-gpu.ts';
import { worstError } from '../testing/cases.ts';
import { absSums, runCalls, worstProduct, type Shape } from '../testing/products.ts';
import { GpuContext } from './device.ts';
import { liveCall, liveRows } from './live.ts';
import { GpuModel } from './model.ts';
import { PipelineCache } from './pipelines.ts';
import { backwardCalls } from './plan-backward.ts';
import { forwardCalls } from './plan-forward.ts';
import {
  matmulCall,
  matmulCalls,
  SPLITK_CHUNK,
  SPLITK_TILED_MAX_WGS,
  splitKTiled,
  val,
  type Call,
} from './plan-calls.ts';

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

const bits = (x: Float32Array): Uint32Array => new Uint32Array(x.buffer, x.byteOffset, x.length);

describe('split-K products match the CPU backend at the stated tolerance', () => {
  const shapes: Shape[] = [
    { m: 5, n: 7, k: 257 },
    { m: 33, n: 17, k: 1000 },
    { m: 32, n: 32, k: 3072 },
    { m: 18, n: 150, k: 5003 },
    { m: 64, n: 1, k: 20000 },
    { m: 37, n: 29, k: 20001 },
  ];
  for (const s of shapes) {
    it(`${s.m}x${s.n}, K = ${s.k}: all transpose forms, with and without accumulation`, async () => {
      const rng = createRng(s.m * 7 + s.n * 3 + s.k);
      // Features of a policy network are often ≥ 0 (relu, one-hot): the sums then grow with K.
      const A = Float32Array.from(uniform(rng, s.m * s.k, 1), (v, i) => (i % 3 === 0 ? Math.abs(v) : v));
      const B = uniform(rng, s.k * s.n, 1);
      const C0 = uniform(rng, s.m * s.n, 1);
      let worst = 0;
      for (const ta of [false, true])
        for (const tb of [false, true]) {
          const sums = absSums(s, ta, tb, A, B);
          for (const acc of [false, true]) {
            const calls = matmulCalls([val(0), val(1), val(2)], s.m, s.n, s.k, 1, ta, tb, acc, 0, 'dB');
            expect(calls.map((c) => c.kernel)).toEqual(['matmul_splitk', 'matmul_splitk_sum']);
            expect(calls[0]?.wg[2]).toBe(Math.ceil(s.k / SPLITK_CHUNK));
            const gpu = await runCalls(ctx.device, cache, calls, A, B, C0);
            const cpu = C0.slice();
            cpuMatmul(A, B, cpu, 1, s.m, s.n, s.k, ta, tb, acc);
            const e = worstProduct(s, gpu, cpu, sums, acc ? C0 : null);
            expect(e, `trans=${+ta}${+tb} acc=${+acc}`).toBeLessThanOrEqual(1);
            worst = Math.max(worst, e);
          }
        }
      console.log(`[split-K] ${s.m}x${s.n}x${s.k}: worst |gpu − cpu| / tolerance = ${worst.toFixed(3)}`);
    });
  }

  it('one live chunk (K ≤ SPLITK_CHUNK = 64) gives the bits of the 32x32 kernel; K = 0 writes zeros or leaves C', async () => {
    const s = { m: 33, n: 17, k: 3000 };
    const rng = createRng(3);
    const A = uniform(rng, s.m * s.k, 1);
    const B = uniform(rng, s.k * s.n, 1);
    const C0 = uniform(rng, s.m * s.n, 1);
    for (const live of [50, SPLITK_CHUNK, 1])
      for (const acc of [false, true]) {
        // dB-style: op(A) = Aᵀ stored [k][m]; the live K are the first rows.
        const sized = (c: Call): Call => {
          const u = c.uniform.slice();
          u[2] = live;
          const wg: [number, number, number] = c.kernel === 'matmul_splitk' ? [c.wg[0], c.wg[1], 1] : c.wg;
          return { ...c, uniform: u, wg };
        };
        const split = matmulCalls([val(0), val(1), val(2)], s.m, s.n, s.k, 1, true, false, acc, 0, 'dB').map(
          sized,
        );
        const plain = sized(matmulCall([val(0), val(1), val(2)], s.m, s.n, s.k, 1, true, false, acc));
        const Al = A.subarray(0, live * s.m);
        const Bl = B.subarray(0, live * s.n);
        expect(bits(await runCalls(ctx.device, cache, split, Al, Bl, C0)), `${live} live`).toEqual(
          bits(await runCalls(ctx.device, cache, [plain], Al, Bl, C0)),
        );
      }
    const zero = matmulCalls([val(0), val(1), val(2)], s.m, s.n, 600, 1, true, false, true, 0, 'dB').map(
      (c) => ({
        ...c,
        uniform: [s.m, s.n, 0, 1],
      }),
    );
    expect(bits(await runCalls(ctx.device, cache, zero, A, B, C0))).toEqual(bits(C0));
    zero[1] = { ...(zero[1] as Call), constants: { ACCUMULATE: 0 } };
    expect([...(await runCalls(ctx.device, cache, zero, A, B, C0))].every((v) => v === 0)).toBe(true);
  });
});

describe('split-K in the plan', () => {
  it('runs only thin outputs with K of at least two chunks and batch 1; the rest keeps its kernel', () => {
    const k = (m: number, n: number, kk: number, batch = 1) =>
      matmulCalls([val(0), val(1), val(2)], m, n, kk, batch, true, false, true, 0, 'dB').map((c) => c.kernel);
    expect(k(32, 32, 512)).toEqual(['matmul_splitk', 'matmul_splitk_sum']);
    expect(k(314, 64, 3072)).toEqual(['matmul_splitk', 'matmul_splitk_sum']);
    expect(k(32, 32, 257)).toEqual(['matmul_splitk', 'matmul_splitk_sum']);
    expect(k(32, 32, 256)).toEqual(['matmul']);
    expect(k(32, 32, 3072, 2)).toEqual(['matmul']);
    // A 64x64-tiled output of few workgroups splits on its own tiles; with a short K it does not.
    expect(k(300, 300, 3072)).toEqual(['matmul_splitk_tiled', 'matmul_splitk_sum']);
    expect(k(300, 300, 1000)).toEqual(['matmul_tiled']);
    expect(k(1100, 32, 3072)).toEqual(['matmul']);
    // 64-chunks would need a scratch past 16 MiB: fewer, longer chunks on 64x64 tiles.
    expect(k(160, 160, 200000)).toEqual(['matmul_splitk_tiled', 'matmul_splitk_sum']);
    expect(splitKTiled(160, 160, 200000, 1) % SPLITK_CHUNK).toBe(0);
    expect(Math.ceil(200000 / splitKTiled(160, 160, 200000, 1)) * 160 * 160).toBeLessThanOrEqual(1 << 22);
  });

  it('dispatches chunks of the live K of a weight gradient, and sizes the scratch for the planned K', () => {
    const g = new Graph();
    const x = g.input('x', [3000, 40]);
    const w = g.param('w', [40, 33], new Float32Array(40 * 33));
    const y = g.matmul(x, w);
    const calls = backwardCalls(g, g.node(y.id)).map((c) => ({ ...c, node: y.id }));
    expect(calls.map((c) => c.kernel)).toEqual(['matmul_splitk', 'matmul_splitk_sum']);
    const scratch = calls[0]?.refs[2];
    expect(scratch).toMatchObject({
      t: 'temp',
      slot: 'splitKdB',
      floats: Math.ceil(3000 / SPLITK_CHUNK) * 40 * 33,
    });
    for (const [live, chunks] of [
      [3000, 47],
      [1000, 16],
      [64, 1],
      [0, 1],
    ] as const) {
      const L = liveRows(g, new Map([[x.id, live]]));
      const [part, sum] = calls.map((c) => liveCall(g, c, L));
      expect(part?.uniform.slice(0, 3), `${live} live`).toEqual([40, 33, live]);
      expect(part?.wg, `${live} live`).toEqual([2, 2, chunks]);
      expect(sum?.uniform.slice(0, 3), `${live} live`).toEqual([40, 33, live]);
    }
  });

  it('a model whose weight gradients run split-K matches the CPU over live rows; one live chunk equals an unpadded model', async () => {
    const R = 3000;
    const rng = createRng(21);
    const build = (rows: number) => {
      const g = new Graph();
      const x = g.input('x', [rows, 40]);
      const w1 = g.param('w1', [40, 33], uniform(createRng(1), 40 * 33, 0.3));
      const w2 = g.param('w2', [20, 33], uniform(createRng(2), 20 * 33, 0.3));
      const h = g.biasAct(g.matmul(x, w1), null, 'relu');
      const y = g.matmul(h, w2, { transB: true });
      const loss = g.sum(g.sum(g.mul(y, g.input('wt', [rows, 20]))));
      return { g, loss, params: [w1, w2] };
    };
    const xs = Float32Array.from({ length: R * 40 }, () => rng.next() - 0.3);
    const wt = Float32Array.from({ length: R * 20 }, () => rng.next() - 0.5);
    const pad = (a: Float32Array, live: number, c: number) => a.map((v, i) => (i < live * c ? v : NaN));
    const { g, loss, params } = build(R);
    for (const live of [R, 2049, 200, 60, 0]) {
      const gpu = new GpuModel(ctx, g, { loss });
      const cpu = new CpuModel(g, { loss });
      for (const m of [gpu, cpu]) {
        m.setInput('x', pad(xs, live, 40), live);
        m.setInput('wt', pad(wt, live, 20), live);
      }
      const [rg, rc] = [await gpu.step(), await cpu.step()];
      expect(Math.abs(rg.loss - rc.loss)).toBeLessThanOrEqual(1e-4 * Math.max(1, Math.abs(rc.loss)));
      for (const p of params) {
        const [gg, gc] = [await gpu.readGrad(p), await cpu.readGrad(p)];
        const scale = Math.max(1, ...gc.map(Math.abs));
        // dW sums ≤ 3000 rows of O(1) terms: 2⁻²²·√3000·Σ|a·b| is about 1e-5 of the scale.
        for (let i = 0; i < gg.length; i++)
          expect(
            Math.abs((gg[i] as number) - (gc[i] as number)),
            `grad ${p.id}[${i}], ${live} live`,
          ).toBeLessThanOrEqual(2e-5 * scale * Math.max(1, live / 1000));
        if (live === 0) expect(gg.every((v) => v === 0)).toBe(true);
      }
      if (live === 60) {
        // One live chunk: the same bits as a model planned for exactly 60 rows (the 32x32 kernel).
        const small = build(60);
        const plain = new GpuModel(ctx, small.g, { loss: small.loss });
        plain.setInput('x', xs.subarray(0, 60 * 40));
        plain.setInput('wt', wt.subarray(0, 60 * 20));
        // The loss, a sum over the 3,000-row vector, takes reduce_wide there (another order of the
        // same terms: reduce.test.ts) and reduce.wgsl over 60 rows here: equal within rounding.
        expect(Math.abs((await plain.step()).loss - rg.loss)).toBeLessThanOrEqual(1e-6 * Math.abs(rg.loss));
        for (const [i, p] of params.entries())
          expect(bits(await gpu.readGrad(p))).toEqual(
            bits(await plain.readGrad(small.params[i] as typeof p)),
          );
        plain.dispose();
      }
      gpu.dispose();
    }
  });

  it('a node whose value and dA both run split-K keeps a scratch for each (of different sizes)', async () => {
    // C = x·w is 2x300 over K = 600 (10 chunks); dx = dC·wᵀ is 2x600 over K = 300 (5 chunks, a larger
    // scratch than C's); dw = xᵀ·dC is 600x300: too large an output, the tiled kernel.
    const g = new Graph();
    const x = g.param('x', [2, 600], uniform(createRng(3), 1200, 1));
    const w = g.param('w', [600, 300], uniform(createRng(4), 180_000, 0.1));
    const y = g.matmul(x, w);
    const loss = g.sum(g.sum(g.unary('tanh', y)));
    const fwd = forwardCalls(g, g.node(y.id));
    const bwd = backwardCalls(g, g.node(y.id));
    expect(fwd.map((c) => c.kernel)).toEqual(['matmul_splitk', 'matmul_splitk_sum']);
    expect(bwd.map((c) => c.kernel)).toEqual(['matmul_splitk', 'matmul_splitk_sum', 'matmul_tiled']);
    expect(fwd[0]?.refs[2]).toMatchObject({ slot: 'splitKC', floats: 10 * 2 * 300 });
    expect(bwd[0]?.refs[2]).toMatchObject({ slot: 'splitKdA', floats: 5 * 2 * 600 });
    const gpu = new GpuModel(ctx, g, { loss });
    const cpu = new CpuModel(g, { loss });
    const [rg, rc] = [await gpu.step(), await cpu.step()];
    expect(Math.abs(rg.loss - rc.loss)).toBeLessThanOrEqual(1e-4 * Math.max(1, Math.abs(rc.loss)));
    for (const p of [x, w]) {
      const [gg, gc] = [await gpu.readGrad(p), await cpu.readGrad(p)];
      for (let i = 0; i < gg.length; i++)
        expect(Math.abs((gg[i] as number) - (gc[i] as number)), `grad ${p.id}[${i}]`).toBeLessThanOrEqual(
          1e-5,
        );
    }
    gpu.dispose();
  });

  it('a model with split-K gradients recovers from device.destroy() and continues like a model that kept its device', async () => {
    const gpuObj = await nodeGpu();
    const lost = await GpuContext.create({ gpu: gpuObj });
    const ref = await GpuContext.create({ gpu: gpuObj });
    if (!lost || !ref) throw new Error('no adapter');
    const g = new Graph();
    const x = g.input('x', [1500, 24]);
    const w = g.param('w', [24, 20], uniform(createRng(8), 24 * 20, 0.3));
    const y = g.matmul(x, w);
    const loss = g.sum(g.sum(g.unary('tanh', y)));
    expect(backwardCalls(g, g.node(y.id)).map((c) => c.kernel)).toEqual([
      'matmul_splitk',
      'matmul_splitk_sum',
    ]);
    const opt = { lr: 0.01, weightDecay: 0.01, clipNorm: 0.5 };
    const [a, b] = [lost, ref].map((c) => new GpuModel(c, g, { loss, optimizer: opt, hostSyncEvery: 2 })) as [
      GpuModel,
      GpuModel,
    ];
    const steps = async (m: GpuModel, from: number, count: number): Promise<number[]> => {
      const out: number[] = [];
      for (let s = from; s < from + count; s++) {
        m.setInput('x', uniform(createRng(100 + s), 1500 * 24, 1), 1500 - 300 * (s % 3));
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
    expect(bits(await a.read(w))).toEqual(bits(await b.read(w)));
    a.dispose();
    b.dispose();
    lost.dispose();
    ref.dispose();
  });
});

describe('split-K on 64x64 tiles (matmul_tiled.wgsl with SPLIT_K = 1) for outputs of a few dozen tiles', () => {
  it('is planned for batch 1, fewer than SPLITK_TILED_MAX_WGS tiled workgroups and a long K', () => {
    expect(splitKTiled(256, 768, 4096, 1)).toBe(704); // 48 tiles: 6 chunks, 288 workgroups
    expect(splitKTiled(384, 1152, 8192, 1)).toBe(0); // 108 tiles: enough without
    expect(splitKTiled(64, 64, 2048, 1)).toBe(64); // (matmulCalls runs this one on 32x32 split-K)
    expect(splitKTiled(256, 768, 1000, 1)).toBe(0); // K below SPLITK_TILED_MIN_K
    expect(splitKTiled(256, 768, 4096, 2)).toBe(0);
    expect(splitKTiled(2048, 2048, 4096, 1)).toBe(0); // matmul_wide
    expect(splitKTiled(32, 768, 4096, 1)).toBe(0); // not a tiled output
    const calls = matmulCalls([val(0), val(1), val(2)], 256, 768, 4096, 1, true, false, true, 0, 'dB');
    expect(calls.map((c) => c.kernel)).toEqual(['matmul_splitk_tiled', 'matmul_splitk_sum']);
    expect(calls[0]?.wg).toEqual([12, 4, 6]);
    expect(calls[1]?.uniform).toEqual([256, 768, 6 * SPLITK_CHUNK, 704]);
    expect(SPLITK_TILED_MAX_WGS).toBeGreaterThan(48);
  });

  const shapes: Shape[] = [
    { m: 200, n: 200, k: 2000 },
    { m: 130, n: 260, k: 1500 },
    { m: 64, n: 600, k: 1031 },
  ];
  for (const s of shapes) {
    it(`${s.m}x${s.n}, K = ${s.k}: all transpose forms, with and without accumulation`, async () => {
      const rng = createRng(s.m * 5 + s.n + s.k);
      const A = Float32Array.from(uniform(rng, s.m * s.k, 1), (v, i) => (i % 3 === 0 ? Math.abs(v) : v));
      const B = uniform(rng, s.k * s.n, 1);
      const C0 = uniform(rng, s.m * s.n, 1);
      for (const ta of [false, true])
        for (const tb of [false, true]) {
          const sums = absSums(s, ta, tb, A, B);
          for (const acc of [false, true]) {
            const calls = matmulCalls([val(0), val(1), val(2)], s.m, s.n, s.k, 1, ta, tb, acc, 0, 'dB');
            expect(calls.map((c) => c.kernel)).toEqual(['matmul_splitk_tiled', 'matmul_splitk_sum']);
            expect(calls[0]?.wg[2]).toBeGreaterThanOrEqual(2);
            const gpu = await runCalls(ctx.device, cache, calls, A, B, C0);
            const cpu = C0.slice();
            cpuMatmul(A, B, cpu, 1, s.m, s.n, s.k, ta, tb, acc);
            expect(
              worstProduct(s, gpu, cpu, sums, acc ? C0 : null),
              `trans=${+ta}${+tb} acc=${+acc}`,
            ).toBeLessThanOrEqual(1);
          }
        }
    });
  }

  it('a weight gradient over live rows matches the CPU backend; chunks follow the live K', async () => {
    const R = 2000;
    const rng = createRng(77);
    const g = new Graph();
    const x = g.input('x', [R, 130]);
    const w = g.param('w', [130, 260], uniform(rng, 130 * 260, 0.2));
    const y = g.matmul(x, w);
    const loss = g.sum(g.sum(g.mul(y, g.input('wt', [R, 260]))));
    const kernels = backwardCalls(g, g.node(y.id)).map((c) => c.kernel);
    expect(kernels).toContain('matmul_splitk_tiled');
    for (const live of [R, 1500, 700, 0]) {
      const gpu = new GpuModel(ctx, g, { loss });
      const cpu = new CpuModel(g, { loss });
      const r = createRng(live + 3);
      const xs = Float32Array.from({ length: R * 130 }, (_, i) => (i < live * 130 ? r.next() - 0.5 : NaN));
      const wt = Float32Array.from({ length: R * 260 }, (_, i) => (i < live * 260 ? r.next() - 0.5 : NaN));
      for (const m of [gpu, cpu]) {
        m.setInput('x', xs, live);
        m.setInput('wt', wt, live);
      }
      await gpu.step();
      await cpu.step();
      const [gg, gc] = [await gpu.readGrad(w), await cpu.readGrad(w)];
      expect(worstError(gg, gc, 1e-4, 1e-3), `${live} live`).toBeLessThanOrEqual(1);
      if (live === 0) expect(gg.every((v) => v === 0)).toBe(true);
      gpu.dispose();
    }
  });
});
