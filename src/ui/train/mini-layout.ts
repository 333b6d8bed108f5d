/**
 * The layout of a sampled design's thumbnail (MiniDag): the layered layout of the trace and Build
 * views (src/view/layout.ts; ranks left to right), with its ranks wrapped into bands, one below the
 * other, when that draws the boxes larger in the thumbnail's box. A construction that chains five
 * agents is five ranks wide and one box tall: in one band each box was drawn about 38 px wide in a
 * 240 × 160 thumbnail, in three bands about 80. Pure, so it is tested apart from React.
 */
import { NODE_SIZE, RANK_SEP, layoutLayered } from '../../view/layout.ts';

/** Vertical room between two bands of ranks. */
export const BAND_GAP = 60;

/** Fewer ranks than this stay in one band (boxes are large enough there). */
export const WRAP_FROM = 4;

export interface MiniLayout {
  /** Each agent's box, top-left corner. */
  at: Record<string, { x: number; y: number }>;
  /** Each agent's band (0: the top one). */
  band: Record<string, number>;
  /** Each edge's line: within a band from the source's right side to the target's left side; into a later band from the source's bottom to the target's top. */
  lines: { from: string; to: string; x1: number; y1: number; x2: number; y2: number }[];
  w: number;
  h: number;
  bands: number;
}

/** Room around the drawing inside the view box (MiniDag's viewBox margin on each side). */
const MARGIN = 10;

export function miniLayout(
  nodes: readonly string[],
  edges: readonly { from: string; to: string }[],
  view = { width: 240, height: 160 },
): MiniLayout {
  const pos = layoutLayered({ nodes: [...nodes], edges: edges.map((e) => ({ from: e.from, to: e.to })) });
  const xs = nodes.map((id) => pos[id]?.x ?? 0);
  const ys = nodes.map((id) => pos[id]?.y ?? 0);
  const minX = Math.min(0, ...xs);
  const minY = Math.min(0, ...ys);
  const step = NODE_SIZE.width + RANK_SEP;
  const rankOf = (id: string): number => Math.round(((pos[id]?.x ?? 0) - minX) / step);
  const ranks = Math.max(1, ...nodes.map((id) => rankOf(id) + 1));
  const tall = Math.max(NODE_SIZE.height, ...ys.map((y) => y - minY + NODE_SIZE.height));
  // The bands that draw boxes largest in the view (fewest on a tie).
  const size = (bands: number) => {
    const per = Math.ceil(ranks / bands);
    const w = per * NODE_SIZE.width + (per - 1) * RANK_SEP;
    const h = bands * tall + (bands - 1) * BAND_GAP;
    return { per, w, h, scale: Math.min(view.width / (w + 2 * MARGIN), view.height / (h + 2 * MARGIN)) };
  };
  let bands = 1;
  let best = size(1);
  for (let k = 2; ranks >= WRAP_FROM && k <= ranks; k++) {
    const s = size(k);
    if (s.scale > best.scale * 1.0001) {
      best = s;
      bands = k;
    }
  }
  const where = (id: string): { x: number; y: number; band: number } => {
    const r = rankOf(id);
    const band = Math.floor(r / best.per);
    return {
      x: (r - band * best.per) * step,
      y: band * (tall + BAND_GAP) + (pos[id]?.y ?? 0) - minY,
      band,
    };
  };
  const at: MiniLayout['at'] = {};
  const band: MiniLayout['band'] = {};
  for (const id of nodes) {
    const p = where(id);
    at[id] = { x: p.x, y: p.y };
    band[id] = p.band;
  }
  const lines = edges.map((e) => {
    const a = where(e.from);
    const b = where(e.to);
    return a.band === b.band
      ? {
          from: e.from,
          to: e.to,
          x1: a.x + NODE_SIZE.width,
          y1: a.y + NODE_SIZE.height / 2,
          x2: b.x,
          y2: b.y + NODE_SIZE.height / 2,
        }
      : {
          from: e.from,
          to: e.to,
          x1: a.x + NODE_SIZE.width / 2,
          y1: a.y + NODE_SIZE.height,
          x2: b.x + NODE_SIZE.width / 2,
          y2: b.y,
        };
  });
  return { at, band, lines, w: best.w, h: best.h, bands };
}
