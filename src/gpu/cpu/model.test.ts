import { describe, expect, it } from 'vitest';
import { createRng } from '../../core/rng.ts';
import { Graph, type Tensor } from '../graph.ts';
import * as init from '../init.ts';
import { mlpPolicyGraph, mlpPolicyInputs } from '../mlp.ts';
import { CpuModel } from './model.ts';
import * as ops from './ops.ts';

const cfg = { batch: 6, obs: 5, hidden: [7, 4], actions: 3 };

/** A model of the MLP policy-gradient graph with the same parameters and inputs each time. */
function fresh(): { model: CpuModel; inputs: ReturnType<typeof mlpPolicyInputs>; ops: number } {
  const p = mlpPolicyGraph(cfg, createRng(1));
  const model = new CpuModel(p.graph, { loss: p.loss, optimizer: { lr: 0.05 } });
  const inputs = mlpPolicyInputs(cfg, createRng(2));
  for (const [k, v] of Object.entries(inputs)) model.setInput(k, v);
  const ops = p.graph.nodes.filter((n) => n.op.kind !== 'input' && n.op.kind !== 'param').length;
  return { model, inputs, ops };
}

const bits = (x: Float32Array): number[] => Array.from(new Uint32Array(x.buffer, x.byteOffset, x.length));

describe('CPU forward reuse', () => {
  it('recomputes only the nodes downstream of what changed, with the numbers of a full pass', async () => {
    const { model, inputs, ops } = fresh();
    await model.step({ backward: false });
    expect(model.computed).toBe(ops);
    // Same bits again: nothing to recompute.
    model.setInput('obs', Float32Array.from(inputs.obs));
    await model.step({ backward: false });
    expect(model.computed).toBe(0);
    // A new advantage changes only the loss (mul, mean, scale): the network's nodes keep their values.
    const adv = Float32Array.from(inputs.adv, (x) => -2 * x);
    model.setInput('adv', adv);
    const partial = await model.step({ update: false });
    expect(model.computed).toBe(3);
    const full = fresh();
    full.model.setInput('adv', adv);
    const want = await full.model.step({ update: false });
    expect(partial.loss).toBe(want.loss);
    expect(partial.gradNorm).toBe(want.gradNorm);
    const w0 = full.model.graph.params()[0];
    if (!w0) throw new Error('no parameters');
    expect(bits(await model.readGrad(w0))).toEqual(bits(await full.model.readGrad(w0)));
  });

  it('recomputes everything after an optimizer update or a new parameter state', async () => {
    const { model, ops } = fresh();
    await model.step();
    const a = await model.step({ backward: false });
    expect(model.computed).toBe(ops);
    const state = await model.exportState();
    const other = fresh();
    other.model.importState(state);
    const b = await other.model.step({ backward: false });
    expect(b.loss).toBe(a.loss);
    // −0 and 0 are different bits: the input counts as changed.
    const obs = new Float32Array(cfg.batch * cfg.obs);
    model.setInput('obs', obs);
    await model.step({ backward: false });
    obs[0] = -0;
    model.setInput('obs', obs);
    await model.step({ backward: false });
    expect(model.computed).toBeGreaterThan(0);
  });
});

describe('CPU live rows', () => {
  // Message passing as the policy graph does it: node rows, message slots, per-state readouts.
  const R = 6; // node rows (capacity)
  const M = 5; // message slots (capacity)
  const D = 3;
  const H = 4;
  const S = 2; // states
  function build(): { graph: Graph; loss: Tensor; out: Tensor; w: Tensor } {
    const g = new Graph();
    const rng = createRng(9);
    const w = g.param('w', [D, H], init.uniform(rng, D * H, 1));
    const b = g.param('b', [H], init.uniform(rng, H, 1));
    const x = g.input('x', [R, D]);
    const from = g.input('from', [M], 'u32');
    const to = g.input('to', [M], 'u32');
    const weight = g.input('weight', [M, 1]);
    const ones = g.input('ones', [1, H]);
    const owner = g.input('owner', [R], 'u32');
    const keep = g.input('keep', [R, 1]);
    const h = g.linear(x, w, b, 'tanh');
    const msg = g.mul(g.gatherRows(h, from), g.matmul(weight, ones));
    const node = g.biasAct(g.add(h, g.scatterAddRows(msg, to, R)), null, 'sigmoid');
    // Padding rows carry weight 0 into the readout (as the policy graph's readMean does).
    const out = g.scatterAddRows(g.mul(node, g.matmul(keep, ones)), owner, S);
    return { graph: g, loss: g.sum(g.sum(g.mul(out, out))), out, w };
  }
  // Live: 4 node rows (state 0: rows 0–1, state 1: rows 2–3) and 3 messages.
  const live = {
    x: Float32Array.from([0.5, -1, 0.25, 1, 0, -0.5, 0.75, 0.5, -0.25, -1, 1, 0.5]),
    from: Uint32Array.from([0, 2, 2]),
    to: Uint32Array.from([1, 3, 3]),
    weight: Float32Array.from([1, 0.5, 0.5]),
    owner: Uint32Array.from([0, 0, 1, 1]),
    keep: Float32Array.from([1, 1, 1, 1]),
  };
  const padded = (v: Float32Array | Uint32Array, rows: number, fill: number): Float32Array | Uint32Array => {
    const out = v instanceof Float32Array ? new Float32Array(rows) : new Uint32Array(rows);
    out.fill(fill);
    out.set(v);
    return out;
  };

  it('skips padding rows (here NaN and out-of-range indices) and gives the zero-padded full result', async () => {
    const run = async (garbage: boolean) => {
      const { graph, loss, out, w } = build();
      const m = new CpuModel(graph, { loss });
      const f = garbage ? NaN : 0;
      const i = garbage ? 1e6 : 0;
      m.setInput('ones', new Float32Array(H).fill(1));
      m.setInput('x', padded(live.x, R * D, f), garbage ? 4 : undefined);
      m.setInput('from', padded(live.from, M, i), garbage ? 3 : undefined);
      m.setInput('to', padded(live.to, M, i), garbage ? 3 : undefined);
      m.setInput('weight', padded(live.weight, M, f), garbage ? 3 : undefined);
      m.setInput('owner', padded(live.owner, R, i), garbage ? 4 : undefined);
      m.setInput('keep', padded(live.keep, R, f), garbage ? 4 : undefined);
      const r = await m.step({ update: false });
      return { loss: r.loss, out: await m.read(out), gw: await m.readGrad(w) };
    };
    const skip = await run(true);
    const full = await run(false);
    expect(Number.isFinite(skip.loss)).toBe(true);
    expect(skip.loss).toBe(full.loss);
    expect(bits(skip.out)).toEqual(bits(full.out));
    expect(bits(skip.gw)).toEqual(bits(full.gw));
  });

  it('attention takes padding by whole sequences: the live ones only, bit for bit as without padding', async () => {
    const [seq, d, heads] = [4, 6, 2];
    const build = (batch: number) => {
      const g = new Graph();
      const rng = createRng(12);
      const x = g.input('x', [batch * seq, d]);
      const seg = g.input('seg', [batch * seq], 'u32');
      const wq = g.param('wq', [d, d], init.uniform(rng, d * d, 1));
      const wk = g.param('wk', [d, d], init.uniform(rng, d * d, 1));
      const att = g.causalAttention(g.matmul(x, wq), g.matmul(x, wk), x, {
        batch,
        seq,
        heads,
        segments: seg,
      });
      const w = g.input('w', [batch * seq, d]);
      return { graph: g, att, wq, loss: g.sum(g.sum(g.mul(att, w))) };
    };
    const rng = createRng(3);
    const x = init.uniform(rng, 2 * seq * d, 1);
    const w = init.uniform(rng, 2 * seq * d, 1);
    const seg = Uint32Array.from([1, 1, 2, 2, 1, 1, 1, 1]);
    const run = async (batch: number, rows?: number) => {
      const b = build(batch);
      const m = new CpuModel(b.graph, { loss: b.loss });
      const pad = (a: Float32Array): Float32Array => {
        const out = new Float32Array(batch * seq * d).fill(NaN);
        out.set(a);
        return out;
      };
      const padSeg = new Uint32Array(batch * seq).fill(7);
      padSeg.set(seg);
      m.setInput('x', pad(x), rows);
      m.setInput('w', pad(w), rows);
      m.setInput('seg', padSeg, rows);
      const r = await m.step({ update: false });
      return { m, r, att: (await m.read(b.att)).subarray(0, 2 * seq * d), gq: await m.readGrad(b.wq) };
    };
    const exact = await run(2);
    const padded = await run(3, 2 * seq); // a third sequence of NaN, skipped
    expect(Number.isFinite(padded.r.loss)).toBe(true);
    expect(padded.r.loss).toBe(exact.r.loss);
    expect(bits(padded.att)).toEqual(bits(exact.att));
    expect(bits(padded.gq)).toEqual(bits(exact.gq));
    // Padding inside a sequence would be attended to: refused.
    const cut = build(3);
    const m = new CpuModel(cut.graph, { loss: cut.loss });
    m.setInput('x', new Float32Array(3 * seq * d), seq + 1);
    m.setInput('w', new Float32Array(3 * seq * d), seq + 1);
    m.setInput('seg', new Uint32Array(3 * seq), seq + 1);
    await expect(m.step()).rejects.toThrow(/padding rows inside a sequence/);
  });

  it('refuses padding where an op would read it (a softmax over a padded vector)', async () => {
    const g = new Graph();
    const v = g.input('v', [4]);
    g.softmax(v);
    const m = new CpuModel(g);
    m.setInput('v', new Float32Array(4), 2);
    await expect(m.step()).rejects.toThrow(/padding rows/);
    expect(() => m.setInput('v', new Float32Array(4), 5)).toThrow(/live rows/);
  });
});

describe('CPU shared prefixes', () => {
  it('a matmul by rows that share their first columns gives the row-by-row numbers, bit for bit', async () => {
    const rng = createRng(4);
    const [m, k, n, d] = [9, 14, 5, 8];
    const g = new Graph();
    const a = g.input('a', [m, k]);
    const w = g.param('w', [k, n], init.uniform(rng, k * n, 1));
    const y = g.matmul(a, w);
    const data = init.uniform(rng, m * k, 1);
    // Rows 0, 3, 6 share a prefix, rows 1, 4, 7 another; rows 2, 5, 8 have their own.
    for (let i = 3; i < m; i++) if (i % 3 !== 2) data.copyWithin(i * k, (i % 3) * k, (i % 3) * k + d);
    const shared = new CpuModel(g, { sharedPrefix: { a: d } });
    const plain = new CpuModel(g);
    for (const model of [shared, plain]) model.setInput('a', data);
    await shared.step();
    await plain.step();
    expect(bits(await shared.read(y))).toEqual(bits(await plain.read(y)));
    // Again with other rows and new parameters: the kept partial sums are dropped with the old weights.
    const state = await plain.exportState();
    const params = Float32Array.from(state.params, (x) => x * 0.5 + 0.25);
    for (const model of [shared, plain]) {
      model.importState({ ...state, params });
      model.setInput(
        'a',
        Float32Array.from(data, (x, i) => (i % k < d ? x : -x)),
      );
      await model.step();
    }
    expect(bits(await shared.read(y))).toEqual(bits(await plain.read(y)));
  });

  it('the prefix index gives equal prefixes one id, keeps ids across calls, and starts a new epoch when full', () => {
    const [k, d] = [6, 4];
    const rows = (prefixes: number[]): Float32Array => {
      const a = new Float32Array(prefixes.length * k);
      prefixes.forEach((p, i) => {
        a.fill(p, i * k, i * k + d);
        a[i * k + d] = i; // the rest differs row by row
      });
      return a;
    };
    const index = new ops.PrefixIndex(d, 4);
    index.index(rows([1, 2, 1, 0.5]), 4, k);
    expect([...index.ids.subarray(0, 4)]).toEqual([0, 1, 0, 2]);
    // Runs of one prefix (the previous row's, checked first) and a prefix seen earlier in the call.
    const runs = new ops.PrefixIndex(d);
    runs.index(rows([5, 5, 6, 6, 5, 5]), 6, k);
    expect([...runs.ids.subarray(0, 6)]).toEqual([0, 0, 1, 1, 0, 0]);
    // -0 and 0 differ in bits: two prefixes.
    index.index(rows([2, 0, -0]), 1, k);
    expect([...index.ids.subarray(0, 1)]).toEqual([1]);
    expect(index.epoch).toBe(0);
    index.index(rows([0, -0]), 2, k); // 3 known + 2 new > 4: a new epoch, ids from 0
    expect(index.epoch).toBe(1);
    expect([...index.ids.subarray(0, 2)]).toEqual([0, 1]);
    // The product over the new epoch's ids with fresh partial sums: the plain product's bits.
    const rng = createRng(9);
    const n = 5;
    const B = init.uniform(rng, k * n, 1);
    const A = rows([0, -0]);
    const [got, want] = [new Float32Array(2 * n), new Float32Array(2 * n)];
    ops.matmulSharedPrefix(A, B, got, 2, n, k, d, index.ids, []);
    ops.matmul(A, B, want, 1, 2, n, k, false, false, false);
    expect(bits(got)).toEqual(bits(want));
  });
});
