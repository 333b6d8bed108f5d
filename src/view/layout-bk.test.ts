import { describe, expect, it } from 'vitest';
import { bkCoordinates, dagreGrid } from './layout-bk.ts';
import { buildLayered, orderLayers } from './layout-order.ts';
import { rankNodes } from './layout-rank.ts';

const SIZES = { node: 104, nodeSep: 24, edgeSep: 20 };

function grid(n: number, edges: [number, number][]) {
  const l = buildLayered(n, rankNodes(n, edges));
  orderLayers(l);
  return dagreGrid(l);
}

describe('dagreGrid', () => {
  it('doubles every edge: a dummy on the odd rank between two of ours', () => {
    const g = grid(3, [
      [0, 1],
      [1, 2],
      [0, 2],
    ]);
    // Our ranks 0, 1, 2 become 0, 2, 4; the long edge 0 → 2 crosses ranks 1, 2 and 3.
    expect(g.layers.map((layer) => layer.length)).toEqual([1, 2, 2, 2, 1]);
    expect(g.chains[2]).toHaveLength(5);
    expect(g.chains[0]).toEqual([0, g.chains[0]![1], 1]);
    for (const chain of g.chains) {
      for (let j = 1; j < chain.length; j++) expect(g.pred[chain[j]!]).toContain(chain[j - 1]);
    }
  });
});

describe('bkCoordinates', () => {
  it('draws a chain as a straight line', () => {
    const g = grid(4, [
      [0, 1],
      [1, 2],
      [2, 3],
    ]);
    const x = bkCoordinates(g, SIZES);
    expect(new Set([0, 1, 2, 3].map((v) => x[v]))).toEqual(new Set([x[0]]));
  });

  it('keeps nodes of a rank apart and centres a node between its two successors', () => {
    const g = grid(4, [
      [0, 1],
      [0, 2],
      [1, 3],
      [2, 3],
    ]);
    const x = bkCoordinates(g, SIZES);
    expect(Math.abs(x[1]! - x[2]!)).toBeGreaterThanOrEqual(SIZES.node + SIZES.nodeSep);
    expect(x[0]).toBeCloseTo((x[1]! + x[2]!) / 2);
    expect(x[3]).toBeCloseTo(x[0]!);
  });
});
