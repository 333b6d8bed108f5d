/**
 * The fused dispatches of plan-fuse.ts: which runs become one kernel, how many dispatches a step
 * saves (GpuContext.counters), and that every value and gradient keeps its bits: against the CPU
 * reference where the CPU computes the same f32 operations in the same order, and against the
 * unfused plan (`fuse: false`) everywhere, with odd sizes, padding rows (live rows) and rows of
 * thousands of scatter sources. Runs on a real WebGPU adapter (SwiftShader when there is no GPU).
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../core/rng.ts';
import { CpuModel } from '../cpu/model.ts';
import type { Activation, Tensor } from '../graph.ts';
import { backwardOrder, Graph, size } from '../graph.ts';
import { uniform } from '../init.ts';
import { paramLayout } from '../layout.ts';
import { worstError } from '../testing/cases.ts';
import { liveRows } from './live.ts';
import { GpuModel } from './model.ts';
import { buildPlan } from './plan.ts';
import { useGpuContext } from '../testing/gpu-context.ts';

const context = useGpuContext();

const bits = (x: Float32Array): Uint32Array => new Uint32Array(x.buffer, x.byteOffset, x.length);

interface Sizes {
  /** Node rows (scatter destinations). */
  R: number;
  C: number;
  /** Edges (gather and scatter sources). */
  E: number;
  /** Rows of the token-like table T. */
  V: number;
}

/**
 * A message-passing layer of the policy's shape, with parameter tables in place of the products
 * that would feed it (so that the CPU reference does every f32 operation the GPU does, in its
 * order): edge messages gathered and scaled (gather → mul), summed into nodes (scatter), a sum of
 * three terms and its activation, edge features from two gathers, a product of two gathered terms.
 * Each fused kernel and each operand side occurs; the comments name what the plan fuses.
 */
function messageGraph(s: Sizes, act: Activation, seed: number) {
  const { R, C, E, V } = s;
  const rng = createRng(seed);
  const g = new Graph();
  const param = (name: string, r: number, c: number): Tensor => g.param(name, [r, c], uniform(rng, r * c, 1));
  // Each table is read once: a table read twice sums its gradient in another order on the CPU.
  const [h, hb, h2, h2b, T, Tb] = [
    param('h', R, C),
    param('hb', R, C),
    param('h2', R, C),
    param('h2b', R, C),
    param('T', V, C),
    param('Tb', V, C),
  ];
  const b = g.param('b', [C], uniform(rng, C, 0.5));
  const src = g.input('src', [E], 'u32');
  const dst = g.input('dst', [E], 'u32');
  const vid = g.input('vid', [E], 'u32');
  const w = g.input('w', [E, C]);
  // gather_binary (gathered a, mul); backward: gather_grad (WHICH 0).
  const s1 = g.scatterAddRows(g.mul(g.gatherRows(h, src), w), dst, R);
  // gather_binary (gathered b, mul); backward: gather_grad (WHICH 1).
  const s2 = g.scatterAddRows(g.mul(w, g.gatherRows(hb, dst)), src, R);
  // binary_bias_act (CHAIN 2, the sum as operand b of the sub); backward: binary_grad_chain.
  const z = g.biasAct(g.sub(s2, g.add(h2, s1)), b, act);
  // gather_binary (gathered b, sub); backward: gather_grad (sub, WHICH 1).
  const s3 = g.scatterAddRows(g.sub(w, g.gatherRows(h2b, src)), dst, R);
  // binary_bias_act (CHAIN 1, no bias); backward: binary_grad_pair (sub).
  const z2 = g.biasAct(g.sub(z, s3), null, act);
  // gather_binary with both gathers; backward: binary_grad_pair (add).
  const e = g.add(g.gatherRows(z2, src), g.gatherRows(T, vid));
  // gather_binary (gathered b, mul); backward: binary_grad_pair (mul).
  const q = g.mul(e, g.gatherRows(Tb, vid));
  // Not fused: both gradients of q·q are q's (one buffer), and the forward mul feeds no gather.
  const loss = g.sum(g.sum(g.mul(q, q)));
  return { g, loss, params: { h, hb, h2, h2b, T, Tb, b } };
}

/** Inputs of messageGraph; `hub` sends every edge but a few to destination row 0. */
function messageInputs(s: Sizes, seed: number, hub = false): Record<string, Float32Array | Uint32Array> {
  const rng = createRng(seed);
  const u = (n: number) => Uint32Array.from({ length: s.E }, () => rng.int(n));
  const dst = hub
    ? Uint32Array.from({ length: s.E }, (_, i) => (i % 97 === 5 ? 1 + rng.int(s.R - 1) : 0))
    : u(s.R);
  return { src: u(s.R), dst, vid: u(s.V), w: uniform(rng, s.E * s.C, 1) };
}

type Models = { cpu: CpuModel; fused: GpuModel; plain: GpuModel };

async function run(
  g: Graph,
  loss: Tensor,
  inputs: Record<string, Float32Array | Uint32Array>,
  live?: number,
) {
  const m: Models = {
    cpu: new CpuModel(g, { loss }),
    fused: new GpuModel(context(), g, { loss }),
    plain: new GpuModel(context(), g, { loss, fuse: false }),
  };
  for (const model of [m.cpu, m.fused, m.plain])
    for (const [k, v] of Object.entries(inputs)) model.setInput(k, v, live);
  const [rc, rf, rp] = [await m.cpu.step(), await m.fused.step(), await m.plain.step()];
  return { m, rc, rf, rp };
}

/** Every value and gradient of the graph, live rows only (padding rows are nobody's result). */
async function everything(
  g: Graph,
  model: CpuModel | GpuModel,
  live: Int32Array,
): Promise<Map<string, Float32Array>> {
  const out = new Map<string, Float32Array>();
  for (const n of g.nodes) {
    if (n.dtype === 'u32' || n.op.kind === 'input') continue;
    const inner = size(n.shape) / Math.max(1, n.shape[0] ?? 1);
    const keep = n.shape.length === 0 ? 1 : (live[n.id] as number) * inner;
    out.set(`value ${n.id} ${n.op.kind}`, (await model.read(n)).subarray(0, keep));
    if (!n.requiresGrad) continue;
    const gr = await model.readGrad(n).catch(() => null);
    if (gr) out.set(`grad ${n.id} ${n.op.kind}`, gr.subarray(0, keep));
  }
  return out;
}

function expectSameBits(a: Map<string, Float32Array>, b: Map<string, Float32Array>, what: string): void {
  expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
  for (const [k, x] of a) expect(bits(x), `${what}: ${k}`).toEqual(bits(b.get(k) as Float32Array));
}

describe('fused dispatches (plan-fuse.ts)', () => {
  const S: Sizes = { R: 13, C: 7, E: 61, V: 9 };

  it('plans each fused kernel, and keeps apart runs it must not fuse', () => {
    const { g, loss } = messageGraph(S, 'relu', 1);
    const plan = buildPlan(g, paramLayout(g), backwardOrder(g, loss.id), 0);
    const kernels = (calls: { kernel: string; constants: Record<string, number> }[]) =>
      calls.map((c) => c.kernel + (c.kernel === 'binary_bias_act' ? c.constants.CHAIN : ''));
    const count = (list: string[], k: string) => list.filter((x) => x === k).length;
    const fwd = kernels(plan.forward);
    const bwd = kernels(plan.backward);
    expect(count(fwd, 'gather_binary')).toBe(5);
    expect(count(fwd, 'binary_bias_act2')).toBe(1);
    expect(count(fwd, 'binary_bias_act1')).toBe(1);
    // The only forward binary left: q·q (nothing to fuse it with).
    expect(count(fwd, 'binary')).toBe(1);
    expect(count(fwd, 'gather_rows')).toBe(0);
    expect(count(bwd, 'gather_grad')).toBe(3);
    // The sub and the add of z: one chain of four gradients; the other three ops: pairs, z2's sub
    // with the gradient of its activation (the bias-free bias_act before it).
    expect(count(bwd, 'binary_grad_chain')).toBe(1);
    expect(count(bwd, 'binary_grad_pair')).toBe(2);
    expect(count(bwd, 'bias_act_grad_pair')).toBe(1);
    // q·q: both gradients are q's, one buffer that one dispatch may not bind twice for writing:
    // the first goes with the gradient of the sum of q·q's rows, the second alone.
    expect(count(bwd, 'reduce_grad_binary')).toBe(1);
    expect(count(bwd, 'binary_grad')).toBe(1);
    // Each scatter in both forms (one dispatched, by the lengths of its lists): 3 scatterAddRows
    // forward, 6 gatherRows backward.
    for (const k of ['scatter_rows', 'scatter_partial', 'scatter_add_rows']) {
      expect(count(fwd, k)).toBe(3);
      expect(count(bwd, k)).toBe(6);
    }

    // A product before an addition stays two dispatches (a compiler could contract them into an
    // FMA with other bits); so does a binary op reading one gathered tensor twice.
    const h = new Graph();
    const x = h.input('x', [5, 3]);
    h.biasAct(h.mul(x, h.input('y', [5, 3])), h.param('c', [3], new Float32Array(3)), 'none');
    const t = h.gatherRows(h.param('t', [4, 3], new Float32Array(12)), h.input('i', [5], 'u32'));
    h.add(t, t);
    const p2 = buildPlan(h, paramLayout(h), [], 0);
    expect(p2.forward.map((c) => c.kernel)).toEqual(['binary', 'bias_act', 'gather_rows', 'binary']);

    // Two parameters share the parameter arena but are different tensors: their softmaxes stay
    // apart (and so do the gradients, which share the gradient arena).
    const k = new Graph();
    const sm = k.softmax(k.param('p1', [4, 5], new Float32Array(20)));
    const lsm = k.logSoftmax(k.param('p2', [4, 5], new Float32Array(20)));
    const l = k.add(k.sum(k.sum(sm)), k.sum(k.sum(lsm)));
    const p3 = buildPlan(k, paramLayout(k), backwardOrder(k, l.id), 0);
    expect(p3.forward.filter((c) => c.kernel.startsWith('softmax')).map((c) => c.kernel)).toEqual([
      'softmax',
      'softmax',
    ]);
  });

  it('cuts the dispatches of a training step; counted by GpuContext.counters', async () => {
    const { g, loss } = messageGraph(S, 'relu', 1);
    const inputs = messageInputs(S, 2);
    const counts: number[] = [];
    for (const fuse of [true, false]) {
      const m = new GpuModel(context(), g, { loss, fuse, optimizer: { lr: 0.01 } });
      for (const [k, v] of Object.entries(inputs)) m.setInput(k, v);
      context().resetCounters();
      await m.step();
      counts.push(context().resetCounters().dispatches);
      m.dispose();
    }
    const [fused, plain] = counts as [number, number];
    // 9 forward dispatches saved (5 gather_binary calls for 6 gathers, two bias chains of 3 and
    // 2 calls) and 12 backward ones (3 gather_grad, 3 binary_grad_pair, a binary_grad_chain of 4
    // gradients, the bias column sum over 13 rows in one pass, the row sum's gradient with one of
    // q·q's, z2's activation gradient with its sub's pair), and one of the two passes of each
    // of the 9 scatters (61 sources over 13 or 9 rows: short lists); the unfused plan, which is
    // the plan before fusion, fails the bound.
    expect(plain).toBe(64);
    expect(fused).toBeLessThanOrEqual(34);
    expect(plain - fused).toBe(21 + 9);
  });

  for (const act of ['none', 'relu'] as const) {
    it(`gives the CPU reference's bits and the unfused plan's (act ${act}; all rows, then padding rows)`, async () => {
      const { g, loss, params } = messageGraph(S, act, 3);
      for (const live of [undefined, 40, 1]) {
        const inputs = messageInputs(S, 4 + (live ?? 0));
        const { m, rc, rf, rp } = await run(g, loss, inputs, live);
        const L = liveRows(g, new Map(live === undefined ? [] : g.inputs().map((n) => [n.id, live])));
        const [cpu, fused, plain] = await Promise.all([
          everything(g, m.cpu, L),
          everything(g, m.fused, L),
          everything(g, m.plain, L),
        ]);
        expectSameBits(fused, plain, `fused vs unfused, ${live ?? 'all'} live`);
        // Row sums (the loss's reduce nodes) add in another order on the CPU; all else is exact.
        for (const [k, x] of fused) {
          const ref = cpu.get(k) as Float32Array;
          if (k.startsWith('value') && k.endsWith('reduce'))
            expect(worstError(x, ref, 1e-5, 1e-5), k).toBeLessThanOrEqual(1);
          else expect(bits(x), `fused vs CPU, ${live ?? 'all'} live: ${k}`).toEqual(bits(ref));
        }
        for (const p of Object.values(params))
          expect(bits(await m.fused.readGrad(p))).toEqual(bits(await m.cpu.readGrad(p)));
        // Not vacuous: with every row live, the gradient reaches the first table through each run.
        if (live === undefined) expect((await m.fused.readGrad(params.h)).some((x) => x !== 0)).toBe(true);
        expect(rf.loss).toBe(rp.loss);
        expect(rf.gradNorm).toBe(rp.gradNorm);
        expect(Math.abs(rf.loss - rc.loss)).toBeLessThanOrEqual(1e-4 * Math.max(1, Math.abs(rc.loss)));
        m.fused.dispose();
        m.plain.dispose();
      }
    });
  }

  for (const act of ['tanh', 'sigmoid', 'gelu'] as const) {
    it(`gives the unfused plan's bits with ${act} (the CPU's within rounding)`, async () => {
      const sizes: Sizes = { R: 29, C: 33, E: 300, V: 11 };
      const { g, loss } = messageGraph(sizes, act, 5);
      const { m } = await run(g, loss, messageInputs(sizes, 6), 257);
      const L = liveRows(g, new Map(g.inputs().map((n) => [n.id, 257])));
      const [cpu, fused, plain] = await Promise.all([
        everything(g, m.cpu, L),
        everything(g, m.fused, L),
        everything(g, m.plain, L),
      ]);
      expectSameBits(fused, plain, act);
      for (const [k, x] of fused)
        expect(worstError(x, cpu.get(k) as Float32Array, 1e-4, 1e-3), k).toBeLessThanOrEqual(1);
      m.fused.dispose();
      m.plain.dispose();
    });
  }

  it("switches between one-pass and two-pass scatters as the lists change, with the unfused plan's bits", async () => {
    // Up to 4099 sources per destination row: the two passes; 700 or 900 live sources over 6 or 7
    // rows (about 100–150 per row, two or three chunks of 64): the one pass.
    const sizes: Sizes = { R: 6, C: 5, E: 4099, V: 7 };
    const { g, loss } = messageGraph(sizes, 'relu', 7);
    const cpu = new CpuModel(g, { loss });
    const fused = new GpuModel(context(), g, { loss });
    const plain = new GpuModel(context(), g, { loss, fuse: false });
    const steps = [
      { live: 700, hub: false, saved: 21 + 9 },
      { live: undefined, hub: true, saved: 21 },
      { live: 900, hub: false, saved: 21 + 9 },
      { live: 3001, hub: true, saved: 21 },
    ];
    for (const [i, st] of steps.entries()) {
      const inputs = messageInputs(sizes, 8 + i, st.hub);
      if (st.hub) expect(inputs.dst?.filter((d) => d === 0).length).toBeGreaterThan(4000);
      for (const m of [cpu, fused, plain])
        for (const [k, v] of Object.entries(inputs)) m.setInput(k, v, st.live);
      await cpu.step();
      context().resetCounters();
      await plain.step();
      const planned = context().resetCounters().dispatches;
      await fused.step();
      // 9 scatters (3 forward, 6 gather backward): each one dispatch instead of two while short.
      expect(planned - context().resetCounters().dispatches, `step ${i}`).toBe(st.saved);
      const L = liveRows(g, new Map(st.live === undefined ? [] : g.inputs().map((n) => [n.id, st.live])));
      const [c, f, p] = [
        await everything(g, cpu, L),
        await everything(g, fused, L),
        await everything(g, plain, L),
      ];
      expectSameBits(f, p, `step ${i}`);
      for (const [k, x] of f)
        expect(worstError(x, c.get(k) as Float32Array, 1e-3, 1e-3), k).toBeLessThanOrEqual(1);
    }
    fused.dispose();
    plain.dispose();
  });

  it("softmax and log-softmax of one tensor: one dispatch forward and one backward, the unfused plan's bits", async () => {
    // Odd sizes; a per-row mask with some rows fully masked (all 0 / all MASKED, no gradient).
    const [R, C] = [37, 13];
    const rng = createRng(12);
    const g = new Graph();
    const x = g.add(g.param('x', [R, C], uniform(rng, R * C, 3)), g.input('shift', [R, C]));
    const mask = g.input('mask', [R, C]);
    const probs = g.softmax(x, mask);
    const logp = g.logSoftmax(x, mask);
    const loss = g.sum(g.sum(g.mul(probs, g.add(logp, g.input('adv', [R, C])))));
    const plan = buildPlan(g, paramLayout(g), backwardOrder(g, loss.id), 0);
    expect(plan.forward.filter((c) => c.kernel.startsWith('softmax')).map((c) => c.kernel)).toEqual([
      'softmax_pair',
    ]);
    expect(plan.backward.filter((c) => c.kernel.startsWith('softmax')).map((c) => c.kernel)).toEqual([
      'softmax_grad_pair',
    ]);
    const inputs = {
      shift: uniform(rng, R * C, 1),
      mask: Float32Array.from({ length: R * C }, (_, i) =>
        Math.floor(i / C) % 7 === 3 ? 0 : rng.next() < 0.7 ? 1 : 0,
      ),
      adv: uniform(rng, R * C, 1),
    };
    const { m: models } = await run(g, loss, inputs);
    const L = liveRows(g, new Map());
    const [cpu, fused, plain] = [
      await everything(g, models.cpu, L),
      await everything(g, models.fused, L),
      await everything(g, models.plain, L),
    ];
    expectSameBits(fused, plain, 'softmax');
    for (const [k, v] of fused)
      expect(worstError(v, cpu.get(k) as Float32Array, 1e-4, 1e-3), k).toBeLessThanOrEqual(1);
    const gx = await models.fused.readGrad(g.node(x.id));
    expect(gx.some((v) => v !== 0)).toBe(true);
    // Fully masked rows (r % 7 = 3): no gradient.
    expect(gx.subarray(3 * C, 4 * C).every((v) => v === 0)).toBe(true);
    models.fused.dispose();
    models.plain.dispose();
  });

  it("sums bias columns in one dispatch with the unfused plan's bits, over live rows", async () => {
    // 200 planned rows (four blocks of 64): one invocation per column; 300 rows and 256 blocks
    // (16,384 rows): one workgroup per column; 257 blocks: the two levels.
    const want = (R: number): string[] =>
      R <= 256 ? ['col_rows'] : R <= 256 * 64 ? ['col_blocks'] : ['col_partial', 'col_sum'];
    for (const R of [200, 300, 16384, 16385]) {
      const C = 11;
      const rng = createRng(R);
      const g = new Graph();
      const x = g.input('x', [R, C]);
      const b = g.param('b', [C], uniform(rng, C, 1));
      const loss = g.sum(g.sum(g.mul(g.biasAct(x, b, 'relu'), g.input('w', [R, C]))));
      const plan = buildPlan(g, paramLayout(g), backwardOrder(g, loss.id), 0);
      const kernels = plan.backward.map((c) => c.kernel).filter((k) => k.startsWith('col'));
      expect(kernels).toEqual(want(R));
      for (const live of [R, R - 1, 131, 64, 1]) {
        const inputs = { x: uniform(rng, R * C, 2), w: uniform(rng, R * C, 1) };
        const { m } = await run(g, loss, inputs, live);
        const [gf, gp, gc] = [await m.fused.readGrad(b), await m.plain.readGrad(b), await m.cpu.readGrad(b)];
        expect(bits(gf), `${R} rows, ${live} live`).toEqual(bits(gp));
        // Up to 64 rows the CPU adds in the same order; beyond, blocks of 64 then their sums.
        if (live <= 64) expect(bits(gf)).toEqual(bits(gc));
        else expect(worstError(gf, gc, 1e-5, 1e-5)).toBeLessThanOrEqual(1);
        expect(gf.some((v) => v !== 0)).toBe(true);
        m.fused.dispose();
        m.plain.dispose();
      }
    }
  });

  it('fuses a run past a call that shares no buffer with it, and not past one that reads it', async () => {
    const [R, C] = [45, 9];
    const build = (dependent: boolean) => {
      const rng = createRng(21);
      const g = new Graph();
      const a = g.add(g.input('u', [R, C]), g.input('v', [R, C]));
      const W = g.param('W', [C, C], uniform(rng, C * C, 1));
      // The product is planned between the sum and the sum that reads both.
      const y = g.matmul(dependent ? a : g.input('x', [R, C]), W);
      const z = g.biasAct(g.add(a, y), g.param('b', [C], uniform(rng, C, 1)), 'relu');
      const loss = g.sum(g.sum(g.mul(z, g.input('w', [R, C]))));
      return { g, loss };
    };
    const kinds = (dependent: boolean) => {
      const { g, loss } = build(dependent);
      return buildPlan(g, paramLayout(g), backwardOrder(g, loss.id), 0).forward.map(
        (c) => c.kernel + (c.kernel === 'binary_bias_act' ? c.constants.CHAIN : ''),
      );
    };
    expect(kinds(false).slice(0, 2)).toEqual(['matmul', 'binary_bias_act2']);
    expect(kinds(true).slice(0, 3)).toEqual(['binary', 'matmul', 'binary_bias_act1']);
    const { g, loss } = build(false);
    const rng = createRng(22);
    for (const live of [undefined, 30]) {
      const inputs = Object.fromEntries(['u', 'v', 'x', 'w'].map((k) => [k, uniform(rng, R * C, 1)]));
      const { m } = await run(g, loss, inputs, live);
      const L = liveRows(g, new Map(live === undefined ? [] : g.inputs().map((n) => [n.id, live])));
      const [c, f, p] = [
        await everything(g, m.cpu, L),
        await everything(g, m.fused, L),
        await everything(g, m.plain, L),
      ];
      expectSameBits(f, p, `${live ?? 'all'} live`);
      for (const [k, x] of f)
        expect(worstError(x, c.get(k) as Float32Array, 1e-4, 1e-3), k).toBeLessThanOrEqual(1);
      m.fused.dispose();
      m.plain.dispose();
    }
  });

  for (const act of ['relu', 'tanh'] as const) {
    it(`fuses a gather, the sum that reads it and its bias activation (${act}; padding rows)`, async () => {
      const [E, C, V] = [53, 7, 11];
      const rng = createRng(31);
      const g = new Graph();
      const t = g.param('t', [V, C], uniform(rng, V * C, 1));
      const gathered = g.gatherRows(t, g.input('idx', [E], 'u32'));
      // The gathered rows are operand b of a sub: the kernel keeps the operands' order.
      const z = g.biasAct(g.sub(g.input('x', [E, C]), gathered), g.param('b', [C], uniform(rng, C, 1)), act);
      const loss = g.sum(g.sum(g.mul(z, g.input('w', [E, C]))));
      const plan = buildPlan(g, paramLayout(g), backwardOrder(g, loss.id), 0);
      expect(plan.forward.map((c) => c.kernel).slice(0, 1)).toEqual(['gather_binary_bias_act']);
      for (const live of [undefined, 20]) {
        const inputs = {
          idx: Uint32Array.from({ length: E }, () => rng.int(V)),
          x: uniform(rng, E * C, 1),
          w: uniform(rng, E * C, 1),
        };
        const { m } = await run(g, loss, inputs, live);
        const L = liveRows(g, new Map(live === undefined ? [] : g.inputs().map((n) => [n.id, live])));
        const [c, f, p] = [
          await everything(g, m.cpu, L),
          await everything(g, m.fused, L),
          await everything(g, m.plain, L),
        ];
        expectSameBits(f, p, `${act}, ${live ?? 'all'} live`);
        for (const [k, x] of f) {
          const ref = c.get(k) as Float32Array;
          // relu: the CPU's bits but for the row sums of the loss; tanh: within rounding.
          if (act === 'relu' && !k.endsWith('reduce')) expect(bits(x), k).toEqual(bits(ref));
          else expect(worstError(x, ref, 1e-4, 1e-3), k).toBeLessThanOrEqual(1);
        }
        m.fused.dispose();
        m.plain.dispose();
      }
    });
  }
});
