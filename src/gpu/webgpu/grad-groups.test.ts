/**
 * Grouped gradient products (plan-grads.ts, matmul_wgrads.wgsl, matmul_xgrads.wgsl): a backward
 * pass's weight gradients of one input and its input gradients into one tensor's gradient, run two
 * or three to a dispatch, give every value, gradient and updated parameter the bits of the same
 * products run one by one, over all rows, live rows and none, with and without the subgroup twins,
 * and after a lost device.
 * A product whose move would change the order of additions into a gradient stays where it is (the
 * policy's update: src/train/learner.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../core/rng.ts';
import { backwardOrder, Graph, type Tensor } from '../graph.ts';
import { uniform } from '../init.ts';
import { paramLayout } from '../layout.ts';
import { expectRecovery, useGpuContext } from '../testing/gpu-context.ts';
import { GpuModel } from './model.ts';
import { liveCall, liveRows } from './live.ts';
import { buildPlan, type Call } from './plan.ts';
import { writtenBindings } from './plan-grads.ts';

const gpu = useGpuContext();
const bits = (x: Float32Array): number[] => Array.from(new Uint32Array(x.buffer, x.byteOffset, x.length));

/**
 * x = tanh(in·W0) [R, 24], then in recording order: y1 = x·W1, y2 = x·W2 (gathered by idx), y3 =
 * x·W3, u = x ⊙ s, y4 = x·W4, y5 = x·W1 again (W1 used twice). Backward, the tape runs y5, y4, u,
 * y3, the gather, y2, y1: u's gradient adds into dx between y4's and y3's, so the input gradients
 * group as {y5, y4} and {y3, y2, y1}; the weight gradients as {y5, y4, y3} and {y2, y1} (never two
 * into W1's gradient at once).
 */
function net(R: number): { g: Graph; ys: Tensor[]; outs: Tensor[]; loss: Tensor } {
  const g = new Graph();
  const w = (name: string, k: number, n: number, seed: number): Tensor =>
    g.param(name, [k, n], uniform(createRng(seed), k * n, 0.4));
  const x = g.biasAct(g.matmul(g.input('in', [R, 24]), w('w0', 24, 24, 7)), null, 'tanh');
  const w1 = w('w1', 24, 16, 1);
  const y1 = g.matmul(x, w1);
  const y2 = g.matmul(x, w('w2', 24, 16, 2));
  const m2 = g.gatherRows(y2, g.input('idx', [R], 'u32'));
  const y3 = g.matmul(x, w('w3', 24, 16, 3));
  const u = g.mul(x, g.input('s', [R, 24]));
  const y4 = g.matmul(x, w('w4', 24, 16, 4));
  const y5 = g.matmul(x, w1);
  const outs = [y1, m2, y3, u, y4, y5];
  const loss = g.sum(
    outs
      .map((o, i) => g.sum(g.mul(g.biasAct(o, null, 'tanh'), g.input(`t${i}`, o.shape as number[]))))
      .reduce((a, b) => g.add(a, b)),
  );
  return { g, ys: [y1, y2, y3, y4, y5], outs, loss };
}

/** The network's inputs for R rows (u32 indices among the first `live`; NaN past them elsewhere). */
function feed(m: GpuModel, outs: Tensor[], R: number, live: number, seed: number): void {
  const rng = createRng(seed);
  const data = (n: number, c: number) =>
    Float32Array.from({ length: n }, (_, i) => (i < live * c ? rng.next() - 0.5 : Number.NaN));
  m.setInput('in', data(R * 24, 24), live);
  m.setInput('s', data(R * 24, 24), live);
  m.setInput(
    'idx',
    Uint32Array.from({ length: R }, (_, i) => (i < live ? (i * 7) % live : R - 1)),
    live,
  );
  outs.forEach((o, i) => m.setInput(`t${i}`, data(R * (o.shape[1] as number), o.shape[1] as number), live));
}

describe('grouped gradient products', () => {
  it('group weight gradients of one input and input gradients into one gradient, not past a conflicting call', () => {
    const { g, ys, loss } = net(40);
    const plan = (gradGroups: boolean) =>
      buildPlan(g, paramLayout(g), backwardOrder(g, loss.id), 0, { lanes: true, gradGroups });
    const [alone, grouped] = [plan(false).backward, plan(true).backward];
    const members = (kernel: string) =>
      grouped
        .filter((c) => c.kernel === kernel)
        .map((c) => (c.fused?.parts ?? []).map((p) => ys.findIndex((y) => y.id === p.node) + 1));
    expect(members('matmul_xgrads')).toEqual([
      [5, 4],
      [3, 2, 1],
    ]);
    expect(members('matmul_wgrads')).toEqual([
      [5, 4, 3],
      [2, 1],
    ]);
    expect(grouped.length).toBe(alone.length - 6);
    expect(grouped.filter((c) => c.kernel === 'matmul_lanes').length).toBe(
      alone.filter((c) => c.kernel === 'matmul_lanes').length - 10,
    );
    // Without lanes products or fusion, nothing is grouped; the forward pass is untouched.
    expect(
      buildPlan(g, paramLayout(g), backwardOrder(g, loss.id), 0, { lanes: true, fuse: false }).backward.map(
        (c) => c.kernel,
      ),
    ).not.toContain('matmul_xgrads');
    expect(plan(true).forward).toEqual(plan(false).forward);
    // Live rows: a weight gradient sums over them (k), an input gradient has them as its rows (m),
    // each group sized as its members alone.
    const L = liveRows(g, new Map(g.inputs().map((n) => [n.id, 13])));
    for (const c of grouped.filter((x) => x.fused && x.kernel.startsWith('matmul_'))) {
      const sized = liveCall(g, c, L);
      const part = liveCall(g, c.fused?.parts[0] as Call, L);
      if (c.kernel === 'matmul_wgrads') {
        expect([sized.uniform[1], part.uniform[2]]).toEqual([13, 13]);
        expect(sized.wg).toEqual(c.wg);
      } else {
        expect([sized.uniform[0], part.uniform[0]]).toEqual([13, 13]);
        expect(sized.wg).toEqual(part.wg);
        expect(sized.wg[0]).toBeLessThan(c.wg[0]);
      }
    }
  });

  it("keep a group's workgroups within one dispatch's", () => {
    // Three weight gradients of x [200, 48], each 48 × 8000 over K = 200 (64 lanes, 24,000
    // workgroups): two fit in a dispatch (65,535 workgroups at most), the third runs alone.
    const g = new Graph();
    const x = g.input('x', [200, 48]);
    const ys = [1, 2, 3].map((s) => g.matmul(x, g.param(`w${s}`, [48, 8000], new Float32Array(48 * 8000))));
    const loss = g.sum(ys.map((y) => g.sum(g.sum(y))).reduce((a, b) => g.add(a, b)));
    const backward = buildPlan(g, paramLayout(g), backwardOrder(g, loss.id), 0, { lanes: true }).backward;
    const lanes = backward.filter((c) => c.kernel === 'matmul_lanes');
    const groups = backward.filter((c) => c.kernel === 'matmul_wgrads');
    expect(groups.map((c) => c.fused?.parts.length)).toEqual([2]);
    expect(groups[0]?.wg[0]).toBe(48_000);
    expect(lanes.map((c) => c.wg[0])).toEqual([24_000]);
  });

  it("read the access of each binding from the kernels' WGSL", () => {
    expect(writtenBindings('matmul_lanes')).toEqual([false, false, true]);
    expect(writtenBindings('matmul_wgrads')).toEqual([false, false, false, false, true]);
    expect(writtenBindings('matmul_xgrads')).toEqual([false, false, false, false, true]);
    expect(writtenBindings('binary_grad_pair').some(Boolean)).toBe(true);
  });

  it.each([false, true])(
    'give the bits of the products run one by one, over all, some and no live rows (subgroup twins: %s)',
    async (subgroups) => {
      const R = 40;
      const { g, outs, loss } = net(R);
      const opts = { loss, optimizer: { lr: 0.01 }, lanes: true, subgroups };
      const grouped = new GpuModel(gpu(), g, { ...opts, gradGroups: true });
      const alone = new GpuModel(gpu(), g, { ...opts, gradGroups: false });
      for (const live of [R, 13, 0, R]) {
        const results = [];
        for (const m of [grouped, alone]) {
          feed(m, outs, R, live, 5 + live);
          const r = await m.step({ read: outs });
          results.push({ loss: r.loss, gradNorm: r.gradNorm, values: (r.values ?? []).map(bits) });
        }
        expect(results[0], `${live} live rows`).toEqual(results[1]);
        expect(Number.isFinite(results[0]?.loss)).toBe(true);
      }
      for (const p of g.params())
        expect(bits(await grouped.read(p)), `param ${p.id}`).toEqual(bits(await alone.read(p)));
      grouped.dispose();
      alone.dispose();
    },
  );

  it('recover from a lost device with the bits of a model on a device that never lost it', async () => {
    const R = 40;
    const { g, outs, loss } = net(R);
    const opts = { loss, optimizer: { lr: 0.01 }, lanes: true, hostSyncEvery: 1 };
    const steady = new GpuModel(gpu(), g, opts);
    await expectRecovery(
      steady,
      (ctx) => new GpuModel(ctx, g, opts),
      (m, k) => feed(m, outs, R, k === 1 ? 13 : R, 11 + k),
    );
    steady.dispose();
  });
});
