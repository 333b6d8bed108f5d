import { describe, expect, it } from 'vitest';
import { buildLayered, crossings, orderLayers } from './layout-order.ts';
import { rankNodes } from './layout-rank.ts';

const layered = (n: number, edges: [number, number][]) => buildLayered(n, rankNodes(n, edges));

describe('buildLayered', () => {
  it('splits a long edge into one dummy per rank it passes', () => {
    // 0 → 1 → 2 → 3 and the long edge 0 → 3.
    const l = layered(4, [
      [0, 1],
      [1, 2],
      [2, 3],
      [0, 3],
    ]);
    expect(l.rank.length).toBe(6);
    expect(l.chains[3]).toEqual([0, 4, 5, 3]);
    expect(Array.from(l.rank.slice(4))).toEqual([1, 2]);
    expect(l.edgeOf[4]).toBe(3);
    expect(l.layers.map((layer) => layer.length)).toEqual([1, 2, 2, 1]);
  });
});

describe('orderLayers', () => {
  it('counts crossings between adjacent ranks', () => {
    // 0 → 3, 1 → 2 with ranks [0, 1] and [2, 3]: one crossing.
    const l = layered(4, [
      [0, 3],
      [1, 2],
    ]);
    l.layers = [
      [0, 1],
      [2, 3],
    ];
    expect(crossings(l)).toBe(1);
    l.layers = [
      [0, 1],
      [3, 2],
    ];
    expect(crossings(l)).toBe(0);
  });

  it('removes the crossings of a crossed ladder, deterministically', () => {
    // Two rows 0..4 and 5..9 linked i → 9 - i, both rows in index order: every pair crosses.
    const edges = Array.from({ length: 5 }, (_, i) => [i, 9 - i] as [number, number]);
    const crossed = (): ReturnType<typeof layered> => {
      const l = layered(10, edges);
      l.layers = [
        [0, 1, 2, 3, 4],
        [5, 6, 7, 8, 9],
      ];
      return l;
    };
    const a = crossed();
    expect(crossings(a)).toBe(10);
    orderLayers(a);
    expect(crossings(a)).toBe(0);
    const b = crossed();
    orderLayers(b);
    expect(b.layers).toEqual(a.layers);
  });

  it('never ends with more crossings than it started with', () => {
    const edges: [number, number][] = [];
    for (let i = 0; i < 40; i++)
      edges.push([i % 10, 10 + ((i * 7) % 10)], [10 + (i % 10), 20 + ((i * 3) % 10)]);
    const l = layered(30, edges);
    const before = crossings(l);
    orderLayers(l);
    expect(crossings(l)).toBeLessThanOrEqual(before);
    for (const layer of l.layers) expect(new Set(layer).size).toBe(layer.length);
  });
});
