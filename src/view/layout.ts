import type { GraphEdge } from '../core/graph.ts';
import { bkCoordinates } from './layout-bk.ts';
import { layering, MAX_GRID_ITEMS, rankGraph, type Ranking } from './layout-layering.ts';

/**
 * Automatic left-to-right layout of a MAS design for the graph view. Pure: ids and edges in,
 * top-left node positions out (React Flow's convention). Two engines draw the same layering
 * (`layout-layering.ts`: ranks, crossing-reduced order) with the same coordinate assignment, so
 * they return the same positions:
 * - `layered` (here): the one the app uses (the Trace page, in the layout worker above 40 agents;
 *   the live run; the Build page): ≈10 ms at 1,000 agents once warm, ≈50–90 ms on a fresh page;
 * - `dagre` (`layout-dagre.ts`, tests only): @dagrejs/dagre doing the coordinates (≈0.4 s at
 *   1,000 agents), the reference the layout tests hold `layered` to.
 */

/** Node box used for layout, in px; the graph node is drawn at this size (src/ui/graph/graph.css). */
export const NODE_SIZE = { width: 230, height: 104 } as const;

export interface LayoutGraph {
  nodes: readonly string[];
  edges: readonly GraphEdge[];
}

export type Positions = Record<string, { x: number; y: number }>;

export const RANK_SEP = 70;
export const NODE_SEP = 24;
/** Dagre's default gap next to an edge's dummy. */
const EDGE_SEP = 20;

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

/** True when the graph gets the full layered layout, false for the stacked fallback. */
export function fitsDagre(graph: LayoutGraph): boolean {
  return rankGraph(graph.nodes, graph.edges).gridItems <= MAX_GRID_ITEMS;
}

export const toCorner = (x: number, y: number): { x: number; y: number } => ({
  x: Math.round(x - NODE_SIZE.width / 2),
  y: Math.round(y - NODE_SIZE.height / 2),
});

/**
 * The app's layout: the shared layering, and dagre's coordinate assignment ported to plain arrays
 * (`layout-bk.ts`), so it is node for node the layout dagre returns on that layering, without dagre.
 * ≈10 ms at 1,000 agents once warm (≈50–90 ms on a fresh page), against ≈0.4 s for dagre. Graphs
 * too big for the layering (`fitsDagre`) get the stacked fallback.
 */
export function layoutLayered(graph: LayoutGraph): Positions {
  const ranking = rankGraph(graph.nodes, graph.edges);
  const lay = layering(ranking);
  if (!lay) return layoutStacked(ranking);
  const { ids, l, grid } = lay;
  const positions: Positions = {};
  if (ids.length === 0) return positions;
  const across = bkCoordinates(grid, { node: NODE_SIZE.height, nodeSep: NODE_SEP, edgeSep: EDGE_SEP });
  // Dagre's last steps, in its floating-point order: the topmost box at 0, centres to corners.
  let top = Infinity;
  for (let v = 0; v < ids.length; v++) top = Math.min(top, across[v]! - NODE_SIZE.height / 2);
  ids.forEach((id, v) => {
    positions[id] = toCorner(
      l.rank[v]! * (NODE_SIZE.width + RANK_SEP) + NODE_SIZE.width / 2,
      across[v]! - top,
    );
  });
  return positions;
}

/**
 * The fallback for graphs too big for the layered layout (`MAX_GRID_ITEMS`): the same ranks, each
 * rank ordered by its predecessors' mean slot, stacked and centred. O(V + E log E).
 */
export function layoutStacked({ ids, ranked }: Ranking): Positions {
  const inn: number[][] = ids.map(() => []);
  for (const [u, v] of ranked.edges) inn[v]!.push(u);
  const layers: number[][] = [];
  ids.forEach((_, v) => (layers[ranked.rank[v]!] ??= []).push(v));
  const slot = new Float64Array(ids.length);
  const step = NODE_SIZE.height + NODE_SEP;
  let tallest = 0;
  for (const layer of layers) tallest = Math.max(tallest, layer.length);
  const out: Positions = {};
  layers.forEach((layer, r) => {
    const key = (v: number): number => {
      const preds = inn[v]!;
      if (preds.length === 0) return -1;
      let sum = 0;
      for (const p of preds) sum += slot[p]!;
      return sum / preds.length;
    };
    const keyed = layer.map((v) => ({ v, k: key(v) }));
    keyed.sort((a, b) => a.k - b.k || a.v - b.v);
    const top = ((tallest - layer.length) * step) / 2;
    keyed.forEach(({ v }, i) => {
      slot[v] = i;
      out[ids[v]!] = { x: r * (NODE_SIZE.width + RANK_SEP), y: Math.round(top + i * step) };
    });
  });
  return out;
}
