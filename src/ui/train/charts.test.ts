import { describe, expect, it } from 'vitest';
import { SERIES } from '../../store/slices/train-ring.ts';
import { CHARTS, ITERATION_TICKS, stack } from './charts.ts';

describe('training charts', () => {
  it('stacks role shares bottom-up, so each band spans exactly its own share', () => {
    const s = stack([
      [0.5, 0.2],
      [0.25, 0.3],
      [0.25, 0.5],
    ]);
    expect(s).toEqual([
      [0.5, 0.2],
      [0.75, 0.5],
      [1, 1],
    ]);
  });

  it('draws only series the ring buffer holds, and every metric the page promises', () => {
    const drawn = CHARTS.flatMap((c) => [...c.lines.map((l) => l.series), ...(c.band ? [c.band] : [])]);
    for (const s of drawn) expect(SERIES).toContain(s);
    for (const s of [
      'reward',
      'rewardStd',
      'accuracy',
      'heldout',
      'tokens',
      'agents',
      'edges',
      'nodeEntropy',
      'edgeEntropy',
      'kl',
      'clipFraction',
      'gradNorm',
      'eps',
    ])
      expect(drawn).toContain(s);
  });
});

describe('the iteration axis', () => {
  it('ticks at whole iterations only, in increasing steps', () => {
    expect(ITERATION_TICKS.slice(0, 7)).toEqual([1, 2, 5, 10, 20, 50, 100]);
    expect(ITERATION_TICKS.every((x) => Number.isInteger(x))).toBe(true);
  });
});
