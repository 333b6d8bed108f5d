import type { Viewport } from '@xyflow/react';
import { NODE_SIZE } from '../../view/layout.ts';

/**
 * Keeping the reader's place when the same graph gets new positions. The Trace page shows a graph
 * once, on its final layout, so there this is a safeguard; positions that did not change leave the
 * view untouched. Pure, so it is tested without a browser.
 */

export interface Placed {
  id: string;
  position: { x: number; y: number };
}

const centre = (n: Placed): { x: number; y: number } => ({
  x: n.position.x + NODE_SIZE.width / 2,
  y: n.position.y + NODE_SIZE.height / 2,
});

/** Whether any part of the node's box is on screen. */
function inView(n: Placed, vp: Viewport, width: number, height: number): boolean {
  const left = n.position.x * vp.zoom + vp.x;
  const top = n.position.y * vp.zoom + vp.y;
  return (
    left < width &&
    top < height &&
    left + NODE_SIZE.width * vp.zoom > 0 &&
    top + NODE_SIZE.height * vp.zoom > 0
  );
}

/**
 * The node to hold still: the selected one when it is on screen (the reader is looking at it),
 * else the one nearest the middle of the view.
 */
export function anchorNode(
  nodes: readonly Placed[],
  vp: Viewport,
  width: number,
  height: number,
  selectedId: string | null,
): Placed | null {
  const selected = selectedId === null ? undefined : nodes.find((n) => n.id === selectedId);
  if (selected && inView(selected, vp, width, height)) return selected;
  const cx = (width / 2 - vp.x) / vp.zoom;
  const cy = (height / 2 - vp.y) / vp.zoom;
  let best: Placed | null = null;
  let bestD = Infinity;
  for (const n of nodes) {
    const c = centre(n);
    const d = (c.x - cx) ** 2 + (c.y - cy) ** 2;
    if (d < bestD) {
      bestD = d;
      best = n;
    }
  }
  return best;
}

/**
 * The viewport that keeps the anchor at the same point on screen after `before` became `after`;
 * `vp` itself when the anchor did not move, null when there is no anchor to keep (refit instead).
 */
export function keepPlace(
  before: readonly Placed[],
  after: readonly Placed[],
  vp: Viewport,
  width: number,
  height: number,
  selectedId: string | null,
): Viewport | null {
  const a = anchorNode(before, vp, width, height, selectedId);
  const b = a && after.find((n) => n.id === a.id);
  if (!a || !b) return null;
  const dx = b.position.x - a.position.x;
  const dy = b.position.y - a.position.y;
  if (dx === 0 && dy === 0) return vp;
  return { x: vp.x - dx * vp.zoom, y: vp.y - dy * vp.zoom, zoom: vp.zoom };
}
