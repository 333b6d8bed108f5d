import { describe, expect, it } from 'vitest';
import { ema } from './smooth.ts';

describe('ema (debiased, as W&B smooths)', () => {
  it('gives the values back at weight 0', () => {
    expect(ema([1, 5, null, 2], 0)).toEqual([1, 5, null, 2]);
  });

  it('is debiased: a constant series stays constant from the first point', () => {
    for (const v of ema([3, 3, 3, 3], 0.9)) expect(v).toBeCloseTo(3, 12);
  });

  it('matches the recurrence by hand, gaps kept and not counted', () => {
    const w = 0.5;
    // s1 = 0.5·2 = 1 → 1 / (1 − 0.5) = 2; s2 = 0.5·1 + 0.5·4 = 2.5 → 2.5 / 0.75.
    const out = ema([2, null, 4], w);
    expect(out[0]).toBeCloseTo(2, 12);
    expect(out[1]).toBeNull();
    expect(out[2]).toBeCloseTo(2.5 / 0.75, 12);
  });

  it('lags behind a step and damps noise more as the weight grows', () => {
    const step = [0, 0, 0, 0, 1, 1, 1, 1];
    const light = ema(step, 0.3);
    const heavy = ema(step, 0.9);
    expect(heavy[4] as number).toBeLessThan(light[4] as number);
    expect(light[7] as number).toBeLessThanOrEqual(1);
    const noisy = Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? 1 : -1));
    const spread = (xs: (number | null)[]) => {
      const tail = xs.slice(100) as number[];
      return Math.max(...tail) - Math.min(...tail);
    };
    expect(spread(ema(noisy, 0.9))).toBeLessThan(spread(ema(noisy, 0.5)));
    expect(spread(ema(noisy, 0.5))).toBeLessThan(2);
  });

  it('clamps the weight and ignores NaN', () => {
    expect(ema([1, NaN, 2], -1)).toEqual([1, null, 2]);
    expect(ema([4, 4], 5).every((v) => Math.abs((v as number) - 4) < 1e-9)).toBe(true);
  });
});
