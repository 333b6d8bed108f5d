/**
 * The fused dispatches of plan-fuse.ts for the policy's loss (bernoulli_chain, reduce_binary,
 * reduce_grad_binary, grad_pair_then) and for a layer's activation gradient with its sum's
 * (bias_act_grad_pair, with the bias gradient's column sums moved after it): which runs they take, with which operand sides and ops, how many dispatches
 * a step saves, and that every value and gradient keeps the unfused plan's bits (`fuse: false`),
 * with all rows live and over padding rows, and the CPU reference's values within rounding (its
 * exp and log are not the GPU's). Runs on a real WebGPU adapter (SwiftShader when there is no GPU).
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../core/rng.ts';
import { CpuModel } from '../cpu/model.ts';
import { backwardOrder, Graph, size, type Tensor } from '../graph.ts';
import { uniform } from '../init.ts';
import { paramLayout } from '../layout.ts';
import { worstError } from '../testing/cases.ts';
import { useGpuContext } from '../testing/gpu-context.ts';
import { liveRows } from './live.ts';
import { GpuModel } from './model.ts';
import { buildPlan } from './plan.ts';

const context = useGpuContext();

const bits = (x: Float32Array): Uint32Array => new Uint32Array(x.buffer, x.byteOffset, x.length);

/** Edges E (Bernoulli rows), rows R and columns C (row reductions). */
const E = 37;
const R = 11;
const C = 6;

/**
 * The loss's shapes: edge log-probabilities of sampled and of the policy's own edges scaled by a
 * mask, row sums of products scaled by a weight, a mean subtracted from a parameter, a max of a
 * difference, a sum of an input times a parameter; each with a loss term, so every gradient runs.
 */
function lossGraph(seed: number) {
  const rng = createRng(seed);
  const g = new Graph();
  const param = (name: string, shape: number[], scale = 1) =>
    g.param(name, shape, uniform(rng, size(shape), scale));
  const x = param('x', [E], 3);
  const x2 = param('x2', [E], 3);
  const t = g.input('t', [E]);
  const m = g.input('m', [E]);
  const w = g.input('w', [R]);
  const u = g.input('u', [R, C]);
  // Parameters share one gradient buffer, which a dispatch may bind for writing once: the operands
  // whose gradients are fused in pairs are tensors of their own (a tanh of a parameter).
  const own = (name: string): Tensor => g.unary('tanh', param(name, [R, C]));
  const [A, B, A3, B3] = [own('A'), own('B'), own('A3'), own('B3')];
  const A2 = param('A2', [R, C]);
  const B4 = param('B4', [R, C]);
  const v = param('v', [R]);
  const v3 = param('v3', [R]);
  const terms = [
    // bernoulli_chain SIG 0, MUL 1 (the log-probability as the product's a).
    g.mul(g.bernoulliLogProb(x, t), m),
    // bernoulli_chain SIG 1, MUL 1 (as its b).
    g.mul(m, g.bernoulliLogProb(x, g.unary('sigmoid', x))),
    // bernoulli_chain SIG 1, MUL 0.
    g.bernoulliLogProb(x2, g.unary('sigmoid', x2)),
    // reduce_binary sum · w; backward: reduce_grad_binary with both gradients of A·B.
    g.mul(g.sum(g.mul(A, B)), w),
    // reduce_binary v − mean (SIDE 1).
    g.sub(v, g.mean(A2)),
    // reduce_binary max + v3; backward: reduce_grad_binary (max) with both gradients of A3 − B3.
    g.add(g.max(g.sub(A3, B3)), v3),
    // backward: reduce_grad_binary with B4's gradient alone (u is an input).
    g.sum(g.mul(u, B4)),
    // backward: grad_pair_then, a pair of sub gradients and a sigmoid's (operand a). The backward
    // runs in reverse order of creation, so the op to fuse is made just before the pair's.
    (() => {
      const e = g.unary('exp', param('s2', [R, C], 0.5));
      return g.sub(g.unary('sigmoid', param('s1', [R, C])), e);
    })(),
    // a pair of mul gradients and a scale's (operand b).
    g.mul(g.unary('log', g.unary('sigmoid', param('s3', [R, C]))), g.scale(param('s4', [R, C]), 0.25)),
    // a pair of add gradients and a one-column sum's (over [R, 1]; operand b).
    g.add(g.unary('tanh', v), g.sum(g.unary('tanh', param('c1', [R, 1])))),
    // a pair of mul gradients and a one-column max's (operand a).
    (() => {
      const t = g.unary('tanh', v3);
      return g.mul(g.max(g.unary('tanh', param('c2', [R, 1]))), t);
    })(),
  ];
  const scalar = (z: Tensor): Tensor => (z.shape.length === 0 ? z : scalar(g.sum(z)));
  const loss = terms.map(scalar).reduce((a, b) => g.add(a, b));
  return { g, loss, params: g.nodes.filter((n) => n.op.kind === 'param') };
}

function inputs(seed: number): Record<string, Float32Array> {
  const rng = createRng(seed);
  const coin = (n: number) => Float32Array.from({ length: n }, () => (rng.next() < 0.5 ? 1 : 0));
  return { t: coin(E), m: coin(E), w: uniform(rng, R, 1), u: uniform(rng, R * C, 1) };
}

/** Every value and gradient of the graph, live rows only. */
async function everything(g: Graph, model: CpuModel | GpuModel, live: Int32Array) {
  const out = new Map<string, Float32Array>();
  for (const n of g.nodes) {
    if (n.op.kind === 'input') continue;
    const inner = size(n.shape) / Math.max(1, n.shape[0] ?? 1);
    const keep = n.shape.length === 0 ? 1 : (live[n.id] as number) * inner;
    out.set(`value ${n.id} ${n.op.kind}`, (await model.read(n)).subarray(0, keep));
    if (n.requiresGrad) out.set(`grad ${n.id} ${n.op.kind}`, (await model.readGrad(n)).subarray(0, keep));
  }
  return out;
}

describe('fused dispatches of the loss (plan-fuse.ts)', () => {
  it('plans each run with its sides and ops, and leaves a vector mean’s gradient alone', () => {
    const { g, loss } = lossGraph(1);
    const plan = buildPlan(g, paramLayout(g), backwardOrder(g, loss.id), 0);
    const of = (calls: typeof plan.forward, k: string) =>
      calls.filter((c) => c.kernel === k).map((c) => JSON.stringify(c.constants));
    expect(of(plan.forward, 'bernoulli_chain').sort()).toEqual(
      ['{"SIG":0,"MUL":1}', '{"SIG":1,"MUL":0}', '{"SIG":1,"MUL":1}'].sort(),
    );
    expect(of(plan.forward, 'reduce_binary').sort()).toEqual(
      [
        '{"OP":0,"BOP":2,"SIDE":0}',
        '{"OP":1,"BOP":1,"SIDE":1}',
        '{"OP":2,"BOP":0,"SIDE":0}',
        // The one-column sum and max of the last two terms, forward.
        '{"OP":0,"BOP":0,"SIDE":1}',
        '{"OP":2,"BOP":2,"SIDE":0}',
      ].sort(),
    );
    expect(of(plan.backward, 'reduce_grad_binary').sort()).toEqual(
      [
        '{"OP":0,"BOP":2,"GA":1,"GB":1}',
        '{"OP":2,"BOP":1,"GA":1,"GB":1}',
        '{"OP":0,"BOP":2,"GA":0,"GB":1}',
      ].sort(),
    );
    expect(of(plan.backward, 'grad_pair_then').sort()).toEqual(
      [
        '{"OP":1,"SIDE":0,"NEXT":0,"NOP":3}',
        '{"OP":2,"SIDE":1,"NEXT":0,"NOP":0}',
        '{"OP":0,"SIDE":1,"NEXT":1,"NOP":0}',
        '{"OP":2,"SIDE":0,"NEXT":1,"NOP":2}',
      ].sort(),
    );
    // No Bernoulli left alone forward, and of the four sigmoids only the two that make no Bernoulli
    // target (s1's and s3's); three matrix reductions, which only the loss's vector sums read: u·B4's
    // row sums and the loss's row sums of the two [R, C] terms.
    expect(of(plan.forward, 'unary').filter((c) => c === '{"OP":3}')).toHaveLength(2);
    expect(of(plan.forward, 'bernoulli')).toEqual([]);
    const matrix = (c: (typeof plan.forward)[number]) =>
      c.kernel === 'reduce' && (c.uniform[0] as number) > 1;
    expect(plan.forward.filter(matrix)).toHaveLength(3);

    // The gradient of a vector's mean divides by its live length, which a fused part cannot set;
    // a vector's sum is fused (its gradient's column count does not matter).
    const vectorPlan = (op: 'sum' | 'mean'): string[] => {
      const h = new Graph();
      const [a, b] = ['a', 'b'].map((k) => h.unary('tanh', h.param(k, [9], new Float32Array(9).fill(0.5))));
      const l = h.reduce(op, h.mul(a as Tensor, b as Tensor));
      return buildPlan(h, paramLayout(h), backwardOrder(h, l.id), 0).backward.map((c) => c.kernel);
    };
    expect(vectorPlan('mean')).toEqual(['reduce_grad', 'grad_pair_then', 'unary_grad']);
    expect(vectorPlan('sum')).toEqual(['reduce_grad_binary', 'unary_grad', 'unary_grad']);
  });

  it('saves a dispatch per fused part in a training step', async () => {
    const { g, loss } = lossGraph(2);
    const counts: number[] = [];
    for (const fuse of [true, false]) {
      const model = new GpuModel(context(), g, { loss, fuse, optimizer: { lr: 0.01 } });
      for (const [k, v] of Object.entries(inputs(3))) model.setInput(k, v);
      context().resetCounters();
      await model.step();
      counts.push(context().resetCounters().dispatches);
      model.dispose();
    }
    const [fused, plain] = counts as [number, number];
    const plan = buildPlan(g, paramLayout(g), backwardOrder(g, loss.id), 0);
    const saved = (kernels: string[] | null): number =>
      [...plan.forward, ...plan.backward]
        .filter((c) => c.fused && (kernels === null || kernels.includes(c.kernel)))
        .reduce((n, c) => n + (c.fused?.parts.length ?? 1) - 1, 0);
    // Each fused call saves its parts but one.
    expect(plain - fused).toBe(saved(null));
    // Forward: chains of 2, 3 and 2 calls (4 saved), five reduce_binary (5); backward: three
    // reduce_grad_binary of 3, 3 and 2 calls (5), four grad_pair_then of 3 (8).
    expect(saved(['bernoulli_chain', 'reduce_binary', 'reduce_grad_binary', 'grad_pair_then'])).toBe(22);
  });

  it("keeps the unfused plan's bits, and the CPU's values within rounding, over padding rows", async () => {
    const { g, loss, params } = lossGraph(4);
    for (const live of [undefined, 7, 1]) {
      const cpu = new CpuModel(g, { loss });
      const fused = new GpuModel(context(), g, { loss });
      const plain = new GpuModel(context(), g, { loss, fuse: false });
      for (const model of [cpu, fused, plain])
        for (const [k, v] of Object.entries(inputs(5 + (live ?? 0)))) model.setInput(k, v, live);
      const [rc, rf, rp] = [await cpu.step(), await fused.step(), await plain.step()];
      const L = liveRows(g, new Map(live === undefined ? [] : g.inputs().map((n) => [n.id, live])));
      const [c, f, p] = [
        await everything(g, cpu, L),
        await everything(g, fused, L),
        await everything(g, plain, L),
      ];
      expect([...f.keys()].sort()).toEqual([...p.keys()].sort());
      for (const [k, x] of f) {
        expect(bits(x), `fused vs unfused, ${live ?? 'all'} live: ${k}`).toEqual(
          bits(p.get(k) as Float32Array),
        );
        expect(worstError(x, c.get(k) as Float32Array, 1e-4, 1e-4), `vs CPU: ${k}`).toBeLessThanOrEqual(1);
      }
      expect(rf.loss).toBe(rp.loss);
      expect(Math.abs(rf.loss - rc.loss)).toBeLessThanOrEqual(1e-4 * Math.max(1, Math.abs(rc.loss)));
      // Not vacuous: with every row live, each parameter's gradient is reached through its fused run.
      if (live === undefined)
        for (const n of params)
          expect(
            (await fused.readGrad(n)).some((y) => y !== 0),
            `param ${n.id}`,
          ).toBe(true);
      fused.dispose();
      plain.dispose();
    }
  });
});

describe("a layer's activation gradient with its sum's (bias_act_grad_pair)", () => {
  /**
   * Three bias activations of sums of tensors of their own: one over 300 rows (its bias gradient
   * takes col_partial and col_sum), one over 40 rows (col_rows), and one whose sum has a parameter
   * operand: its gradient shares the parameters' gradient buffer with the bias gradient's column
   * sums, which therefore cannot move after it, and the run is left alone.
   */
  function layers(seed: number, act: 'tanh' | 'relu' | 'gelu') {
    const rng = createRng(seed);
    const g = new Graph();
    const param = (name: string, shape: number[]) => g.param(name, shape, uniform(rng, size(shape), 1));
    const own = (name: string, rows: number) => g.unary('tanh', param(name, [rows, 5]));
    const z1 = g.biasAct(g.add(own('a1', 300), own('b1', 300)), param('bias1', [5]), act);
    const z2 = g.biasAct(g.sub(own('a2', 40), own('b2', 40)), param('bias2', [5]), 'relu');
    const z3 = g.biasAct(g.add(param('a3', [40, 5]), own('b3', 40)), param('bias3', [5]), act);
    const w = g.input('w', [40, 5]);
    const loss = g.add(g.sum(g.sum(z1)), g.add(g.sum(g.sum(g.mul(z2, w))), g.sum(g.sum(z3))));
    return { g, loss };
  }

  it('fuses the first two with their column sums after them, not the third', () => {
    const { g, loss } = layers(1, 'tanh');
    const plan = buildPlan(g, paramLayout(g), backwardOrder(g, loss.id), 0);
    const kernels = plan.backward.map((c) => c.kernel);
    const at = (k: string) => kernels.reduce<number[]>((xs, x, i) => (x === k ? [...xs, i] : xs), []);
    expect(plan.backward.filter((c) => c.kernel === 'bias_act_grad_pair').map((c) => c.uniform[0])).toEqual(
      expect.arrayContaining([1500, 200]),
    );
    expect(at('bias_act_grad_pair')).toHaveLength(2);
    // Each fused call is followed by its bias gradient's column sums: one workgroup per column
    // over 300 rows, one invocation per column over 40.
    expect(at('bias_act_grad_pair').map((i) => kernels[i + 1])).toEqual(
      expect.arrayContaining(['col_blocks', 'col_rows']),
    );
    expect(at('col_rows')).toHaveLength(2);
    expect(at('col_blocks')).toHaveLength(1);
    expect(at('col_partial')).toHaveLength(0);
    // The third: its activation gradient alone, its sums, then its pair.
    expect(at('bias_act_grad')).toHaveLength(1);
  });

  for (const act of ['tanh', 'relu', 'gelu'] as const)
    it(`keeps the unfused plan's bits, and the CPU's within rounding (${act}; all rows, then padding)`, async () => {
      const { g, loss } = layers(2, act);
      for (const live of [undefined, 17]) {
        const cpu = new CpuModel(g, { loss });
        const fused = new GpuModel(context(), g, { loss });
        const plain = new GpuModel(context(), g, { loss, fuse: false });
        const w = uniform(createRng(3), 200, 1);
        for (const model of [cpu, fused, plain]) model.setInput('w', w, live);
        await Promise.all([cpu.step(), fused.step(), plain.step()]);
        const L = liveRows(g, new Map(live === undefined ? [] : g.inputs().map((n) => [n.id, live])));
        const [c, f, p] = [
          await everything(g, cpu, L),
          await everything(g, fused, L),
          await everything(g, plain, L),
        ];
        for (const [k, x] of f) {
          expect(bits(x), `fused vs unfused, ${live ?? 'all'} live: ${k}`).toEqual(
            bits(p.get(k) as Float32Array),
          );
          expect(worstError(x, c.get(k) as Float32Array, 1e-4, 1e-4), `vs CPU: ${k}`).toBeLessThanOrEqual(1);
        }
        fused.dispose();
        plain.dispose();
      }
    });
});
