import { describe, expect, it } from 'vitest';
import { rankNodes } from './layout-rank.ts';

describe('rankNodes', () => {
  it('ranks by longest path from the starts', () => {
    // 0 → 1 → 2, 0 → 2, 3 → 4 (two components)
    const { rank, edges } = rankNodes(5, [
      [0, 1],
      [1, 2],
      [0, 2],
      [3, 4],
    ]);
    expect(Array.from(rank)).toEqual([0, 1, 2, 0, 1]);
    expect(edges).toHaveLength(4);
  });

  it('moves a node with more links out than in next to its successors', () => {
    // 0 → 1 → 2 → 3 and a source 4 feeding only 3: it belongs in rank 2, not 0.
    const { rank } = rankNodes(5, [
      [0, 1],
      [1, 2],
      [2, 3],
      [4, 3],
    ]);
    expect(rank[4]).toBe(2);
    // A node with as many links in as out stays where the longest path put it.
    const balanced = rankNodes(4, [
      [0, 1],
      [1, 3],
      [0, 2],
      [2, 3],
    ]).rank;
    expect(Array.from(balanced)).toEqual([0, 1, 1, 2]);
  });

  it('closes ranks left empty', () => {
    // Both starts move right, so rank 0 would be empty.
    const { rank } = rankNodes(4, [
      [0, 2],
      [1, 2],
      [0, 3],
      [1, 3],
    ]);
    expect(Math.min(...rank)).toBe(0);
    expect(Array.from(rank)).toEqual([0, 0, 1, 1]);
  });

  it('drops the edges that close a cycle and keeps every edge pointing right', () => {
    const { rank, edges } = rankNodes(3, [
      [0, 1],
      [1, 2],
      [2, 0],
    ]);
    expect(edges.length).toBeLessThan(3);
    for (const [u, v] of edges) expect(rank[v]!).toBeGreaterThan(rank[u]!);
  });
});
