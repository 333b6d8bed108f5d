import { describe, expect, it } from 'vitest';
import { layoutDagre, layoutKey, layoutLayered, NODE_SIZE, type LayoutGraph } from './layout.ts';

const diamond: LayoutGraph = {
  nodes: ['a', 'b', 'c', 'd'],
  edges: [
    { from: 'a', to: 'b' },
    { from: 'a', to: 'c' },
    { from: 'b', to: 'd' },
    { from: 'c', to: 'd' },
  ],
};

const overlaps = (pos: Record<string, { x: number; y: number }>): boolean => {
  const boxes = Object.values(pos);
  return boxes.some((p, i) =>
    boxes.some(
      (q, j) => i < j && Math.abs(p.x - q.x) < NODE_SIZE.width && Math.abs(p.y - q.y) < NODE_SIZE.height,
    ),
  );
};

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

  it('is deterministic and tolerates bad edges', () => {
    const messy: LayoutGraph = {
      nodes: ['x', 'y'],
      edges: [
        { from: 'x', to: 'x' },
        { from: 'x', to: 'ghost' },
        { from: 'x', to: 'y' },
        { from: 'x', to: 'y' },
      ],
    };
    expect(layout(messy)).toEqual(layout(messy));
    expect(layout(messy).y!.x).toBeGreaterThan(layout(messy).x!.x);
    expect(layout({ nodes: [], edges: [] })).toEqual({});
  });
});

describe('layered layout at scale', () => {
  it('lays out 1,000 agents fast enough to show them at once', () => {
    const nodes = Array.from({ length: 1000 }, (_, i) => `n${i}`);
    const edges = nodes.slice(50).map((to, i) => ({ from: `n${i}`, to }));
    const t = performance.now();
    const pos = layoutLayered({ nodes, edges });
    expect(performance.now() - t).toBeLessThan(300);
    expect(Object.keys(pos)).toHaveLength(1000);
    expect(overlaps(Object.fromEntries(Object.entries(pos).slice(0, 120)))).toBe(false);
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
