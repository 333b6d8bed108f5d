import { describe, expect, it } from 'vitest';
import { pairedBootstrap, sampleStd, t975, tInterval } from './ablation-stats.ts';

describe('tInterval', () => {
  it('matches a hand computation for five seeds', () => {
    // mean 0.5, s² = (0.01 + 0.0025 + 0 + 0.0025 + 0.01)/4 = 0.00625, s = 0.0790569
    const xs = [0.4, 0.45, 0.5, 0.55, 0.6];
    expect(sampleStd(xs)).toBeCloseTo(0.0790569, 6);
    const r = tInterval(xs);
    const half = (2.776 * 0.0790569) / Math.sqrt(5);
    expect(r.mean).toBeCloseTo(0.5, 12);
    expect(r.interval[0]).toBeCloseTo(0.5 - half, 6);
    expect(r.interval[1]).toBeCloseTo(0.5 + half, 6);
  });

  it('has no spread for one value and uses 1.96 beyond 30 degrees of freedom', () => {
    expect(tInterval([0.3]).interval).toEqual([0.3, 0.3]);
    expect(t975(4)).toBe(2.776);
    expect(t975(200)).toBe(1.96);
    expect(t975(0)).toBeNaN();
  });
});

describe('pairedBootstrap', () => {
  it('is centred on the paired difference and excludes 0 when b is clearly better', () => {
    const a = Array.from({ length: 100 }, (_, i) => (i < 50 ? 1 : 0));
    const b = Array.from({ length: 100 }, (_, i) => (i < 80 ? 1 : 0));
    const r = pairedBootstrap(a, b, 7);
    expect(r.difference).toBeCloseTo(0.3, 12);
    expect(r.onlyB).toBe(30);
    expect(r.onlyA).toBe(0);
    expect(r.interval[0]).toBeGreaterThan(0.15);
    expect(r.interval[1]).toBeLessThan(0.45);
    expect(r.interval[0]).toBeLessThan(0.3);
    expect(pairedBootstrap(a, b, 7)).toEqual(r);
  });

  it('contains 0 when the two agree except for balanced swaps, and rejects unpaired input', () => {
    const a = Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? 1 : 0));
    const b = Array.from({ length: 60 }, (_, i) => (i % 2 === 1 ? 1 : 0));
    const r = pairedBootstrap(a, b, 3);
    expect(r.difference).toBe(0);
    expect(r.interval[0]).toBeLessThan(0);
    expect(r.interval[1]).toBeGreaterThan(0);
    expect(() => pairedBootstrap([1], [1, 0])).toThrow(/differ in length/);
  });
});
