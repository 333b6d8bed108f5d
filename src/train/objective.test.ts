import { describe, expect, it } from 'vitest';
import { ppoObjective, type ObjectiveInput } from './objective.ts';

const base: ObjectiveInput = {
  logp: [-1.0, -2.0, -0.5, -3.0],
  oldLogp: [-1.1, -1.7, -0.5, -2.0],
  refLogp: [-1.2, -2.1, -0.4, -2.5],
  advantages: [1.5, -0.7, 2.0, -1.0],
  weights: [1, 1, 1, 0],
  clipEps: 0.2,
  klCoef: 0.1,
};

describe('ppoObjective', () => {
  it('matches finite differences of the loss in each log-prob', () => {
    const h = 1e-6;
    const r = ppoObjective(base);
    for (let i = 0; i < 4; i++) {
      const at = (d: number): number => {
        const logp = Array.from(base.logp);
        logp[i] = (logp[i] as number) + d;
        return ppoObjective({ ...base, logp }).loss;
      };
      expect(r.grad[i]).toBeCloseTo((at(h) - at(-h)) / (2 * h), 6);
    }
  });

  it('computes the loss by hand', () => {
    const r = ppoObjective({ ...base, klCoef: 0 });
    const r0 = Math.exp(0.1);
    const r1 = Math.exp(-0.3); // A < 0 and r < 0.8: clipped to 0.8
    const expected = -(r0 * 1.5 + 0.8 * -0.7 + 1 * 2.0) / 3;
    expect(r.loss).toBeCloseTo(expected, 12);
    expect(r.clipFraction).toBeCloseTo(1 / 3, 12);
    expect(r.grad[1]).toBe(0);
    expect(r.ratioMin).toBeCloseTo(r1, 12);
  });

  it('keeps the gradient at exactly 1 ± ε and drops it just past, by the advantage sign', () => {
    const one = (ratio: number, a: number): ReturnType<typeof ppoObjective> =>
      ppoObjective({
        logp: [Math.log(ratio)],
        oldLogp: [0],
        refLogp: null,
        advantages: [a],
        weights: [1],
        clipEps: 0.2,
        klCoef: 0,
      });
    expect(one(1.2, 1).grad[0]).toBeCloseTo(-1.2, 12);
    expect(one(1.2 + 1e-9, 1).grad[0]).toBe(0);
    expect(one(1.5, -1).grad[0]).toBeCloseTo(1.5, 12); // A < 0: a large ratio is not clipped
    expect(one(0.8, -1).grad[0]).toBeCloseTo(0.8, 12);
    expect(one(0.8 - 1e-9, -1).grad[0]).toBe(0);
    expect(one(0.5, 1).grad[0]).toBeCloseTo(-0.5, 12); // A > 0: a small ratio is not clipped
  });

  it('has zero KL and zero KL gradient when θ = ref', () => {
    const r = ppoObjective({ ...base, refLogp: base.logp, advantages: [0, 0, 0, 0] });
    expect(r.kl).toBe(0);
    expect(Array.from(r.grad)).toEqual([0, 0, 0, 0]);
    expect(ppoObjective(base).kl).toBeGreaterThan(0);
  });
});
