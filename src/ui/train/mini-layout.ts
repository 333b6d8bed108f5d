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

/** Room around the drawing inside its view box, on each side (MiniDag's viewBox). */
export const MARGIN = 10;

export function miniLayout(
  nodes: readonly string[],
  edges: readonly { from: string; to: string }[],
  /** The thumbnail's size in px (train.css `.train-dag`: 160 px tall, about 240 wide). */
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
    return {
      bands,
      per,
      w,
      h,
      scale: Math.min(view.width / (w + 2 * MARGIN), view.height / (h + 2 * MARGIN)),
    };
  };
  let best = size(1);
  for (let k = 2; ranks >= WRAP_FROM && k <= ranks; k++) {
    const s = size(k);
    if (s.scale > best.scale * 1.0001) best = s;
  }
  const at: MiniLayout['at'] = {};
  const band: MiniLayout['band'] = {};
  for (const id of nodes) {
    const r = rankOf(id);
    const b = Math.floor(r / best.per);
    at[id] = { x: (r - b * best.per) * step, y: b * (tall + BAND_GAP) + (pos[id]?.y ?? 0) - minY };
    band[id] = b;
  }
  const W = NODE_SIZE.width;
  const H = NODE_SIZE.height;
  const lines = edges.map(({ from, to }) => {
    const a = at[from] ?? { x: 0, y: 0 };
    const b = at[to] ?? { x: 0, y: 0 };
    return band[from] === band[to]
      ? { from, to, x1: a.x + W, y1: a.y + H / 2, x2: b.x, y2: b.y + H / 2 }
      : { from, to, x1: a.x + W / 2, y1: a.y + H, x2: b.x + W / 2, y2: b.y };
  });
  return { at, band, lines, w: best.w, h: best.h, bands: best.bands };
}
