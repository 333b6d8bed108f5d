/**
 * Lanes products (matmul_lanes.wgsl, planned by plan-calls.ts lanesCall / lanesFit) against the CPU
 * backend's matmul on the WebGPU adapter the suite finds (SwiftShader without a GPU), at the
 * tolerance of products summed in another order (testing/products.ts): odd sizes, every lane count,
 * every transpose form, with and without accumulation, batches, a live K that shrinks to zero, live
 * output rows, and whole models (training steps, a device loss) against the CPU and against
 * themselves.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../core/rng.ts';
import { CpuModel } from '../cpu/model.ts';
import { matmul as cpuMatmul } from '../cpu/ops-matmul.ts';
import { Graph } from '../graph.ts';
import { uniform } from '../init.ts';
import { expectRecovery, useGpuContext } from '../testing/gpu-context.ts';
import { absSums, runCalls, worstProduct, type Shape } from '../testing/products.ts';
import { feed, net } from '../testing/two-heads.ts';
import { liveCall, liveRows } from './live.ts';
import { GpuModel } from './model.ts';
import { PipelineCache } from './pipelines.ts';
import { backwardCalls } from './plan-backward.ts';
import { forwardCalls } from './plan-forward.ts';
import { lanesCall, lanesFit, lanesOf, matmulCalls, val, type Call } from './plan-calls.ts';

const gpu = useGpuContext();
let cache: PipelineCache | null = null;
const pipelines = (): PipelineCache => (cache ??= new PipelineCache(gpu().device));
const bits = (x: Float32Array): Uint32Array => new Uint32Array(x.buffer, x.byteOffset, x.length);
const refs = (): [ReturnType<typeof val>, ReturnType<typeof val>, ReturnType<typeof val>] => [
  val(0),
  val(1),
  val(2),
];

describe('lanes products match the CPU backend at the stated tolerance', () => {
  const shapes: (Shape & { lk: number })[] = [
    { m: 5, n: 7, k: 16, lk: 4 },
    { m: 3, n: 9, k: 20, lk: 8 },
    { m: 64, n: 12, k: 64, lk: 16 },
    { m: 33, n: 17, k: 100, lk: 32 },
    { m: 18, n: 32, k: 768, lk: 64 },
    { m: 1, n: 1, k: 1024, lk: 64 },
    { m: 37, n: 29, k: 1000, lk: 64 },
  ];
  for (const s of shapes) {
    it(`${s.m}x${s.n}, K = ${s.k} (${s.lk} lanes): all transpose forms, with and without accumulation`, async () => {
      expect(lanesOf(s.k)).toBe(s.lk);
      const rng = createRng(s.m * 7 + s.n * 3 + s.k);
      // Features of a policy network are often ≥ 0 (relu, one-hot): the sums then grow with K.
      const A = Float32Array.from(uniform(rng, s.m * s.k, 1), (v, i) => (i % 3 === 0 ? Math.abs(v) : v));
      const B = uniform(rng, s.k * s.n, 1);
      const C0 = uniform(rng, s.m * s.n, 1);
      let worst = 0;
      let differs = false;
      for (const ta of [false, true])
        for (const tb of [false, true]) {
          const sums = absSums(s, ta, tb, A, B);
          for (const acc of [false, true]) {
            const calls = matmulCalls(refs(), s.m, s.n, s.k, 1, ta, tb, acc, 0, 'dB', true);
            expect(calls.map((c) => c.kernel)).toEqual(['matmul_lanes']);
            const out = await runCalls(gpu().device, pipelines(), calls, A, B, C0);
            const cpu = C0.slice();
            cpuMatmul(A, B, cpu, 1, s.m, s.n, s.k, ta, tb, acc);
            const e = worstProduct(s, out, cpu, sums, acc ? C0 : null);
            expect(e, `trans=${+ta}${+tb} acc=${+acc}`).toBeLessThanOrEqual(1);
            worst = Math.max(worst, e);
            differs ||= bits(out).some((b, i) => b !== bits(cpu)[i]);
          }
        }
      // Another summation order: some last bits differ, or the tolerance would be needless.
      if (s.k >= 64) expect(differs).toBe(true);
      console.log(`[lanes] ${s.m}x${s.n}x${s.k}: worst |gpu − cpu| / tolerance = ${worst.toFixed(3)}`);
    });
  }

  it('a batch of products, one per workgroup layer', async () => {
    const [batch, m, n, k] = [3, 9, 6, 48];
    const rng = createRng(5);
    const A = uniform(rng, batch * m * k, 1);
    const B = uniform(rng, batch * k * n, 1);
    const C0 = uniform(rng, batch * m * n, 1);
    const call = lanesCall(refs(), m, n, k, batch, false, true, true);
    expect(call.wg[2]).toBe(batch);
    const out = await runCalls(gpu().device, pipelines(), [call], A, B, C0);
    const cpu = C0.slice();
    cpuMatmul(A, B, cpu, batch, m, n, k, false, true, true);
    for (let b = 0; b < batch; b++) {
      const part = (x: Float32Array, len: number) => x.subarray(b * len, (b + 1) * len);
      const s = { m, n, k };
      const e = worstProduct(
        s,
        part(out, m * n),
        part(cpu, m * n),
        absSums(s, false, true, part(A, m * k), part(B, k * n)),
        part(C0, m * n),
      );
      expect(e, `batch ${b}`).toBeLessThanOrEqual(1);
    }
  });

  it('a live K shorter than planned sums the live k only; K = 0 writes zeros or leaves C', async () => {
    const s = { m: 33, n: 17, k: 900 };
    const rng = createRng(3);
    const A = uniform(rng, s.m * s.k, 1);
    const B = uniform(rng, s.k * s.n, 1);
    const C0 = uniform(rng, s.m * s.n, 1);
    const planned = lanesCall(refs(), s.m, s.n, s.k, 1, true, false, true);
    for (const live of [333, 64, 5, 1]) {
      const call: Call = { ...planned, uniform: [s.m, s.n, live, 1] };
      const Al = A.subarray(0, live * s.m);
      const Bl = B.subarray(0, live * s.n);
      const out = await runCalls(gpu().device, pipelines(), [call], Al, Bl, C0);
      const cpu = C0.slice();
      cpuMatmul(Al, Bl, cpu, 1, s.m, s.n, live, true, false, true);
      const sl = { ...s, k: live };
      expect(
        worstProduct(sl, out, cpu, absSums(sl, true, false, Al, Bl), C0),
        `${live} live`,
      ).toBeLessThanOrEqual(1);
    }
    const zero: Call = { ...planned, uniform: [s.m, s.n, 0, 1] };
    expect(bits(await runCalls(gpu().device, pipelines(), [zero], A, B, C0))).toEqual(bits(C0));
    const set: Call = { ...zero, constants: { ...zero.constants, ACCUMULATE: 0 } };
    expect([...(await runCalls(gpu().device, pipelines(), [set], A, B, C0))].every((v) => v === 0)).toBe(
      true,
    );
  });
});

describe('lanes products in the plan', () => {
  const kernels = (m: number, n: number, k: number, lanes: boolean, batch = 1): string[] =>
    matmulCalls(refs(), m, n, k, batch, true, false, true, 0, 'dB', lanes).map((c) => c.kernel);

  it('take small outputs with K from 16 to 1,024; larger outputs, short and long K keep their kernels', () => {
    // The trainer's products at minibatch 64 (shapes from its update profile).
    for (const [m, n, k] of [
      [64, 12, 64],
      [314, 18, 64],
      [768, 32, 32],
      [18, 32, 768],
      [64, 64, 768],
    ] as const) {
      expect(lanesFit(m, n, k, 1), `${m}x${n}x${k}`).toBe(true);
      expect(kernels(m, n, k, true), `${m}x${n}x${k}`).toEqual(['matmul_lanes']);
    }
    // Without lanes, the kernels of before: the 32x32 kernel, split-K.
    expect(kernels(64, 12, 64, false)).toEqual(['matmul']);
    expect(kernels(18, 32, 768, false)).toEqual(['matmul_splitk', 'matmul_splitk_sum']);
    // K below 16; K past 1,024 (split-K chunks); an output that fills a large GPU.
    expect(kernels(64, 12, 8, true)).toEqual(['matmul']);
    expect(kernels(18, 32, 3000, true)).toEqual(['matmul_splitk', 'matmul_splitk_sum']);
    expect(kernels(2048, 2048, 64, true)).toEqual(['matmul_wide']);
    expect(kernels(1024, 1024, 512, true)).toEqual(['matmul_tiled']);
  });

  it('sizes a weight gradient for the live K and a product for its live output rows', () => {
    const g = new Graph();
    const x = g.input('x', [800, 40]);
    const w = g.param('w', [40, 33], new Float32Array(40 * 33));
    const y = g.matmul(x, w);
    const fwd = forwardCalls(g, g.node(y.id), true).map((c) => ({ ...c, node: y.id }));
    const back = backwardCalls(g, g.node(y.id), true).map((c) => ({ ...c, node: y.id }));
    expect(fwd.map((c) => c.kernel)).toEqual(['matmul_lanes']);
    expect(back.map((c) => c.kernel)).toEqual(['matmul_lanes']);
    for (const live of [800, 300, 1, 0]) {
      const L = liveRows(g, new Map([[x.id, live]]));
      const f = liveCall(g, fwd[0] as Call, L);
      const b = liveCall(g, back[0] as Call, L);
      // C = x·w over live rows: ⌈live/4⌉·⌈33/4⌉ blocks, 64/LK blocks per workgroup (K = 40: 16 lanes).
      expect(f.uniform.slice(0, 3), `${live} live`).toEqual([live, 33, 40]);
      expect(f.wg, `${live} live`).toEqual([Math.max(1, Math.ceil((Math.ceil(live / 4) * 9) / 4)), 1, 1]);
      // dW = xᵀ·dy sums over the live rows.
      expect(b.uniform.slice(0, 3), `${live} live`).toEqual([40, 33, live]);
      expect(b.wg, `${live} live`).toEqual(back[0]?.wg);
    }
  });

  it('is on by default on a hardware adapter only; a model can ask for it either way', () => {
    const { g, opts } = net();
    const loss = opts.loss;
    const has = (m: GpuModel): boolean =>
      /"matmul_lanes(_sg)?"/.test(JSON.stringify((m as unknown as { plan: unknown }).plan));
    const ctx = gpu();
    const dflt = new GpuModel(ctx, g, { loss });
    expect(has(dflt)).toBe(!ctx.adapter.software);
    const on = new GpuModel(ctx, g, { loss, lanes: true });
    const off = new GpuModel(ctx, g, { loss, lanes: false });
    expect([has(on), has(off)]).toEqual([true, false]);
    for (const m of [dflt, on, off]) m.dispose();
  });
});

describe('models with lanes products', () => {
  it('train like the CPU backend within rounding, and give the same bits run after run', async () => {
    const n = net();
    const a = new GpuModel(gpu(), n.g, { ...n.opts, lanes: true });
    const b = new GpuModel(gpu(), n.g, { ...n.opts, lanes: true });
    const cpu = new CpuModel(n.g, n.opts);
    for (let k = 0; k < 4; k++) {
      for (const m of [a, b, cpu]) feed(m, k);
      const [ra, rb, rc] = [await a.step(), await b.step(), await cpu.step()];
      expect([ra.loss, ra.gradNorm]).toEqual([rb.loss, rb.gradNorm]);
      expect(Math.abs(ra.loss - rc.loss), `step ${k}`).toBeLessThanOrEqual(
        1e-5 * Math.max(1, Math.abs(rc.loss)),
      );
      expect(Math.abs(ra.gradNorm - rc.gradNorm), `step ${k}`).toBeLessThanOrEqual(1e-4 * rc.gradNorm);
    }
    for (const p of n.g.params()) {
      const [pa, pb, pc] = [await a.read(p), await b.read(p), await cpu.read(p)];
      expect(bits(pa)).toEqual(bits(pb));
      for (let i = 0; i < pa.length; i++)
        expect(Math.abs((pa[i] as number) - (pc[i] as number)), `param ${p.id}[${i}]`).toBeLessThanOrEqual(
          1e-4,
        );
    }
    for (const m of [a, b]) m.dispose();
  });

  it('compute only live rows: a model over padded inputs matches the CPU, padding never read', async () => {
    const R = 800;
    const rng = createRng(21);
    const g = new Graph();
    const x = g.input('x', [R, 40]);
    const w1 = g.param('w1', [40, 33], uniform(createRng(1), 40 * 33, 0.3));
    const w2 = g.param('w2', [20, 33], uniform(createRng(2), 20 * 33, 0.3));
    const h = g.biasAct(g.matmul(x, w1), null, 'relu');
    const y = g.matmul(h, w2, { transB: true });
    const loss = g.sum(g.sum(g.mul(y, g.input('wt', [R, 20]))));
    const xs = Float32Array.from({ length: R * 40 }, () => rng.next() - 0.3);
    const wt = Float32Array.from({ length: R * 20 }, () => rng.next() - 0.5);
    const pad = (a: Float32Array, live: number, c: number) => a.map((v, i) => (i < live * c ? v : NaN));
    for (const live of [R, 301, 7, 0]) {
      const model = new GpuModel(gpu(), g, { loss, lanes: true });
      const cpu = new CpuModel(g, { loss });
      for (const m of [model, cpu]) {
        m.setInput('x', pad(xs, live, 40), live);
        m.setInput('wt', pad(wt, live, 20), live);
      }
      const [rg, rc] = [await model.step(), await cpu.step()];
      expect(Math.abs(rg.loss - rc.loss), `${live} live`).toBeLessThanOrEqual(
        1e-5 * Math.max(1, Math.abs(rc.loss)),
      );
      for (const p of [w1, w2]) {
        const [gg, gc] = [await model.readGrad(p), await cpu.readGrad(p)];
        const scale = Math.max(1, ...gc.map(Math.abs));
        for (let i = 0; i < gg.length; i++)
          expect(
            Math.abs((gg[i] as number) - (gc[i] as number)),
            `grad ${p.id}[${i}], ${live} live`,
          ).toBeLessThanOrEqual(1e-5 * scale);
        if (live === 0) expect(gg.every((v) => v === 0)).toBe(true);
      }
      model.dispose();
    }
  });

  it.each([false, true])(
    'recover from a lost device with the bits of a model on a device that never lost it (subgroup twins: %s)',
    async (subgroups) => {
      const n = net();
      const opts = { ...n.opts, lanes: true, subgroups, hostSyncEvery: 1 };
      const steady = new GpuModel(gpu(), n.g, opts);
      await expectRecovery(steady, (ctx) => new GpuModel(ctx, n.g, opts), feed);
      steady.dispose();
    },
  );
});
