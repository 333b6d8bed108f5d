import type { GraphEdge } from '../core/graph.ts';
import { dagreGrid, type DagreGrid } from './layout-bk.ts';
import { buildLayered, orderLayers, type Layered } from './layout-order.ts';
import { rankNodes, type Ranked } from './layout-rank.ts';

/**
 * The layering both layout engines draw: ranks, the order within each rank, and dagre's grid of
 * it. Pure and deterministic, so the main thread and the layout worker compute the same one.
 */

export interface Layering {
  /** Node ids without duplicates; item v of the layering is ids[v]. */
  ids: string[];
  l: Layered;
  grid: DagreGrid;
}

/**
 * Dagre's grid holds a dummy on every rank an edge crosses (twice per rank: see `dagreGrid`). A
 * graph of long edges can make that huge (5,000 agents linked across all ranks: millions), which
 * would block the main thread and exhaust dagre; above this many items the graph gets the simple
 * stacked layout instead.
 */
export const MAX_GRID_ITEMS = 40_000;

/** Edges whose endpoints both exist, without self-loops or duplicates (layout must never throw). */
export function cleanEdges(nodes: readonly string[], edges: readonly GraphEdge[]): GraphEdge[] {
  const ids = new Set(nodes);
  const seen = new Set<string>();
  const out: GraphEdge[] = [];
  for (const e of edges) {
    const k = `${e.from}\u0000${e.to}`;
    if (e.from === e.to || !ids.has(e.from) || !ids.has(e.to) || seen.has(k)) continue;
    seen.add(k);
    out.push({ from: e.from, to: e.to });
  }
  return out;
}

export interface Ranking {
  ids: string[];
  ranked: Ranked;
  /** Items of dagre's grid for these ranks. */
  gridItems: number;
}

export function rankGraph(nodes: readonly string[], edges: readonly GraphEdge[]): Ranking {
  const ids = [...new Set(nodes)];
  const index = new Map(ids.map((id, i) => [id, i]));
  const pairs = cleanEdges(ids, edges).map((e) => [index.get(e.from)!, index.get(e.to)!] as [number, number]);
  const ranked = rankNodes(ids.length, pairs);
  let gridItems = ids.length;
  for (const [u, v] of ranked.edges) gridItems += 2 * (ranked.rank[v]! - ranked.rank[u]!) - 1;
  return { ids, ranked, gridItems };
}

/** The full layering, or null when its grid would exceed `MAX_GRID_ITEMS`. */
export function layering({ ids, ranked, gridItems }: Ranking): Layering | null {
  if (gridItems > MAX_GRID_ITEMS) return null;
  const l = buildLayered(ids.length, ranked);
  orderLayers(l);
  return { ids, l, grid: dagreGrid(l) };
}
