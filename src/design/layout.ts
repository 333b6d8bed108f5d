import dagre from '@dagrejs/dagre';
import { adjacency, topoOrder, type GraphEdge } from '../core/graph.ts';

/**
 * Automatic left-to-right layout of a MAS design for the graph view. Pure: ids and edges in,
 * top-left node positions out (React Flow's convention). Two engines:
 * - `dagre`: the layered Sugiyama layout, nicest, but superlinear (≈0.3 s for 150 agents, seconds
 *   for 1,000), so big graphs run it in a worker;
 * - `layered`: longest-path ranks plus one barycentre sweep, O(V + E log E); used as the instant
 *   provisional layout while dagre runs off the main thread.
 */

/** Node box used for layout, in px; the graph node is drawn at this size (src/ui/graph/graph.css). */
export const NODE_SIZE = { width: 230, height: 104 } as const;

export interface LayoutGraph {
  nodes: readonly string[];
  edges: readonly GraphEdge[];
}

export type Positions = Record<string, { x: number; y: number }>;

export type LayoutEngine = 'dagre' | 'layered';

const RANK_SEP = 70;
const NODE_SEP = 24;

/** A stable signature of the graph, so a layout computed once can be reused and stale ones dropped. */
export function layoutKey(graph: LayoutGraph): string {
  let h = 0x811c9dc5;
  const mix = (s: string): void => {
    for (let i = 0; i < s.length; i++) {
      h ^= s.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    h ^= 0xff;
  };
  for (const n of graph.nodes) mix(n);
  mix('|');
  for (const e of graph.edges) mix(`${e.from}>${e.to}`);
  return `${graph.nodes.length}:${graph.edges.length}:${h.toString(36)}`;
}

/** Edges whose endpoints both exist, without self-loops or duplicates (layout must never throw). */
function cleanEdges(graph: LayoutGraph): GraphEdge[] {
  const ids = new Set(graph.nodes);
  const seen = new Set<string>();
  const out: GraphEdge[] = [];
  for (const e of graph.edges) {
    const k = `${e.from}\u0000${e.to}`;
    if (e.from === e.to || !ids.has(e.from) || !ids.has(e.to) || seen.has(k)) continue;
    seen.add(k);
    out.push({ from: e.from, to: e.to });
  }
  return out;
}

/** Dagre's layered layout, left to right. Above 300 nodes the cheaper tight-tree ranker is used. */
export function layoutDagre(graph: LayoutGraph): Positions {
  const g = new dagre.graphlib.Graph();
  g.setGraph({
    rankdir: 'LR',
    nodesep: NODE_SEP,
    ranksep: RANK_SEP,
    marginx: 0,
    marginy: 0,
    ranker: graph.nodes.length > 300 ? 'tight-tree' : 'network-simplex',
  });
  g.setDefaultEdgeLabel(() => ({}));
  const unique = [...new Set(graph.nodes)];
  for (const id of unique) g.setNode(id, { width: NODE_SIZE.width, height: NODE_SIZE.height });
  for (const e of cleanEdges(graph)) g.setEdge(e.from, e.to);
  dagre.layout(g);
  const out: Positions = {};
  for (const id of unique) {
    const n = g.node(id) as { x: number; y: number } | undefined;
    // Dagre reports centres; React Flow positions are top-left corners.
    out[id] = n
      ? { x: Math.round(n.x - NODE_SIZE.width / 2), y: Math.round(n.y - NODE_SIZE.height / 2) }
      : { x: 0, y: 0 };
  }
  return out;
}

/**
 * Fast layered layout: rank = longest path from a start (cycles, which a valid design has not, fall
 * back to input order), then nodes in each rank ordered by the mean position of their predecessors.
 */
export function layoutLayered(graph: LayoutGraph): Positions {
  const nodes = [...new Set(graph.nodes)];
  const edges = cleanEdges({ nodes, edges: graph.edges });
  const { in: inn } = adjacency(nodes, edges);
  const order = topoOrder(nodes, edges) ?? nodes;
  const rank = new Map<string, number>();
  for (const n of order) {
    let r = 0;
    for (const p of inn.get(n) ?? []) r = Math.max(r, (rank.get(p) ?? 0) + 1);
    rank.set(n, r);
  }
  const layers: string[][] = [];
  for (const n of order) {
    const r = rank.get(n) ?? 0;
    (layers[r] ??= []).push(n);
  }
  const slot = new Map<string, number>();
  const out: Positions = {};
  let maxHeight = 0;
  const heights = layers.map((l) => l.length * (NODE_SIZE.height + NODE_SEP) - NODE_SEP);
  for (const h of heights) maxHeight = Math.max(maxHeight, h);
  layers.forEach((layer, r) => {
    const keyed = layer.map((n, i) => {
      const preds = inn.get(n) ?? [];
      let sum = 0;
      for (const p of preds) sum += slot.get(p) ?? 0;
      return { n, key: preds.length > 0 ? sum / preds.length : i, i };
    });
    keyed.sort((a, b) => a.key - b.key || a.i - b.i);
    const top = (maxHeight - (heights[r] ?? 0)) / 2;
    keyed.forEach(({ n }, i) => {
      slot.set(n, i);
      out[n] = {
        x: r * (NODE_SIZE.width + RANK_SEP),
        y: Math.round(top + i * (NODE_SIZE.height + NODE_SEP)),
      };
    });
  });
  return out;
}

export function layoutGraph(graph: LayoutGraph, engine: LayoutEngine): Positions {
  return engine === 'dagre' ? layoutDagre(graph) : layoutLayered(graph);
}
