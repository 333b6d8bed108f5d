import { describe, expect, it } from 'vitest';
import { createRng } from '../core/rng.ts';
import type { GraphEdge } from '../core/graph.ts';
import { EDGE_CLEARANCE, routedPath, routeEdges, routeKey, type Point } from './layout-edges.ts';
import { layoutLayered, NODE_SIZE, RANK_SEP, type Positions } from './layout.ts';

const { width: W, height: H } = NODE_SIZE;

/** Every agent box a point lies in (with the clearance), by id. */
function boxesAt(positions: Positions, p: Point): string[] {
  return Object.entries(positions)
    .filter(
      ([, b]) =>
        p.x >= b.x && p.x <= b.x + W && p.y >= b.y - EDGE_CLEARANCE && p.y <= b.y + H + EDGE_CLEARANCE,
    )
    .map(([id]) => id);
}

/** Checks the route of every edge: clear of every box it passes, bending only between columns. */
function checkRoutes(positions: Positions, edges: readonly GraphEdge[]): number {
  const routes = routeEdges(positions, edges);
  for (const e of edges) {
    const points = routes.get(routeKey(e));
    if (!points) continue;
    const from = positions[e.from]!;
    const to = positions[e.to]!;
    const all = [{ x: from.x + W, y: from.y + H / 2 }, ...points, { x: to.x, y: to.y + H / 2 }];
    for (let i = 1; i < all.length; i++) {
      const p = all[i - 1]!;
      const q = all[i]!;
      expect(q.x).toBeGreaterThanOrEqual(p.x);
      if (i % 2 === 0) {
        // Straight through a column, clear of every box in it.
        expect(q.y).toBe(p.y);
        for (const x of [p.x, (p.x + q.x) / 2, q.x]) expect(boxesAt(positions, { x, y: p.y })).toEqual([]);
      } else {
        // A curve across a gap: no box lies in the x range it spans.
        const inGap = Object.values(positions).filter((b) => b.x < q.x && b.x + W > p.x);
        expect(inGap).toEqual([]);
      }
    }
  }
  return routes.size;
}

describe('routeEdges', () => {
  it('takes a long edge around the agent that sits on its straight line', () => {
    // a1 → final skips a2, which the layout puts level with a1 and final.
    const positions: Positions = {
      a1: { x: 0, y: 0 },
      a2: { x: W + RANK_SEP, y: 0 },
      final: { x: 2 * (W + RANK_SEP), y: 0 },
    };
    const edges = [
      { from: 'a1', to: 'a2' },
      { from: 'a2', to: 'final' },
      { from: 'a1', to: 'final' },
    ];
    const routes = routeEdges(positions, edges);
    expect(routes.has('a1>a2')).toBe(false);
    const points = routes.get('a1>final')!;
    expect(points).toHaveLength(2);
    expect(points[0]).toEqual({ x: W + RANK_SEP, y: points[1]!.y });
    expect(points[0]!.y < -EDGE_CLEARANCE || points[0]!.y > H + EDGE_CLEARANCE).toBe(true);
    expect(checkRoutes(positions, edges)).toBe(1);
  });

  it('keeps the straight line where it is already clear', () => {
    const positions: Positions = {
      a: { x: 0, y: 300 },
      b: { x: W + RANK_SEP, y: 0 },
      c: { x: 2 * (W + RANK_SEP), y: 300 },
    };
    const points = routeEdges(positions, [{ from: 'a', to: 'c' }]).get('a>c')!;
    expect(points.map((p) => p.y)).toEqual([300 + H / 2, 300 + H / 2]);
  });

  it('passes through a gap between two agents when that is nearest', () => {
    const positions: Positions = {
      a: { x: 0, y: 100 },
      up: { x: W + RANK_SEP, y: 0 },
      down: { x: W + RANK_SEP, y: H + 40 },
      c: { x: 2 * (W + RANK_SEP), y: 100 },
    };
    const [p] = routeEdges(positions, [{ from: 'a', to: 'c' }]).get('a>c')!;
    expect(p!.y).toBe(H + 20);
  });

  it('routes every long edge of random layered designs clear of every agent', () => {
    const r = createRng(7);
    let routed = 0;
    for (let g = 0; g < 40; g++) {
      const n = 4 + r.int(30);
      const nodes = Array.from({ length: n }, (_, i) => `n${i}`);
      const edges = nodes
        .slice(1)
        .flatMap((to, i) =>
          Array.from({ length: 1 + r.int(3) }, () => ({ from: nodes[Math.max(0, i - r.int(8))]!, to })),
        );
      routed += checkRoutes(layoutLayered({ nodes, edges }), edges);
    }
    expect(routed).toBeGreaterThan(50);
  });
});

describe('routedPath', () => {
  it('curves across gaps and runs straight through columns', () => {
    const d = routedPath(
      { x: 0, y: 0 },
      [
        { x: 100, y: 50 },
        { x: 300, y: 50 },
      ],
      { x: 400, y: 0 },
    );
    expect(d).toBe('M 0,0 C 50,0 50,50 100,50 L 300,50 C 350,50 350,0 400,0');
  });
});
