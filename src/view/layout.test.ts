import { describe, expect, it } from 'vitest';
import { createRng } from '../core/rng.ts';
import { MAX_GRID_ITEMS } from './layout-layering.ts';
import { layoutDagre } from './layout-dagre.ts';
import {
  fitsDagre,
  layoutKey,
  layoutLayered,
  NODE_SIZE,
  type LayoutGraph,
  type Positions,
} from './layout.ts';

const diamond: LayoutGraph = {
  nodes: ['a', 'b', 'c', 'd'],
  edges: [
    { from: 'a', to: 'b' },
    { from: 'a', to: 'c' },
    { from: 'b', to: 'd' },
    { from: 'c', to: 'd' },
  ],
};

const overlaps = (pos: Positions): boolean => {
  const boxes = Object.values(pos);
  return boxes.some((p, i) =>
    boxes.some(
      (q, j) => i < j && Math.abs(p.x - q.x) < NODE_SIZE.width && Math.abs(p.y - q.y) < NODE_SIZE.height,
    ),
  );
};

/** Agents in ≈√n layers, each fed by 1–2 agents of the layer before (the viewer benchmark's shape). */
function layeredDag(n: number, seed: number): LayoutGraph {
  const r = createRng(seed);
  const layers = Math.max(2, Math.round(Math.sqrt(n) / 1.2));
  const nodes = Array.from({ length: n }, (_, i) => `a${i}`);
  const layerOf = (i: number): number => Math.floor((i * layers) / n);
  const edges = nodes.flatMap((to, i) => {
    const l = layerOf(i);
    if (l === 0) return [];
    const prev = nodes.filter((_, j) => layerOf(j) === l - 1);
    const k = 1 + r.int(2);
    return Array.from({ length: k }, () => ({ from: r.pick(prev), to }));
  });
  return { nodes, edges };
}

/** Random DAG with links reaching back up to 30 agents: long edges, many dummies. */
function randomDag(n: number, seed: number): LayoutGraph {
  const r = createRng(seed);
  const nodes = Array.from({ length: n }, (_, i) => `r${i}`);
  const edges = nodes.slice(1).flatMap((to, i) =>
    Array.from({ length: 1 + Math.floor(r.next() * 2.5) }, () => ({
      from: nodes[Math.max(0, i - r.int(Math.min(i + 1, 30)))]!,
      to,
    })),
  );
  return { nodes, edges };
}

describe.each([
  ['dagre', layoutDagre],
  ['layered', layoutLayered],
] as const)('%s layout', (_name, layout) => {
  it('places every node left to right along the edges, without overlaps', () => {
    const pos = layout(diamond);
    expect(Object.keys(pos).sort()).toEqual(['a', 'b', 'c', 'd']);
    for (const e of diamond.edges) expect(pos[e.to]!.x).toBeGreaterThan(pos[e.from]!.x);
    expect(pos.b!.x).toBe(pos.c!.x);
    expect(pos.b!.y).not.toBe(pos.c!.y);
    expect(overlaps(pos)).toBe(false);
  });

  it('is deterministic and tolerates bad edges, cycles and duplicate ids', () => {
    const messy: LayoutGraph = {
      nodes: ['x', 'y', 'z', 'y'],
      edges: [
        { from: 'x', to: 'x' },
        { from: 'x', to: 'ghost' },
        { from: 'x', to: 'y' },
        { from: 'x', to: 'y' },
        { from: 'y', to: 'z' },
        { from: 'z', to: 'x' },
      ],
    };
    expect(layout(messy)).toEqual(layout(messy));
    expect(Object.keys(layout(messy)).sort()).toEqual(['x', 'y', 'z']);
    expect(layout(messy).y!.x).toBeGreaterThan(layout(messy).x!.x);
    expect(layout({ nodes: [], edges: [] })).toEqual({});
  });
});

describe('layered layout against dagre', () => {
  // The app shows `layoutLayered` (its reference is dagre on the same layering): node for node
  // the positions dagre returns.
  const graphs: [string, LayoutGraph][] = [
    ['diamond', diamond],
    ['isolated and disconnected', { nodes: ['a', 'b', 'c', 'd', 'e'], edges: [{ from: 'a', to: 'b' }] }],
    [
      'fan out, fan in',
      {
        nodes: ['plan', ...Array.from({ length: 30 }, (_, i) => `w${i}`), 'sum'],
        edges: Array.from({ length: 30 }, (_, i) => [
          { from: 'plan', to: `w${i}` },
          { from: `w${i}`, to: 'sum' },
        ]).flat(),
      },
    ],
    ['layered 120', layeredDag(120, 1)],
    ['layered 400', layeredDag(400, 2)],
    ...[3, 4, 5, 6, 7, 8].map((s): [string, LayoutGraph] => [`random ${20 * s}`, randomDag(20 * s, s)]),
  ];

  it.each(graphs)('%s: every node where dagre puts it', (_name, graph) => {
    expect(layoutLayered(graph)).toEqual(layoutDagre(graph));
  });

  it('a source feeding only the sink sits in the column before it', () => {
    const g: LayoutGraph = {
      nodes: ['a', 'b', 'c', 'hint'],
      edges: [
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c' },
        { from: 'hint', to: 'c' },
      ],
    };
    const pos = layoutLayered(g);
    expect(pos.hint!.x).toBe(pos.b!.x);
  });
});

describe('layered layout at scale', () => {
  it('lays out 1,000 agents fast enough to show them at once', () => {
    const graph = layeredDag(1000, 3);
    layoutLayered(graph);
    const t = performance.now();
    const pos = layoutLayered(graph);
    // ≈10 ms on the reference machine; generous for a loaded CI box.
    expect(performance.now() - t).toBeLessThan(300);
    expect(Object.keys(pos)).toHaveLength(1000);
    expect(overlaps(pos)).toBe(false);
  });

  it('falls back to a stacked layout when long edges would need too many bends', () => {
    // A chain of 300, each agent also linked to the next 149: millions of dummies in dagre's grid.
    const nodes = Array.from({ length: 300 }, (_, i) => `n${i}`);
    const edges = nodes.flatMap((from, i) => nodes.slice(i + 1, i + 150).map((to) => ({ from, to })));
    expect(fitsDagre({ nodes, edges })).toBe(false);
    expect(fitsDagre(layeredDag(1000, 3))).toBe(true);
    const t = performance.now();
    const pos = layoutLayered({ nodes, edges });
    expect(performance.now() - t).toBeLessThan(1000);
    expect(Object.keys(pos)).toHaveLength(300);
    for (let i = 1; i < 300; i++) expect(pos[`n${i}`]!.x).toBeGreaterThan(pos[`n${i - 1}`]!.x);
    expect(MAX_GRID_ITEMS).toBeGreaterThan(10_000);
  });
});

describe('layoutKey', () => {
  it('changes when the graph changes', () => {
    const k = layoutKey(diamond);
    expect(layoutKey({ ...diamond })).toBe(k);
    expect(layoutKey({ ...diamond, edges: diamond.edges.slice(1) })).not.toBe(k);
    expect(layoutKey({ nodes: ['ab'], edges: [] })).not.toBe(layoutKey({ nodes: ['a', 'b'], edges: [] }));
  });
});
