import { describe, expect, it } from 'vitest';
import { createRng } from '../../core/rng.ts';
import { MASKED_LOG_PROB } from '../graph.ts';
import { CASE_NAMES, buildCase, tiedTables } from '../testing/cases.ts';
import { CpuModel } from './model.ts';
import { causalAttention, crossEntropy, crossEntropyGrad, matmul, softmax } from './ops.ts';

// Central differences on f32 parameters: step h = 5e-3; truncation error O(h²) and f32 rounding of
// the loss (~1e-6) / h keep the difference within 1e-2 of the analytic gradient (relative to
// max(1, |g|)) for these small, smooth cases.
const H = 5e-3;
const TOL = 1e-2;

describe('CPU backward against finite differences', () => {
  for (const name of CASE_NAMES) {
    it(name, async () => {
      const c = buildCase(name, createRng(11));
      const model = new CpuModel(c.graph, { loss: c.loss });
      for (const [k, v] of Object.entries(c.inputs)) model.setInput(k, v);
      await model.step();
      const state = await model.exportState();
      const rng = createRng(5);
      let checked = 0;
      for (const p of c.params) {
        const analytic = await model.readGrad(p);
        const values = await model.read(p);
        const offset = [...state.params].length === 0 ? 0 : findOffset(state.params, values);
        // A few coordinates per parameter keep the test fast; they are drawn by the seeded RNG.
        for (let s = 0; s < Math.min(6, values.length); s++) {
          const i = rng.int(values.length);
          const lossAt = async (delta: number): Promise<number> => {
            const params = state.params.slice();
            params[offset + i] = (values[i] as number) + delta;
            model.importState({ ...state, params });
            return (await model.step({ backward: false })).loss;
          };
          const fd = ((await lossAt(H)) - (await lossAt(-H))) / (2 * H);
          const g = analytic[i] as number;
          if (!c.smooth && Math.abs(fd - g) > TOL * Math.max(1, Math.abs(g))) continue;
          expect(
            Math.abs(fd - g),
            `${name} p${c.params.indexOf(p)}[${i}] fd=${fd} grad=${g}`,
          ).toBeLessThanOrEqual(TOL * Math.max(1, Math.abs(g)));
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(0);
    });
  }
});

/** Where a parameter's values start in the arena (the first exact match of the whole slice). */
function findOffset(arena: Float32Array, values: Float32Array): number {
  outer: for (let o = 0; o + values.length <= arena.length; o++) {
    for (let j = 0; j < values.length; j++) if (arena[o + j] !== values[j]) continue outer;
    return o;
  }
  throw new Error('parameter not found in arena');
}

describe('CPU kernels', () => {
  it('matmul handles every transpose case', () => {
    // A = [[1, 2], [3, 4]], B = [[5, 6], [7, 8]]: A·B = [[19, 22], [43, 50]].
    const A = Float32Array.from([1, 2, 3, 4]);
    const B = Float32Array.from([5, 6, 7, 8]);
    const C = new Float32Array(4);
    matmul(A, B, C, 1, 2, 2, 2, false, false, false);
    expect([...C]).toEqual([19, 22, 43, 50]);
    matmul(A, B, C, 1, 2, 2, 2, true, false, false);
    expect([...C]).toEqual([26, 30, 38, 44]);
    matmul(A, B, C, 1, 2, 2, 2, false, true, false);
    expect([...C]).toEqual([17, 23, 39, 53]);
    matmul(A, B, C, 1, 2, 2, 2, true, true, false);
    expect([...C]).toEqual([23, 31, 34, 46]);
  });

  it('masked entries get probability exactly 0 and a finite log-probability', () => {
    const x = Float32Array.from([1, 2, 3, 4]);
    const mask = Float32Array.from([1, 0, 1, 0]);
    const p = new Float32Array(4);
    softmax(x, mask, 1, p, 4, false);
    expect(p[1]).toBe(0);
    expect(p[3]).toBe(0);
    expect((p[0] as number) + (p[2] as number)).toBeCloseTo(1, 6);
    const lp = new Float32Array(4);
    softmax(x, mask, 1, lp, 4, true);
    expect(lp[1]).toBe(Math.fround(MASKED_LOG_PROB));
    expect(Math.exp(lp[0] as number)).toBeCloseTo(p[0] as number, 6);
  });
});

describe('CPU kernels of the transformer ops', () => {
  it('causal attention of two positions: the first sees itself only, the second a softmax of both', () => {
    // One head of width 1: q = k = [1, 2], v = [10, 20]. Row 0: out = v0. Row 1: scores (2·1, 2·2).
    const q = Float32Array.from([1, 2]);
    const v = Float32Array.from([10, 20]);
    const out = new Float32Array(2);
    const probs = new Float32Array(4);
    causalAttention(q, q, v, out, probs, 1, 2, 1);
    const p1 = Math.exp(4) / (Math.exp(2) + Math.exp(4));
    expect(out[0]).toBe(10);
    expect(out[1]).toBeCloseTo((1 - p1) * 10 + p1 * 20, 5);
    expect([...probs].map((x) => +x.toFixed(6))).toEqual([1, 0, +(1 - p1).toFixed(6), +p1.toFixed(6)]);
  });

  it('cross-entropy is Σ w·(logsumexp − x_t) and stays finite for large logits', () => {
    const x = Float32Array.from([0, Math.log(3), 1000, 1000]);
    const lse = new Float32Array(4);
    // Row 0: log(1 + 3) − 0 = log 4 with weight 2; row 1: log 2 (weight 1), not Infinity.
    const loss = crossEntropy(x, Uint32Array.from([0, 1]), Float32Array.from([2, 1]), lse, 2);
    expect(loss).toBeCloseTo(2 * Math.log(4) + Math.log(2), 5);
    const gx = new Float32Array(4);
    crossEntropyGrad(x, Uint32Array.from([0, 1]), Float32Array.from([2, 1]), lse, 1, gx, 2);
    [2 * (0.25 - 1), 2 * 0.75, 0.5, -0.5].forEach((g, i) => expect(gx[i]).toBeCloseTo(g, 5));
    expect(() => crossEntropy(x, Uint32Array.from([0, 2]), Float32Array.from([1, 1]), lse, 2)).toThrow(
      /target 2 of row 1/,
    );
  });

  it('a parameter read twice (embedding and tied head) accumulates both gradients', async () => {
    const { tied, split, inputs } = tiedTables(createRng(4));
    const a = new CpuModel(tied.graph, { loss: tied.loss });
    const b = new CpuModel(split.graph, { loss: split.loss });
    for (const [k, v] of Object.entries(inputs)) {
      a.setInput(k, v);
      b.setInput(k, v);
    }
    expect((await a.step()).loss).toBe((await b.step()).loss);
    const g = await a.readGrad(tied.table);
    const g0 = await b.readGrad(split.tables[0]);
    const g1 = await b.readGrad(split.tables[1]);
    // Both reads contribute, and neither alone is the whole gradient.
    expect(g0.some((x) => x !== 0) && g1.some((x) => x !== 0)).toBe(true);
    g.forEach((x, i) => expect(x).toBeCloseTo((g0[i] as number) + (g1[i] as number), 6));
  });
});

describe('causal attention with segments', () => {
  it('gives each packed segment the output it has alone', () => {
    const rng = createRng(12);
    const [seq, d] = [5, 4];
    const rand = (n: number): Float32Array => Float32Array.from({ length: n }, () => rng.next() * 2 - 1);
    const [q, k, v] = [rand(seq * d), rand(seq * d), rand(seq * d)];
    const packed = new Float32Array(seq * d);
    causalAttention(
      q,
      k,
      v,
      packed,
      new Float32Array(2 * seq * seq),
      1,
      seq,
      2,
      Uint32Array.from([3, 3, 4, 4, 4]),
    );
    // Alone: the first two rows as one sequence, the last three as another.
    const first = new Float32Array(2 * d);
    causalAttention(
      q.slice(0, 2 * d),
      k.slice(0, 2 * d),
      v.slice(0, 2 * d),
      first,
      new Float32Array(8),
      1,
      2,
      2,
    );
    const second = new Float32Array(3 * d);
    causalAttention(q.slice(2 * d), k.slice(2 * d), v.slice(2 * d), second, new Float32Array(18), 1, 3, 2);
    expect([...packed]).toEqual([...first, ...second]);
    const unsegmented = new Float32Array(seq * d);
    causalAttention(q, k, v, unsegmented, new Float32Array(2 * seq * seq), 1, seq, 2);
    expect([...unsegmented.slice(2 * d)]).not.toEqual([...second]);
  });
});
