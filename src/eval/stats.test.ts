import { describe, expect, it } from 'vitest';
import { mcnemar, paretoFront, wilson } from './stats.ts';

describe('mcnemar', () => {
  it('gives the exact binomial p and the mid-p for 5 discordant tasks all one way', () => {
    // P(X ≤ 0) = 1/32 for X ~ Bin(5, ½): exact = 2/32, mid-p = 2/32 − 1/32.
    const r = mcnemar(5, 0);
    expect(r.pExact).toBeCloseTo(0.0625, 12);
    expect(r.pMid).toBeCloseTo(0.03125, 12);
    expect(mcnemar(0, 5)).toEqual(r);
  });
  it('is 1 with no discordant tasks and with an even split', () => {
    expect(mcnemar(0, 0)).toEqual({ pExact: 1, pMid: 1 });
    expect(mcnemar(3, 3).pExact).toBe(1);
  });
  it('matches a direct sum for a larger case (b = 30, c = 12)', () => {
    let tail = 0;
    let choose = 1;
    for (let k = 0; k <= 12; k++) {
      tail += choose / 2 ** 42;
      choose = (choose * (42 - k)) / (k + 1);
    }
    expect(mcnemar(30, 12).pExact).toBeCloseTo(2 * tail, 10);
    expect(mcnemar(30, 12).pMid).toBeLessThan(mcnemar(30, 12).pExact);
  });
});

describe('paretoFront', () => {
  it('keeps the methods no other beats on both accuracy and cost, cheapest first', () => {
    const front = paretoFront([
      { id: 'cot', accuracy: 0.7, cost: 400 },
      { id: 'sc', accuracy: 0.9, cost: 2000 },
      { id: 'debate', accuracy: 0.8, cost: 2800 },
      { id: 'reflexion', accuracy: 0.85, cost: 900 },
    ]);
    expect(front).toEqual(['cot', 'reflexion', 'sc']);
  });
  it('keeps equal points', () => {
    expect(
      paretoFront([
        { id: 'a', accuracy: 0.5, cost: 1 },
        { id: 'b', accuracy: 0.5, cost: 1 },
      ]),
    ).toEqual(['a', 'b']);
  });
});

describe('wilson (shared with the trainer)', () => {
  it('is the Wilson score interval', () => {
    const [lo, hi] = wilson(8, 10);
    expect(lo).toBeCloseTo(0.4902, 3);
    expect(hi).toBeCloseTo(0.9433, 3);
  });
});
