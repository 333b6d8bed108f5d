import { describe, expect, it } from 'vitest';
import { pointLabel } from './charts.ts';

describe('Pareto point labels', () => {
  it('go left of points near the right edge and stay below the top margin', () => {
    expect(pointLabel(100, 200, 1000, 16)).toEqual({ x: 109, y: 194, textAnchor: 'start' });
    expect(pointLabel(990, 200, 1000, 16)).toEqual({ x: 981, y: 194, textAnchor: 'end' });
    expect(pointLabel(500, 12, 1000, 16).y).toBe(26);
  });
});
