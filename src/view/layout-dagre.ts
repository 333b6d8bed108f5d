import dagre from '@dagrejs/dagre';
import { layering, rankGraph, type Layering } from './layout-layering.ts';
import {
  NODE_SEP,
  NODE_SIZE,
  RANK_SEP,
  layoutStacked,
  toCorner,
  type LayoutGraph,
  type Positions,
} from './layout.ts';

/**
 * The reference layout (tests only; @dagrejs/dagre is a dev dependency). Runs dagre on our layering: dagre's ranking is switched off (`ranker: 'none'`, ranks given) and
 * its order search replaced by ours (`customOrder`), so dagre only assigns coordinates. That makes
 * it the reference for `layoutLayered` (same layering, coordinates from `layout-bk.ts`): the layout
 * tests hold the two to the same positions. It also saves most of dagre's time (≈0.6 of it at
 * 1,000 agents).
 */

export interface DagreSizes {
  width: number;
  height: number;
  rankSep: number;
  nodeSep: number;
}

/** Dagre's internal node label, as far as the order hand-over reads it. */
interface DagreItem {
  rank?: number;
  dummy?: string;
  edgeObj?: { v: string; w: string };
  order?: number;
}

/**
 * Our order for every item of dagre's internal graph: a node by its id, a dummy by its edge and
 * internal rank (dagre's rank 2r is our rank r; see `dagreGrid`).
 */
function orderOf({ ids, l, grid }: Layering): (item: DagreItem, id: string) => number | undefined {
  const pos = new Int32Array(grid.pred.length);
  for (const layer of grid.layers) layer.forEach((v, i) => (pos[v] = i));
  const edgeIndex = new Map(l.edges.map(([u, v], e) => [`${ids[u]!}\u0000${ids[v]!}`, e]));
  const nodeIndex = new Map(ids.map((id, v) => [id, v]));
  return (item, id) => {
    if (!item.dummy) {
      const v = nodeIndex.get(id);
      return v === undefined ? undefined : pos[v];
    }
    const e = item.edgeObj ? edgeIndex.get(`${item.edgeObj.v}\u0000${item.edgeObj.w}`) : undefined;
    if (e === undefined || item.rank === undefined) return undefined;
    const chain = grid.chains[e]!;
    const v = chain[item.rank - 2 * l.rank[chain[0]!]!];
    return v === undefined ? undefined : pos[v];
  };
}

/** Node centres from dagre, left to right. */
export function dagreCentres(lay: Layering, size: DagreSizes): ({ x: number; y: number } | undefined)[] {
  const { ids, l } = lay;
  const g = new dagre.graphlib.Graph();
  g.setGraph({
    rankdir: 'LR',
    nodesep: size.nodeSep,
    ranksep: size.rankSep,
    marginx: 0,
    marginy: 0,
    ranker: 'none',
  });
  g.setDefaultEdgeLabel(() => ({}));
  ids.forEach((id, v) => g.setNode(id, { width: size.width, height: size.height, rank: 2 * l.rank[v]! }));
  for (const [u, v] of l.edges) g.setEdge(ids[u]!, ids[v]!);
  const place = orderOf(lay);
  dagre.layout(g, {
    customOrder: (dg) => {
      const ranks = new Map<number, { v: string; k: number; i: number }[]>();
      dg.nodes().forEach((v, i) => {
        const item = dg.node(v) as DagreItem;
        const r = item.rank ?? 0;
        const list = ranks.get(r) ?? [];
        ranks.set(r, list);
        // Anything unforeseen goes last in its rank rather than breaking the layout.
        list.push({ v, k: place(item, v) ?? Infinity, i });
      });
      for (const list of ranks.values()) {
        list.sort((a, b) => a.k - b.k || a.i - b.i);
        list.forEach((x, i) => ((dg.node(x.v) as DagreItem).order = i));
      }
    },
  });
  return ids.map((id) => g.node(id) as { x: number; y: number } | undefined);
}

/**
 * Dagre's layout, left to right, on our layering: the reference `layoutLayered` (layout.ts) is
 * tested against, position for position.
 */
export function layoutDagre(graph: LayoutGraph): Positions {
  const ranking = rankGraph(graph.nodes, graph.edges);
  const lay = layering(ranking);
  if (!lay) return layoutStacked(ranking);
  const centres = dagreCentres(lay, {
    width: NODE_SIZE.width,
    height: NODE_SIZE.height,
    rankSep: RANK_SEP,
    nodeSep: NODE_SEP,
  });
  const out: Positions = {};
  // Dagre reports centres; React Flow positions are top-left corners.
  lay.ids.forEach((id, v) => {
    const c = centres[v];
    out[id] = c ? toCorner(c.x, c.y) : { x: 0, y: 0 };
  });
  return out;
}
