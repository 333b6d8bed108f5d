import { describe, expect, it } from 'vitest';
import type { Design } from '../core/trace.ts';
import { designDepth, designWidth } from './metrics.ts';

const design = (ids: string[], edges: [string, string][]): Design => ({
  dom: 'high',
  agents: ids.map((id) => ({ id, type: 'CoTAgent' as const, description: '', input: '', params: {} })),
  edges: edges.map(([from, to]) => ({ from, to })),
});

describe('designWidth', () => {
  it('is 0 without agents and 1 for one agent or a chain', () => {
    expect(designWidth(design([], []))).toBe(0);
    expect(designWidth(design(['a'], []))).toBe(1);
    expect(
      designWidth(
        design(
          ['a', 'b', 'c'],
          [
            ['a', 'b'],
            ['b', 'c'],
          ],
        ),
      ),
    ).toBe(1);
  });

  it('counts agents side by side: two solvers then a merge is 2, three unconnected agents are 3', () => {
    expect(
      designWidth(
        design(
          ['s1', 's2', 'm'],
          [
            ['s1', 'm'],
            ['s2', 'm'],
          ],
        ),
      ),
    ).toBe(2);
    expect(designWidth(design(['a', 'b', 'c'], []))).toBe(3);
  });

  it('places an agent at its longest chain: a skip edge does not widen the first level', () => {
    // a → b → c and a → c: levels 0, 1, 2 (c waits for b), so width 1 while depth is 3.
    const d = design(
      ['a', 'b', 'c'],
      [
        ['a', 'b'],
        ['b', 'c'],
        ['a', 'c'],
      ],
    );
    expect(designWidth(d)).toBe(1);
    expect(designDepth(d)).toBe(3);
    // a → {b, c, d} → e: the middle level holds 3.
    const fan = design(
      ['a', 'b', 'c', 'd', 'e'],
      [
        ['a', 'b'],
        ['a', 'c'],
        ['a', 'd'],
        ['b', 'e'],
        ['c', 'e'],
        ['d', 'e'],
      ],
    );
    expect(designWidth(fan)).toBe(3);
  });

  it('does not depend on the order the agents are listed in', () => {
    const d = design(
      ['m', 's2', 's1'],
      [
        ['s1', 'm'],
        ['s2', 'm'],
      ],
    );
    expect(designWidth(d)).toBe(2);
  });
});
