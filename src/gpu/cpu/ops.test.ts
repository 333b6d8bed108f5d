import { describe, expect, it } from 'vitest';
import { createRng } from '../../core/rng.ts';
import { MASKED_LOG_PROB } from '../graph.ts';
import { CASE_NAMES, buildCase } from '../testing/cases.ts';
import { CpuModel } from './model.ts';
import { matmul, softmax } from './ops.ts';

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
