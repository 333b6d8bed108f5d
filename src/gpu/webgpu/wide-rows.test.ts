/**
 * Long rows one workgroup per row (GpuModelOptions.wideRows, on by default on a hardware adapter):
 * layer norm and its gradient on layer_norm_wide.wgsl / layer_norm_grad_wide.wgsl, and row
 * reductions of any number of long rows on reduce_wide.wgsl, each row's sums in a tree. Held to the
 * CPU reference on SwiftShader at the layer norm tests' tolerances (webgpu.test.ts) and, for the
 * reductions, at reduce.test.ts's bound; odd sizes, live rows with NaN padding (never read), and
 * more rows than one grid dimension holds.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../core/rng.ts';
import { CpuModel } from '../cpu/model.ts';
import { Graph, type Tensor } from '../graph.ts';
import { uniform } from '../init.ts';
import { paramLayout } from '../layout.ts';
import { useGpuContext } from '../testing/gpu-context.ts';
import { worstError } from '../testing/cases.ts';
import type { GpuContext } from './device.ts';
import { GpuModel } from './model.ts';
import { planOptions } from './options.ts';
import { buildPlan } from './plan.ts';
import { MAX_WG, WIDE_ROW_COLS } from './plan-calls.ts';
import { REDUCE_WIDE_COLS, REDUCE_WIDE_ROWS } from './plan-forward.ts';

const context = useGpuContext();
const FWD = { abs: 1e-5, rel: 1e-4 };
const GRAD = { abs: 1e-4, rel: 1e-3 };

interface Built {
  g: Graph;
  y: Tensor;
  loss: Tensor;
  params: Tensor[];
}

/** loss = Σ layerNorm(x)·wt over [rows, cols], x a parameter (its gradient is gx). */
function layerNormGraph(rows: number, cols: number, seed: number): Built {
  const g = new Graph();
  const rng = createRng(seed);
  const x = g.param('x', [rows, cols], uniform(rng, rows * cols, 2));
  const gamma = g.param('gamma', [cols], uniform(rng, cols, 1));
  const beta = g.param('beta', [cols], uniform(rng, cols, 0.5));
  const y = g.layerNorm(x, gamma, beta);
  const loss = g.sum(g.sum(g.mul(y, g.input('wt', [rows, cols]))));
  return { g, y, loss, params: [x, gamma, beta] };
}

const kernels = (g: Graph, loss: Tensor | null, wideRows: boolean): string[] => {
  const backward = loss
    ? g.nodes
        .filter((n) => n.requiresGrad)
        .map((n) => n.id)
        .reverse()
    : [];
  const plan = buildPlan(g, paramLayout(g), backward, 0, { wideRows });
  return [...plan.forward, ...plan.backward].map((c) => c.kernel);
};

describe('the plan with wideRows', () => {
  it('is on by default on a hardware adapter only, and an explicit setting wins', () => {
    const ctx = (software: boolean): GpuContext =>
      ({
        adapter: { software },
        device: { features: new Set() },
        subgroupTwins: null,
      }) as unknown as GpuContext;
    expect(planOptions({}, ctx(false)).wideRows).toBe(true);
    expect(planOptions({}, ctx(true)).wideRows).toBe(false);
    expect(planOptions({ wideRows: true }, ctx(true)).wideRows).toBe(true);
    expect(planOptions({ wideRows: false }, ctx(false)).wideRows).toBe(false);
  });

  it('gives layer norm of long rows, and row reductions of many long rows, a workgroup per row', () => {
    const long = layerNormGraph(3, WIDE_ROW_COLS, 1);
    expect(kernels(long.g, long.loss, true)).toEqual(
      expect.arrayContaining(['layer_norm_wide', 'layer_norm_grad_wide']),
    );
    expect(kernels(long.g, long.loss, false)).toEqual(
      expect.arrayContaining(['layer_norm', 'layer_norm_grad']),
    );
    const short = layerNormGraph(3, WIDE_ROW_COLS - 1, 1);
    expect(kernels(short.g, short.loss, true)).not.toContain('layer_norm_wide');
    const reduce = (rows: number, cols: number, wide: boolean): string => {
      const g = new Graph();
      g.reduce('sum', g.input('x', [rows, cols]));
      return kernels(g, null, wide).join();
    };
    expect(reduce(REDUCE_WIDE_ROWS + 1, REDUCE_WIDE_COLS, true)).toBe('reduce_wide');
    expect(reduce(REDUCE_WIDE_ROWS + 1, REDUCE_WIDE_COLS, false)).toBe('reduce');
    expect(reduce(4096, REDUCE_WIDE_COLS - 1, true)).toBe('reduce');
  });
});

describe('layer norm a workgroup per row, against the CPU', () => {
  for (const [rows, cols] of [
    [1, 128],
    [3, 129],
    [70, 300],
    [5, 1000],
  ] as const) {
    it(`${rows}x${cols}: forward, and the gradients of x, gamma and beta`, async () => {
      const b = layerNormGraph(rows, cols, rows * 1000 + cols);
      const wt = uniform(createRng(7), rows * cols, 1);
      const gpu = new GpuModel(context(), b.g, { loss: b.loss, wideRows: true });
      const cpu = new CpuModel(b.g, { loss: b.loss });
      for (const m of [gpu, cpu]) m.setInput('wt', wt);
      const [rg, rc] = [await gpu.step({ update: false }), await cpu.step({ update: false })];
      expect(Math.abs(rg.loss - rc.loss)).toBeLessThanOrEqual(1e-4 * Math.max(1, Math.abs(rc.loss)));
      expect(worstError(await gpu.read(b.y), await cpu.read(b.y), FWD.abs, FWD.rel)).toBeLessThanOrEqual(1);
      for (const p of b.params)
        expect(
          worstError(await gpu.readGrad(p), await cpu.readGrad(p), GRAD.abs, GRAD.rel),
          `grad of ${p.id}`,
        ).toBeLessThanOrEqual(1);
      gpu.dispose();
    });
  }

  it('live rows: a workgroup per live row, padding (NaN) never read', async () => {
    const R = 40;
    const C = 200;
    const g = new Graph();
    const x = g.input('x', [R, C]);
    const rng = createRng(3);
    const gamma = g.param('gamma', [C], uniform(rng, C, 1));
    const beta = g.param('beta', [C], uniform(rng, C, 0.5));
    const y = g.layerNorm(x, gamma, beta);
    const loss = g.sum(g.sum(g.mul(y, g.input('wt', [R, C]))));
    const ctx = context();
    const workgroups: number[] = [];
    for (const live of [R, 17, 1]) {
      const xs = Float32Array.from({ length: R * C }, (_, i) => (i < live * C ? rng.next() * 4 - 2 : NaN));
      const wt = Float32Array.from({ length: R * C }, (_, i) => (i < live * C ? rng.next() : NaN));
      const gpu = new GpuModel(ctx, g, { loss, wideRows: true });
      const cpu = new CpuModel(g, { loss });
      for (const m of [gpu, cpu]) {
        m.setInput('x', xs, live);
        m.setInput('wt', wt, live);
      }
      ctx.resetCounters();
      const [rg, rc] = [await gpu.step({ update: false }), await cpu.step({ update: false })];
      workgroups.push(ctx.counters.workgroups);
      expect(Number.isFinite(rg.loss)).toBe(true);
      expect(Math.abs(rg.loss - rc.loss)).toBeLessThanOrEqual(1e-4 * Math.max(1, Math.abs(rc.loss)));
      const [a, c] = [await gpu.read(y), await cpu.read(y)];
      expect(
        worstError(a.subarray(0, live * C), c.subarray(0, live * C), FWD.abs, FWD.rel),
      ).toBeLessThanOrEqual(1);
      for (const p of [gamma, beta])
        expect(
          worstError(await gpu.readGrad(p), await cpu.readGrad(p), GRAD.abs, GRAD.rel),
        ).toBeLessThanOrEqual(1);
      gpu.dispose();
    }
    // Fewer live rows, fewer workgroups.
    expect(workgroups[1]).toBeLessThan(workgroups[0] as number);
    expect(workgroups[2]).toBeLessThan(workgroups[1] as number);
  });

  it('more rows than one grid dimension holds: the rows past it are normalised too', async () => {
    const rows = MAX_WG + 37;
    const cols = WIDE_ROW_COLS;
    const g = new Graph();
    const rng = createRng(11);
    const x = g.input('x', [rows, cols]);
    const y = g.layerNorm(
      x,
      g.param('gamma', [cols], uniform(rng, cols, 1)),
      g.param('beta', [cols], uniform(rng, cols, 0.5)),
    );
    const xs = uniform(rng, rows * cols, 3);
    const gpu = new GpuModel(context(), g, { wideRows: true });
    const cpu = new CpuModel(g);
    for (const m of [gpu, cpu]) m.setInput('x', xs);
    const [a, c] = [
      (await gpu.step({ read: [y] })).values?.[0] as Float32Array,
      (await cpu.step({ read: [y] })).values?.[0] as Float32Array,
    ];
    expect(
      worstError(a.subarray((rows - 40) * cols), c.subarray((rows - 40) * cols), FWD.abs, FWD.rel),
    ).toBeLessThanOrEqual(1);
    expect(worstError(a, c, FWD.abs, FWD.rel)).toBeLessThanOrEqual(1);
    gpu.dispose();
  }, 120_000);
});

describe('row reductions of many long rows a workgroup per row, against the CPU', () => {
  it('sums bit for bit on exact data and within 2⁻²²·√cols·Σ|x| otherwise; max exactly; live rows', async () => {
    const rows = REDUCE_WIDE_ROWS * 3 + 5;
    const cols = REDUCE_WIDE_COLS + 77;
    for (const [op, exact] of [
      ['sum', true],
      ['sum', false],
      ['max', false],
      ['mean', false],
    ] as const) {
      const g = new Graph();
      const x = g.input('x', [rows, cols]);
      const y = g.reduce(op, x);
      const rng = createRng(op.length + (exact ? 1 : 0));
      const xs = Float32Array.from({ length: rows * cols }, () =>
        exact ? Math.floor(rng.next() * 7) - 3 : rng.next() * 2 - 1,
      );
      for (const live of [rows, 19]) {
        const padded = xs.map((v, i) => (i < live * cols ? v : NaN));
        const gpu = new GpuModel(context(), g, { wideRows: true });
        const cpu = new CpuModel(g);
        for (const m of [gpu, cpu]) m.setInput('x', padded, live);
        const a = ((await gpu.step({ read: [y] })).values?.[0] as Float32Array).subarray(0, live);
        const c = ((await cpu.step({ read: [y] })).values?.[0] as Float32Array).subarray(0, live);
        if (exact || op === 'max') expect(Array.from(a)).toEqual(Array.from(c));
        else
          for (let r = 0; r < live; r++) {
            let abs = 0;
            for (let k = 0; k < cols; k++) abs += Math.abs(xs[r * cols + k] as number);
            const bound = 2 ** -22 * Math.sqrt(cols) * (op === 'mean' ? abs / cols : abs);
            expect(Math.abs((a[r] as number) - (c[r] as number))).toBeLessThanOrEqual(bound);
          }
        gpu.dispose();
      }
    }
  });
});
