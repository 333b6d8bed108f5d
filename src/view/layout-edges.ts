import type { GraphEdge } from '../core/graph.ts';
import { NODE_SEP, NODE_SIZE, type Positions } from './layout.ts';

/**
 * Waypoints for edges that skip ranks, so they run around the agents in between instead of behind
 * them. The layout is left to right in columns (one per rank); an edge between neighbouring columns
 * crosses only the empty gap between them, but a longer one would cross whole columns of agents
 * drawn as a single curve. Here such an edge passes each column it crosses horizontally at a height
 * where no agent is (the line it would take when that height is free, else the nearest gap between
 * agents, or above or below the column), and bends only in the gaps between columns — the same
 * shape dagre draws through the dummy nodes it puts on every rank a long edge crosses, computed from
 * the final positions, so it works for layouts from the worker and for the stacked fallback alike.
 * Pure; O(E · columns crossed · agents per column).
 */

export interface Point {
  x: number;
  y: number;
}

/** Clearance kept between an edge and an agent's box, in px. */
export const EDGE_CLEARANCE = 8;
/** How far above or below a column an edge passes when no gap inside it will do, in px. */
const OUTSIDE = NODE_SEP / 2 + EDGE_CLEARANCE;

interface Column {
  /** Left edge of the column's boxes. */
  x: number;
  /** The boxes' top and bottom, sorted by top. */
  spans: { top: number; bottom: number }[];
}

export const routeKey = (e: GraphEdge): string => `${e.from}>${e.to}`;

function columnsOf(positions: Positions, height: number): Column[] {
  const byX = new Map<number, Column>();
  for (const p of Object.values(positions)) {
    const x = Math.round(p.x);
    let c = byX.get(x);
    if (!c) byX.set(x, (c = { x, spans: [] }));
    c.spans.push({ top: p.y, bottom: p.y + height });
  }
  const columns = [...byX.values()].sort((a, b) => a.x - b.x);
  for (const c of columns) c.spans.sort((a, b) => a.top - b.top);
  return columns;
}

const isFree = (c: Column, y: number): boolean =>
  c.spans.every((s) => y < s.top - EDGE_CLEARANCE || y > s.bottom + EDGE_CLEARANCE);

/** The free height in column `c` nearest to `want`; ties go towards `toward` (the target's height). */
export function freeHeight(c: Column, want: number, toward: number): number {
  if (isFree(c, want)) return want;
  const first = c.spans[0];
  const last = c.spans[c.spans.length - 1];
  if (!first || !last) return want;
  const options = [first.top - OUTSIDE, last.bottom + OUTSIDE];
  for (let i = 0; i + 1 < c.spans.length; i++) {
    const a = c.spans[i]!;
    const b = c.spans[i + 1]!;
    if (b.top - a.bottom >= 2 * EDGE_CLEARANCE) options.push((a.bottom + b.top) / 2);
  }
  let best = options[0]!;
  for (const y of options) {
    const d = Math.abs(y - want) - Math.abs(best - want);
    if (d < 0 || (d === 0 && Math.abs(y - toward) < Math.abs(best - toward))) best = y;
  }
  return best;
}

/**
 * For every edge that crosses at least one column between its ends, the points it passes: two per
 * column crossed (where it enters and leaves the column, at one height). Edges between neighbouring
 * columns, edges pointing left and edges with an unplaced end get none.
 */
export function routeEdges(
  positions: Positions,
  edges: readonly GraphEdge[],
  size: { width: number; height: number } = NODE_SIZE,
): Map<string, Point[]> {
  const routes = new Map<string, Point[]>();
  const columns = columnsOf(positions, size.height);
  const index = new Map(columns.map((c, i) => [c.x, i]));
  for (const e of edges) {
    const from = positions[e.from];
    const to = positions[e.to];
    if (!from || !to) continue;
    const a = index.get(Math.round(from.x));
    const b = index.get(Math.round(to.x));
    if (a === undefined || b === undefined || b - a < 2) continue;
    const target = { x: to.x, y: to.y + size.height / 2 };
    let at = { x: from.x + size.width, y: from.y + size.height / 2 };
    const points: Point[] = [];
    for (let k = a + 1; k < b; k++) {
      const c = columns[k]!;
      // Where the straight line from the last point to the target meets the column's middle.
      const mid = c.x + size.width / 2;
      const want = at.y + ((target.y - at.y) * (mid - at.x)) / Math.max(1, target.x - at.x);
      const y = freeHeight(c, want, target.y);
      points.push({ x: c.x, y }, { x: c.x + size.width, y });
      at = { x: c.x + size.width, y };
    }
    routes.set(routeKey(e), points);
  }
  return routes;
}

/**
 * An SVG path from `source` through `points` to `target`: straight through each column, and a curve
 * with horizontal ends (like React Flow's bezier edges) across each gap between columns.
 */
export function routedPath(source: Point, points: readonly Point[], target: Point): string {
  const all = [source, ...points, target];
  let d = `M ${source.x},${source.y}`;
  for (let i = 1; i < all.length; i++) {
    const p = all[i - 1]!;
    const q = all[i]!;
    // Points come in pairs per column: from a pair's first point to its second (even i) the edge runs
    // straight through the column; every other segment crosses a gap between columns.
    if (i % 2 === 0) d += ` L ${q.x},${q.y}`;
    else {
      const mx = (p.x + q.x) / 2;
      d += ` C ${mx},${p.y} ${mx},${q.y} ${q.x},${q.y}`;
    }
  }
  return d;
}
