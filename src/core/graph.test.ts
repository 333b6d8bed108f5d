import { describe, expect, it } from 'vitest';
import { adjacency, longestPath, topoOrder, type GraphEdge } from './graph.ts';
import { createRng } from './rng.ts';

// The Map-keyed forms the index-based ones replaced: the reference for their results, ties included.
function refTopo(nodes: readonly string[], edges: readonly GraphEdge[]): string[] | null {
  const { out, in: inn } = adjacency(nodes, edges);
  const indeg = new Map(nodes.map((n) => [n, inn.get(n)?.length ?? 0]));
  const queue = nodes.filter((n) => indeg.get(n) === 0);
  for (let i = 0; i < queue.length; i++)
    for (const m of out.get(queue[i] as string) ?? []) {
      const d = (indeg.get(m) ?? 0) - 1;
      indeg.set(m, d);
      if (d === 0) queue.push(m);
    }
  return queue.length === nodes.length ? queue : null;
}
function refLongest(nodes: readonly string[], edges: readonly GraphEdge[], w: (n: string) => number) {
  const order = refTopo(nodes, edges);
  if (!order) return { length: 0, path: [] as string[] };
  const { in: inn } = adjacency(nodes, edges);
  const best = new Map<string, number>();
  const prev = new Map<string, string | null>();
  for (const n of order) {
    let [b, p]: [number, string | null] = [0, null];
    for (const m of inn.get(n) ?? []) if ((best.get(m) ?? 0) > b) [b, p] = [best.get(m) ?? 0, m];
    best.set(n, b + w(n));
    prev.set(n, p);
  }
  let [end, length]: [string | null, number] = [null, 0];
  for (const [n, v] of best) if (end === null || v > length) [end, length] = [n, v];
  const path: string[] = [];
  for (let n = end; n !== null; n = prev.get(n) ?? null) path.unshift(n);
  return { length, path };
}

describe('graph orders and paths over node indices', () => {
  it('match the Map-keyed forms on random graphs (cycles, unknown ids, repeated edges, ties)', () => {
    const rng = createRng(11);
    let dags = 0;
    for (let trial = 0; trial < 600; trial++) {
      const n = rng.int(9);
      const nodes = Array.from({ length: n }, (_, i) => `n${(i * 7 + trial) % 13}`);
      const unique = [...new Set(nodes)];
      const ids = trial % 5 === 0 ? nodes : unique; // every fifth graph may repeat ids
      const edges: GraphEdge[] = [];
      const m = rng.int(12);
      for (let k = 0; k < m; k++) {
        const pick = (): string =>
          rng.next() < 0.08 ? 'ghost' : (ids[rng.int(Math.max(ids.length, 1))] ?? 'x');
        const [a, b] = [pick(), pick()];
        // Mostly forward edges, so that most graphs are DAGs; some go back and make cycles.
        const forward = ids.indexOf(a) <= ids.indexOf(b) || rng.next() < 0.1;
        if (a !== b || rng.next() < 0.05) edges.push(forward ? { from: a, to: b } : { from: b, to: a });
      }
      const weights = new Map(ids.map((id) => [id, rng.int(4)]));
      const w = (id: string): number => weights.get(id) ?? 0;
      const order = topoOrder(ids, edges);
      expect(order).toEqual(refTopo(ids, edges));
      expect(longestPath(ids, edges, w)).toEqual(refLongest(ids, edges, w));
      if (order) dags++;
    }
    // The draw covers both outcomes.
    expect(dags).toBeGreaterThan(100);
    expect(dags).toBeLessThan(590);
  });

  it('keeps input order among ready nodes and stops at a cycle', () => {
    expect(topoOrder(['a', 'b', 'c'], [{ from: 'a', to: 'b' }])).toEqual(['a', 'c', 'b']);
    expect(topoOrder(['a', 'b'], [{ from: 'ghost', to: 'b' }])).toBeNull();
    expect(topoOrder(['a', 'b'], [{ from: 'a', to: 'ghost' }])).toEqual(['a', 'b']);
    expect(
      topoOrder(
        ['a', 'b'],
        [
          { from: 'a', to: 'b' },
          { from: 'b', to: 'a' },
        ],
      ),
    ).toBeNull();
    const tie = longestPath(
      ['a', 'b', 'c'],
      [
        { from: 'a', to: 'c' },
        { from: 'b', to: 'c' },
      ],
      () => 1,
    );
    expect(tie).toEqual({ length: 2, path: ['a', 'c'] });
  });
});
