/**
 * Sibling products (plan-siblings.ts, matmul_siblings.wgsl): a forward pass's lanes products that
 * share their left operand, run two or three to a dispatch, give every value and gradient the bits
 * of the same products run one by one, over all rows, live rows and none, with and without the
 * subgroup twins (the policy's passes: src/train/learner-siblings.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../core/rng.ts';
import { backwardOrder, Graph, type Tensor } from '../graph.ts';
import { uniform } from '../init.ts';
import { paramLayout } from '../layout.ts';
import { useGpuContext } from '../testing/gpu-context.ts';
import { GpuModel } from './model.ts';
import { buildPlan } from './plan.ts';

const gpu = useGpuContext();
const bits = (x: Float32Array): number[] => Array.from(new Uint32Array(x.buffer, x.byteOffset, x.length));

/** x·W1, x·W2, x·W3 and x·W4 (K = 24, odd widths), another product between them, and a loss over all. */
function siblingsNet(R: number): { g: Graph; outs: Tensor[]; loss: Tensor } {
  const g = new Graph();
  const x = g.input('x', [R, 24]);
  const z = g.input('z', [R, 20]);
  const w = (name: string, n: number, seed: number): Tensor =>
    g.param(name, [24, n], uniform(createRng(seed), 24 * n, 0.4));
  const y1 = g.matmul(x, w('w1', 33, 1));
  const other = g.matmul(z, g.param('v', [20, 17], uniform(createRng(9), 20 * 17, 0.4)));
  const y2 = g.matmul(x, w('w2', 7, 2));
  const y3 = g.matmul(x, w('w3', 16, 3));
  const y4 = g.matmul(x, w('w4', 5, 4));
  const outs = [y1, other, y2, y3, y4];
  const wts = outs.map((o, i) => g.input(`t${i}`, o.shape as number[]));
  const loss = g.sum(
    outs
      .map((o, i) => g.sum(g.mul(g.biasAct(o, null, 'tanh'), wts[i] as Tensor)))
      .reduce((a, b) => g.add(a, b)),
  );
  return { g, outs, loss };
}

describe('sibling products', () => {
  it('group the lanes products of one left operand, three to a dispatch, and leave the rest', () => {
    const { g, loss } = siblingsNet(40);
    const plan = (siblings: boolean) =>
      buildPlan(g, paramLayout(g), backwardOrder(g, loss.id), 0, { lanes: true, siblings });
    const kernels = (s: boolean) => plan(s).forward.map((c) => c.kernel);
    const alone = kernels(false);
    const grouped = kernels(true);
    expect(alone.filter((k) => k === 'matmul_lanes')).toHaveLength(5);
    // x·W1, x·W2, x·W3 in one call; x·W4 (a fourth) and z·V alone.
    expect(grouped.filter((k) => k === 'matmul_siblings')).toHaveLength(1);
    expect(grouped.filter((k) => k === 'matmul_lanes')).toHaveLength(2);
    expect(grouped.length).toBe(alone.length - 2);
    expect(plan(true).backward).toEqual(plan(false).backward);
  });

  it("keep a group's workgroups within one dispatch's", () => {
    // Three products of x [48, 200], each by a 200 × 8000 weight (64 lanes, 24,000 workgroups):
    // two fit in a dispatch (65,535 workgroups at most), the third runs alone.
    const g = new Graph();
    const x = g.input('x', [48, 200]);
    const ys = [1, 2, 3].map((s) => g.matmul(x, g.param(`w${s}`, [200, 8000], new Float32Array(200 * 8000))));
    const loss = g.sum(ys.map((y) => g.sum(g.sum(y))).reduce((a, b) => g.add(a, b)));
    const forward = buildPlan(g, paramLayout(g), backwardOrder(g, loss.id), 0, { lanes: true }).forward;
    const groups = forward.filter((c) => c.kernel === 'matmul_siblings');
    expect(groups.map((c) => c.fused?.parts.length)).toEqual([2]);
    expect(groups[0]?.wg[0]).toBe(48_000);
    expect(forward.filter((c) => c.kernel === 'matmul_lanes').map((c) => c.wg[0])).toEqual([24_000]);
  });

  it.each([false, true])(
    'give the bits of the products run one by one, over all, some and no live rows (subgroup twins: %s)',
    async (subgroups) => {
      const R = 40;
      const { g, outs, loss } = siblingsNet(R);
      const rng = createRng(5);
      const data = (n: number) => Float32Array.from({ length: n }, () => rng.next() - 0.5);
      const inputs: [string, Float32Array, number][] = [
        ['x', data(R * 24), 24],
        ['z', data(R * 20), 20],
        ...outs.map((o, i): [string, Float32Array, number] => [
          `t${i}`,
          data(R * (o.shape[1] as number)),
          o.shape[1] as number,
        ]),
      ];
      const opts = { loss, optimizer: { lr: 0.01 }, lanes: true, subgroups };
      const grouped = new GpuModel(gpu(), g, { ...opts, siblings: true });
      const alone = new GpuModel(gpu(), g, { ...opts, siblings: false });
      for (const live of [R, 13, 0, R]) {
        const results = [];
        for (const m of [grouped, alone]) {
          for (const [name, x, c] of inputs)
            m.setInput(
              name,
              x.map((v, i) => (i < live * c ? v : Number.NaN)),
              live,
            );
          const r = await m.step({ read: outs });
          results.push({
            loss: r.loss,
            gradNorm: r.gradNorm,
            values: (r.values ?? []).map(bits),
          });
        }
        expect(results[0], `${live} live rows`).toEqual(results[1]);
        expect((results[0]?.values ?? []).length).toBe(outs.length);
      }
      for (const p of g.params()) expect(bits(await grouped.read(p))).toEqual(bits(await alone.read(p)));
      grouped.dispose();
      alone.dispose();
    },
  );
});
