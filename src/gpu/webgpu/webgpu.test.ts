/**
 * Runs on a real WebGPU adapter: Dawn (the `webgpu` package) on SwiftShader's Vulkan driver when the
 * machine has no GPU. Nothing here is skipped: without an adapter the suite fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../../core/rng.ts';
import { CpuModel } from '../cpu/model.ts';
import { Graph } from '../graph.ts';
import type { Tensor } from '../graph.ts';
import { uniform } from '../init.ts';
import { mlpPolicyGraph, mlpPolicyInputs } from '../mlp.ts';
import type { MlpPolicyConfig } from '../mlp.ts';
import { nodeGpu } from '../node-gpu.ts';
import { chooseBackend } from '../select.ts';
import { CASE_NAMES, buildCase, tiedTables, worstError } from '../testing/cases.ts';
import { GpuContext, describeAdapter } from './device.ts';
import { GpuModel, deviceCaches } from './model.ts';
import { BufferPool } from './pool.ts';
import { PipelineCache } from './pipelines.ts';

let ctx: GpuContext;

beforeAll(async () => {
  const gpu = await nodeGpu();
  const c = await GpuContext.create({ gpu });
  if (!c) throw new Error('no WebGPU adapter: install libvulkan1 and chromium (SwiftShader) or run on a GPU');
  ctx = c;
  const a = ctx.adapter;
  console.log(
    `[gpu tests] adapter: ${describeAdapter(a)}; vendor=${a.vendor} architecture=${a.architecture} ` +
      `isFallbackAdapter=${a.isFallbackAdapter} features=${a.features.length} ` +
      `maxStorageBufferBindingSize=${a.limits.maxStorageBufferBindingSize}`,
  );
});

afterAll(() => {
  expect(ctx.errors).toEqual([]);
  ctx.dispose();
});

// Forward values: both sides round to f32 per op; reductions and exp/log differ in order and ulp.
const FWD = { abs: 1e-5, rel: 1e-4 };
// Gradients chain several such ops.
const GRAD = { abs: 1e-4, rel: 1e-3 };

describe('WebGPU kernels match the CPU reference (forward and backward)', () => {
  for (const name of CASE_NAMES) {
    it(name, async () => {
      const c = buildCase(name, createRng(3));
      const cpu = new CpuModel(c.graph, { loss: c.loss });
      const gpu = new GpuModel(ctx, c.graph, { loss: c.loss });
      for (const [k, v] of Object.entries(c.inputs)) {
        cpu.setInput(k, v);
        gpu.setInput(k, v);
      }
      const rc = await cpu.step();
      const rg = await gpu.step();
      expect(worstError(await gpu.read(c.out), await cpu.read(c.out), FWD.abs, FWD.rel)).toBeLessThanOrEqual(
        1,
      );
      expect(Math.abs(rg.loss - rc.loss)).toBeLessThanOrEqual(1e-4 * Math.max(1, Math.abs(rc.loss)));
      for (const p of c.params) {
        expect(
          worstError(await gpu.readGrad(p), await cpu.readGrad(p), GRAD.abs, GRAD.rel),
          `grad of ${p.id}`,
        ).toBeLessThanOrEqual(1);
      }
      expect(Math.abs(rg.gradNorm - rc.gradNorm)).toBeLessThanOrEqual(1e-3 * Math.max(1, rc.gradNorm));
      gpu.dispose();
    });
  }
});

describe('WebGPU kernels on random shapes', () => {
  // Sizes drawn by the seeded RNG in [1, 70]: they straddle the 32x32 matmul tile and the
  // 64-invocation workgroups, including sizes of 1.
  const rng = createRng(2024);
  for (let trial = 0; trial < 6; trial++) {
    const [m, n, k, rows, cols] = [1, 2, 3, 4, 5].map(() => 1 + rng.int(70)) as [
      number,
      number,
      number,
      number,
      number,
    ];
    const transA = rng.next() < 0.5;
    const transB = rng.next() < 0.5;
    const act = rng.pick(['relu', 'tanh', 'gelu', 'sigmoid'] as const);
    it(`matmul ${m}x${n}x${k} trans=${+transA}${+transB}, ${act}, layerNorm + logSoftmax ${rows}x${cols}`, async () => {
      const g = new Graph();
      const r = createRng(trial);
      const p = (name: string, shape: number[]): Tensor =>
        g.param(
          name,
          shape,
          uniform(
            r,
            shape.reduce((a, b) => a * b, 1),
            1,
          ),
        );
      const a = p('a', transA ? [k, m] : [m, k]);
      const b = p('b', transB ? [n, k] : [k, n]);
      const y = g.biasAct(g.matmul(a, b, { transA, transB }), p('bias', [n]), act);
      const z = g.logSoftmax(g.layerNorm(p('x', [rows, cols]), p('gamma', [cols]), p('beta', [cols])));
      const loss = g.add(g.sum(g.sum(y)), g.sum(g.mean(z)));
      const cpu = new CpuModel(g, { loss });
      const gpu = new GpuModel(ctx, g, { loss });
      const [rc, rg] = [await cpu.step(), await gpu.step()];
      expect(Math.abs(rg.loss - rc.loss)).toBeLessThanOrEqual(1e-4 * Math.max(1, Math.abs(rc.loss)));
      expect(worstError(await gpu.read(y), await cpu.read(y), FWD.abs, FWD.rel)).toBeLessThanOrEqual(1);
      expect(worstError(await gpu.read(z), await cpu.read(z), FWD.abs, FWD.rel)).toBeLessThanOrEqual(1);
      for (const t of g.params()) {
        expect(
          worstError(await gpu.readGrad(t), await cpu.readGrad(t), GRAD.abs, GRAD.rel),
        ).toBeLessThanOrEqual(1);
      }
      gpu.dispose();
    });
  }
});

const MLP: MlpPolicyConfig = { batch: 33, obs: 11, hidden: [24, 17], actions: 7, act: 'gelu' };
const ADAM = { lr: 0.01, weightDecay: 0.01, clipNorm: 0.5 };

async function trainSteps(
  model: CpuModel | GpuModel,
  steps: number,
  seed: number,
  from = 0,
): Promise<number[]> {
  const losses: number[] = [];
  for (let s = from; s < from + steps; s++) {
    const inp = mlpPolicyInputs(MLP, createRng(seed + s));
    model.setInput('obs', inp.obs);
    model.setInput('mask', inp.mask);
    model.setInput('actions', inp.actions);
    model.setInput('adv', inp.adv);
    losses.push((await model.step()).loss);
  }
  return losses;
}

describe('transformer training plumbing on WebGPU', () => {
  it('a parameter read twice (embedding and tied head) accumulates both gradients', async () => {
    const { tied, split, inputs } = tiedTables(createRng(4));
    const a = new GpuModel(ctx, tied.graph, { loss: tied.loss });
    const b = new GpuModel(ctx, split.graph, { loss: split.loss });
    const cpu = new CpuModel(tied.graph, { loss: tied.loss });
    for (const [k, v] of Object.entries(inputs)) {
      a.setInput(k, v);
      b.setInput(k, v);
      cpu.setInput(k, v);
    }
    await Promise.all([a.step(), b.step(), cpu.step()]);
    const g = await a.readGrad(tied.table);
    const g0 = await b.readGrad(split.tables[0]);
    const g1 = await b.readGrad(split.tables[1]);
    expect(g0.some((x) => x !== 0) && g1.some((x) => x !== 0)).toBe(true);
    const sum = g0.map((x, i) => x + (g1[i] as number));
    expect(worstError(g, sum, GRAD.abs, GRAD.rel)).toBeLessThanOrEqual(1);
    expect(worstError(g, await cpu.readGrad(tied.table), GRAD.abs, GRAD.rel)).toBeLessThanOrEqual(1);
    a.dispose();
    b.dispose();
  });

  it('a per-step learning rate gives the update of an optimizer with that rate, on both backends', async () => {
    const { tied, inputs } = tiedTables(createRng(6));
    const states = [];
    for (const make of [
      (lr: number) => new CpuModel(tied.graph, { loss: tied.loss, optimizer: { lr } }),
      (lr: number) => new GpuModel(ctx, tied.graph, { loss: tied.loss, optimizer: { lr } }),
    ]) {
      const scheduled = make(1);
      const fixed = make(0.01);
      for (const m of [scheduled, fixed]) for (const [k, v] of Object.entries(inputs)) m.setInput(k, v);
      await scheduled.step({ lr: 0.01 });
      await fixed.step();
      const s = await scheduled.exportState();
      expect(worstError(s.params, (await fixed.exportState()).params, 1e-7, 1e-6)).toBeLessThanOrEqual(1);
      states.push(s.params);
      scheduled.dispose();
      fixed.dispose();
    }
    expect(worstError(states[1] as Float32Array, states[0] as Float32Array, 1e-5, 1e-4)).toBeLessThanOrEqual(
      1,
    );
  });
});

describe('MLP policy training on both backends', () => {
  it('gives the same losses and parameters after 5 AdamW steps with clipping', async () => {
    const { graph, loss } = mlpPolicyGraph(MLP, createRng(1));
    const cpu = new CpuModel(graph, { loss, optimizer: ADAM });
    const gpu = new GpuModel(ctx, graph, { loss, optimizer: ADAM });
    const lc = await trainSteps(cpu, 5, 100);
    const lg = await trainSteps(gpu, 5, 100);
    for (let i = 0; i < 5; i++)
      expect(Math.abs((lg[i] as number) - (lc[i] as number))).toBeLessThanOrEqual(1e-4);
    const sc = await cpu.exportState();
    ctx.resetCounters();
    const sg = await gpu.exportState();
    // Parameters and both Adam moments in one submission and one read-back.
    expect(ctx.resetCounters()).toMatchObject({ submissions: 1, readbacks: 1 });
    expect(sg.t).toBe(5);
    expect(worstError(sg.params, sc.params, 1e-4, 1e-3)).toBeLessThanOrEqual(1);
    expect(worstError(sg.m, sc.m, 1e-4, 1e-3)).toBeLessThanOrEqual(1);
    expect(worstError(sg.v, sc.v, 1e-4, 1e-3)).toBeLessThanOrEqual(1);
    expect(sg.v.some((x) => x > 0)).toBe(true);
    expect(lc[4]).not.toBe(lc[0]);
    gpu.dispose();
  });

  it('imports parameters alone: one upload, Adam’s state kept, the CPU backend’s forward', async () => {
    const { graph, loss } = mlpPolicyGraph(MLP, createRng(3));
    const cpu = new CpuModel(graph, { loss, optimizer: ADAM });
    const gpu = new GpuModel(ctx, graph, { loss, optimizer: ADAM });
    await trainSteps(cpu, 2, 100);
    await trainSteps(gpu, 2, 100);
    const before = await gpu.exportState();
    const params = before.params.map((x, i) => x * 0.5 + (i % 7) * 1e-3);
    ctx.resetCounters();
    gpu.importParams(params);
    expect(ctx.resetCounters()).toMatchObject({ writes: 1, writeBytes: params.length * 4 });
    cpu.importParams(params);
    const after = await gpu.exportState();
    expect(after.params).toEqual(params);
    expect(after.m).toEqual(before.m);
    expect(after.v).toEqual(before.v);
    expect(after.t).toBe(before.t);
    // A forward pass sees the new parameters on both backends.
    const lc = (await cpu.step({ backward: false })).loss;
    const lg = (await gpu.step({ backward: false })).loss;
    expect(Math.abs(lg - lc)).toBeLessThanOrEqual(1e-4);
    gpu.importParams(before.params);
    expect(Math.abs((await gpu.step({ backward: false })).loss - lg)).toBeGreaterThan(1e-6);
    // importState still writes all three arenas.
    ctx.resetCounters();
    gpu.importState(before);
    expect(ctx.resetCounters()).toMatchObject({ writes: 3, writeBytes: 3 * params.length * 4 });
    expect(() => gpu.importParams(params.subarray(1))).toThrow(/do not match/);
    expect(() => cpu.importParams(params.subarray(1))).toThrow(/do not match/);
    gpu.dispose();
  });

  it('agrees with finite differences of the GPU loss itself', async () => {
    const { graph, loss, params } = mlpPolicyGraph({ ...MLP, act: 'tanh' }, createRng(2));
    const gpu = new GpuModel(ctx, graph, { loss });
    await trainSteps(gpu, 1, 7);
    const w0 = params[0];
    if (!w0) throw new Error('no parameter');
    const analytic = await gpu.readGrad(w0);
    const base = await gpu.exportState();
    // f32 losses on the GPU: h = 1e-2 keeps rounding noise (~1e-7·|loss| / h) far below the 2e-3 tolerance.
    const h = 1e-2;
    for (const i of [0, 5, 77, 200]) {
      const lossAt = async (d: number): Promise<number> => {
        const p = base.params.slice();
        p[i] = (p[i] as number) + d;
        gpu.importState({ ...base, params: p });
        return (await gpu.step({ backward: false })).loss;
      };
      const fd = ((await lossAt(h)) - (await lossAt(-h))) / (2 * h);
      expect(Math.abs(fd - (analytic[i] as number))).toBeLessThanOrEqual(2e-3);
    }
    gpu.dispose();
  });

  it('recovers from a lost device: re-creates it, restores the host copy and continues identically', async () => {
    const gpuObj = await nodeGpu();
    const lostCtx = await GpuContext.create({ gpu: gpuObj });
    if (!lostCtx) throw new Error('no adapter');
    const lostReasons: string[] = [];
    const ref = await GpuContext.create({ gpu: gpuObj });
    if (!ref) throw new Error('no adapter');
    const mk = (c: GpuContext): GpuModel => {
      const { graph, loss } = mlpPolicyGraph(MLP, createRng(4));
      return new GpuModel(c, graph, { loss, optimizer: ADAM, hostSyncEvery: 3 });
    };
    const a = mk(lostCtx);
    const b = mk(ref);
    const la = await trainSteps(a, 3, 500);
    const lb = await trainSteps(b, 3, 500);
    expect(la).toEqual(lb);
    const lostPromise = lostCtx.device.lost.then((i) => lostReasons.push(i.reason));
    lostCtx.device.destroy();
    await lostPromise;
    expect(lostCtx.lost).toBe(true);
    // Steps 3..5 after the loss: the model rebuilds on a new device from the host copy taken at t = 3.
    const la2 = await trainSteps(a, 3, 500, 3);
    const lb2 = await trainSteps(b, 3, 500, 3);
    expect(a.recoveries).toBe(1);
    expect(lostCtx.generation).toBe(1);
    expect(lostReasons).toEqual(['destroyed']);
    for (let i = 0; i < 3; i++)
      expect(Math.abs((la2[i] as number) - (lb2[i] as number))).toBeLessThanOrEqual(1e-6);
    const sa = await a.exportState();
    const sb = await b.exportState();
    expect(sa.t).toBe(6);
    expect(worstError(sa.params, sb.params, 1e-6, 1e-5)).toBeLessThanOrEqual(1);
    a.dispose();
    b.dispose();
    lostCtx.dispose();
    ref.dispose();
  });
});

describe('scatter of rows with thousands of sources (two passes, chunks of 64)', () => {
  // Rows of more than 64 sources are summed per chunk, then the chunks in order: another order of
  // the same f32 terms than the CPU's one pass, so these compare within |Δ| ≤ 1e-4 + 1e-4·|ref|
  // (about 5,000 terms of size ≤ 1); rows of ≤ 64 sources stay bit for bit (the test above).
  const TOL = { abs: 1e-4, rel: 1e-4 };
  it('sums crowded, sparse and empty rows like the CPU, forward and as a gather gradient', async () => {
    const [R, C, D] = [5003, 7, 13];
    const rng = createRng(8);
    const g = new Graph();
    const idx = g.input('idx', [R], 'u32');
    const src = g.param('src', [R, C], uniform(rng, R * C, 1));
    const out = g.scatterAddRows(src, idx, D);
    const table = g.param('table', [D, C], uniform(rng, D * C, 1));
    const read = g.gatherRows(table, idx);
    const loss = g.add(
      g.sum(g.sum(g.mul(out, g.input('w', [D, C])))),
      g.sum(g.sum(g.mul(read, g.input('w2', [R, C])))),
    );
    // Row 1 takes ~4,000 sources, row 3 ~1,000, row 7 exactly 64, row 8 65, rows 0, 2 and 12 none.
    const ids = Uint32Array.from({ length: R }, (_, i) =>
      i < 64 ? 7 : i < 129 ? 8 : i % 5 === 0 ? 3 : i % 97 === 0 ? 4 + (i % 3) : 1,
    );
    const cpu = new CpuModel(g, { loss });
    const gpu = new GpuModel(ctx, g, { loss });
    for (const m of [cpu, gpu]) {
      m.setInput('idx', ids);
      m.setInput('w', uniform(createRng(1), D * C, 1));
      m.setInput('w2', uniform(createRng(2), R * C, 1));
    }
    await cpu.step();
    await gpu.step();
    const [a, b] = [await gpu.read(out), await cpu.read(out)];
    expect(worstError(a, b, TOL.abs, TOL.rel)).toBeLessThanOrEqual(1);
    for (const r of [0, 2, 12]) expect(a.subarray(r * C, (r + 1) * C).every((x) => x === 0)).toBe(true);
    // A row of exactly 64 sources is one chunk: the CPU's sum, bit for bit.
    expect(a.subarray(7 * C, 8 * C)).toEqual(b.subarray(7 * C, 8 * C));
    expect(
      worstError(await gpu.readGrad(table), await cpu.readGrad(table), TOL.abs, TOL.rel),
    ).toBeLessThanOrEqual(1);
    expect(
      worstError(await gpu.readGrad(src), await cpu.readGrad(src), TOL.abs, TOL.rel),
    ).toBeLessThanOrEqual(1);
    gpu.dispose();
  });
});

describe('scatter and gather gradients through per-row source lists', () => {
  // out = scatterAddRows(src, idx, D) and a table read by gatherRows(table, idx): both sum rows in
  // increasing source position from zero on both backends, so forward sums and a singly-read
  // table's gradient are equal bit for bit, not just within tolerance.
  const [R, C, D, T] = [37, 6, 11, 9];
  const build = (): { g: Graph; out: Tensor; table: Tensor; loss: Tensor } => {
    const g = new Graph();
    const r = createRng(21);
    const idx = g.input('idx', [R], 'u32');
    const out = g.scatterAddRows(g.param('src', [R, C], uniform(r, R * C, 1)), idx, D);
    const table = g.param('table', [T, C], uniform(r, T * C, 1));
    const read = g.gatherRows(table, g.input('idx2', [R], 'u32'));
    const loss = g.add(g.sum(g.sum(g.mul(out, g.input('w', [D, C])))), g.sum(g.sum(g.mul(read, read))));
    return { g, out, table, loss };
  };
  const patterns = (seed: number): Record<string, Uint32Array | Float32Array>[] => {
    const rng = createRng(seed);
    return [
      // Random, then descending with rows 0 and D − 1 empty, then all into one row.
      {
        idx: Uint32Array.from({ length: R }, () => rng.int(D)),
        idx2: Uint32Array.from({ length: R }, () => rng.int(T)),
      },
      {
        idx: Uint32Array.from({ length: R }, (_, i) => D - 2 - (i % (D - 2))),
        idx2: Uint32Array.from({ length: R }, (_, i) => T - 1 - (i % 3)),
      },
      { idx: new Uint32Array(R).fill(5), idx2: new Uint32Array(R).fill(0) },
    ].map((p) => ({ ...p, w: uniform(rng, D * C, 1) }));
  };

  it('match the CPU bit for bit as the indices change between steps, and repeat run to run', async () => {
    const { g, out, table, loss } = build();
    const cpu = new CpuModel(g, { loss });
    const gpu = new GpuModel(ctx, g, { loss });
    const again = new GpuModel(ctx, g, { loss });
    for (const inputs of patterns(5)) {
      for (const m of [cpu, gpu, again]) for (const [k, v] of Object.entries(inputs)) m.setInput(k, v);
      await Promise.all([cpu.step(), gpu.step(), again.step()]);
      const ref = await cpu.read(out);
      expect(ref.some((x) => x !== 0)).toBe(true);
      expect(await gpu.read(out)).toEqual(ref);
      expect(await again.read(out)).toEqual(await gpu.read(out));
      expect(await gpu.readGrad(table)).toEqual(await cpu.readGrad(table));
    }
    gpu.dispose();
    again.dispose();
  });

  it('rebuild the lists from the last indices on a new device after a loss', async () => {
    const lostCtx = await GpuContext.create({ gpu: await nodeGpu() });
    if (!lostCtx) throw new Error('no adapter');
    const { g, out, table, loss } = build();
    const cpu = new CpuModel(g, { loss });
    const gpu = new GpuModel(lostCtx, g, { loss });
    const [first, second] = patterns(8) as [
      Record<string, Uint32Array | Float32Array>,
      Record<string, Uint32Array | Float32Array>,
    ];
    for (const m of [cpu, gpu]) for (const [k, v] of Object.entries(first)) m.setInput(k, v);
    await gpu.step();
    const lost = lostCtx.device.lost;
    lostCtx.device.destroy();
    await lost;
    // Set while the device is lost: only the host copy changes; the rebuild uploads it.
    for (const m of [cpu, gpu]) for (const [k, v] of Object.entries(second)) m.setInput(k, v);
    await Promise.all([cpu.step(), gpu.step()]);
    expect(gpu.recoveries).toBe(1);
    expect(await gpu.read(out)).toEqual(await cpu.read(out));
    expect(await gpu.readGrad(table)).toEqual(await cpu.readGrad(table));
    gpu.dispose();
    lostCtx.dispose();
  });
});

describe('live rows (setInput rows) on WebGPU', () => {
  // Rows past the live count are padding: NaN here, so any live result that read one would be NaN.
  const R = 4096;
  const build = () => {
    const rng = createRng(11);
    const g = new Graph();
    const x = g.input('x', [R, 8]);
    const idx = g.input('idx', [R], 'u32');
    const w = g.param('w', [8, 6], uniform(rng, 48, 0.5));
    const b = g.param('b', [6], uniform(rng, 6, 0.1));
    const gamma = g.param('gamma', [6], uniform(rng, 6, 1));
    const beta = g.param('beta', [6], uniform(rng, 6, 0.1));
    const h = g.linear(x, w, b, 'tanh');
    const sm = g.logSoftmax(g.layerNorm(h, gamma, beta));
    const scat = g.scatterAddRows(g.gatherRows(h, idx), idx, 10);
    const loss = g.add(g.sum(g.sum(g.mul(sm, g.input('wt', [R, 6])))), g.sum(g.sum(scat)));
    return { g, loss, params: [w, b, gamma, beta], sm, scat };
  };
  const feed = (
    m: { setInput(n: string, d: Float32Array | Uint32Array, r?: number): void },
    live: number,
  ) => {
    const rng = createRng(5);
    const x = Float32Array.from({ length: R * 8 }, (_, i) => (i < live * 8 ? rng.next() - 0.5 : NaN));
    const wt = Float32Array.from({ length: R * 6 }, (_, i) => (i < live * 6 ? rng.next() : NaN));
    const idx = Uint32Array.from({ length: R }, (_, i) => (i < live ? rng.int(Math.min(live, 10)) : 7));
    m.setInput('x', x, live);
    m.setInput('wt', wt, live);
    m.setInput('idx', idx, live);
  };

  it('size dispatches by live rows: workgroups scale with them, live results equal the CPU, padding is never read', async () => {
    const counts: number[] = [];
    for (const live of [R, 100, 37]) {
      const { g, loss, params, sm, scat } = build();
      const gpu = new GpuModel(ctx, g, { loss });
      const cpu = new CpuModel(g, { loss });
      if (live === R) {
        // All rows live: the same graph without padding data.
        feed(gpu, R);
        feed(cpu, R);
      } else {
        feed(gpu, live);
        feed(cpu, live);
      }
      ctx.resetCounters();
      const rg = await gpu.step();
      counts.push(ctx.counters.workgroups);
      const rc = await cpu.step();
      expect(Number.isFinite(rg.loss)).toBe(true);
      expect(Math.abs(rg.loss - rc.loss)).toBeLessThanOrEqual(1e-4 * Math.max(1, Math.abs(rc.loss)));
      const a = (await gpu.read(sm)).subarray(0, live * 6);
      expect(worstError(a, (await cpu.read(sm)).subarray(0, live * 6), FWD.abs, FWD.rel)).toBeLessThanOrEqual(
        1,
      );
      expect(worstError(await gpu.read(scat), await cpu.read(scat), FWD.abs, FWD.rel)).toBeLessThanOrEqual(1);
      for (const p of params) {
        const [gg, gc] = [await gpu.readGrad(p), await cpu.readGrad(p)];
        expect(
          worstError(gg, gc, GRAD.abs, GRAD.rel),
          `grad ${p.id}, ${live} live: ${gg.join()} vs ${gc.join()}`,
        ).toBeLessThanOrEqual(1);
      }
      gpu.dispose();
    }
    const [all, hundred, few] = counts as [number, number, number];
    // 4096 live rows vs 100: the row-wise calls shrink about 40-fold; fixed-size calls (parameter
    // gradients, scatter outputs, Adam-free grad norm) stay.
    expect(hundred).toBeLessThan(all / 10);
    expect(few).toBeLessThanOrEqual(hundred);
  });

  it('re-sizes when the live rows change between steps of one model', async () => {
    const { g, loss } = build();
    const gpu = new GpuModel(ctx, g, { loss });
    const cpu = new CpuModel(g, { loss });
    for (const live of [50, R, 9, 50]) {
      feed(gpu, live);
      feed(cpu, live);
      const [rg, rc] = [await gpu.step(), await cpu.step()];
      expect(Math.abs(rg.loss - rc.loss)).toBeLessThanOrEqual(1e-4 * Math.max(1, Math.abs(rc.loss)));
      expect(Math.abs(rg.gradNorm - rc.gradNorm)).toBeLessThanOrEqual(1e-3 * Math.max(1, rc.gradNorm));
    }
    gpu.dispose();
  });
});

describe('device plumbing', () => {
  it('setInput uploads only the words that changed, and nothing for the same data', async () => {
    const g = new Graph();
    const x = g.input('x', [1000]);
    const idx = g.input('idx', [6], 'u32');
    const y = g.scatterAddRows(g.unary('exp', g.input('rows', [6, 3])), idx, 4);
    const m = new GpuModel(ctx, g);
    const data = Float32Array.from({ length: 1000 }, (_, i) => i);
    m.setInput('x', data);
    ctx.resetCounters();
    m.setInput('x', data.slice());
    expect(ctx.counters.writeBytes).toBe(0);
    data[500] = -1;
    data[502] = -2;
    m.setInput('x', data);
    expect(ctx.counters).toMatchObject({ writes: 1, writeBytes: 12 });
    expect(await m.read(x)).toEqual(data);
    // An index input rewrites its per-row lists only where they changed; the scatter sees the new index.
    m.setInput(
      'rows',
      Float32Array.from({ length: 18 }, (_, i) => i / 10),
    );
    m.setInput('idx', Uint32Array.from([0, 1, 2, 3, 0, 1]));
    ctx.resetCounters();
    m.setInput('idx', Uint32Array.from([0, 1, 2, 3, 0, 1]));
    expect(ctx.counters.writes).toBe(0);
    m.setInput('idx', Uint32Array.from([0, 1, 2, 3, 0, 3]));
    expect(ctx.counters.writes).toBeGreaterThan(0);
    expect(ctx.counters.writeBytes).toBeLessThan(4 * (6 + 5 + 6));
    await m.step();
    const out = await m.read(y);
    expect(out[3 * 3]).toBeCloseTo(Math.exp(0.9) + Math.exp(1.5), 5);
    expect(out[1 * 3]).toBeCloseTo(Math.exp(0.3), 5);
    m.dispose();
  });

  it('reports the adapter and picks a CPU backend (wasm SIMD here) on a software adapter in auto mode', async () => {
    const gpu = await nodeGpu();
    const choice = await chooseBackend('auto', { gpu });
    expect(choice.adapter).not.toBeNull();
    // Node has WebAssembly SIMD, so the CPU side of the choice is the wasm backend.
    expect(choice.backend).toBe(choice.adapter?.software ? 'wasm' : 'webgpu');
    if (choice.adapter?.software) expect(choice.reason).toMatch(/software adapter/);
    console.log(`[gpu tests] auto backend: ${choice.backend} (${choice.reason})`);
    const forced = await chooseBackend('webgpu', { gpu });
    expect(forced.backend).toBe('webgpu');
    forced.ctx?.dispose();
    choice.ctx?.dispose();
    expect((await chooseBackend('cpu', { gpu })).backend).toBe('cpu');
  });

  it('collects uncaptured validation errors', async () => {
    const seen: string[] = [];
    const c = await GpuContext.create({ gpu: await nodeGpu(), onError: (m) => seen.push(m) });
    if (!c) throw new Error('no adapter');
    // MAP_READ may only be combined with COPY_DST: a validation error nobody captures.
    c.device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.STORAGE });
    await c.device.queue.onSubmittedWorkDone();
    await new Promise((r) => setTimeout(r, 50));
    expect(c.errors.length).toBe(1);
    expect(seen).toEqual(c.errors);
    c.dispose();
  });

  it('models on one device share the pipeline cache and reuse disposed buffers', async () => {
    const { pool, pipelines } = deviceCaches(ctx.device);
    const { graph, loss } = mlpPolicyGraph(MLP, createRng(9));
    const a = new GpuModel(ctx, graph, { loss, optimizer: ADAM });
    const live = pool.liveCount;
    const created = pool.created;
    const compiled = pipelines.size;
    a.dispose();
    expect(pool.liveCount).toBeLessThan(live);
    const b = new GpuModel(ctx, graph, { loss, optimizer: ADAM });
    expect(pool.created).toBe(created);
    expect(pool.liveCount).toBe(live);
    expect(pipelines.size).toBe(compiled);
    const inp = mlpPolicyInputs(MLP, createRng(1));
    b.setInput('obs', inp.obs);
    b.setInput('mask', inp.mask);
    b.setInput('actions', inp.actions);
    b.setInput('adv', inp.adv);
    expect(Number.isFinite((await b.step()).loss)).toBe(true);
    b.dispose();
  });

  it('pipeline cache compiles once per kernel and constants', () => {
    const cache = new PipelineCache(ctx.device);
    const a = cache.get('matmul', { TRANS_A: 1, TRANS_B: 0, ACCUMULATE: 0 });
    const b = cache.get('matmul', { ACCUMULATE: 0, TRANS_B: 0, TRANS_A: 1 });
    const c = cache.get('matmul', { TRANS_A: 0, TRANS_B: 0, ACCUMULATE: 0 });
    expect(a).toBe(b);
    expect(c).not.toBe(a);
    expect(cache.size).toBe(2);
  });

  it('buffer pool reuses released buffers of the same size class', () => {
    const pool = new BufferPool(ctx.device);
    const usage = GPUBufferUsage.STORAGE;
    const a = pool.acquire(1000, usage);
    expect(a.size).toBe(1024);
    pool.release(a);
    const b = pool.acquire(900, usage);
    expect(b).toBe(a);
    const c = pool.acquire(900, usage);
    expect(c).not.toBe(a);
    expect(pool.liveCount).toBe(2);
    pool.destroy();
  });
});
