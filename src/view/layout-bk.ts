import type { Layered } from './layout-order.ts';

/**
 * Dagre's vertical coordinates, computed without dagre. Dagre places nodes with Brandes–Köpf; this
 * is the same algorithm on the same grid with the same tie-breaking (a port of @dagrejs/dagre's
 * `position/bk.ts`), so `layoutLayered` returns dagre's layout of our layering. Plain arrays instead
 * of a graph library make it cheap (≈4 ms at 1,000 agents once warm, against ≈0.25 s for dagre's
 * own pass). `layout.test.ts` checks that the two agree.
 */

/**
 * Dagre's grid: it doubles every edge's length (room for labels it never draws here), so our rank
 * r is its rank 2r and every edge has a dummy on each rank it crosses, odd ones included.
 */
export interface DagreGrid {
  /** Items per internal rank, in order. Items `0..n-1` are the nodes, the rest dummies. */
  layers: number[][];
  pred: number[][];
  succ: number[][];
  /** Per edge, its items from source to target, one per internal rank. */
  chains: number[][];
  n: number;
}

export interface BkSizes {
  /** Node extent across the ranks (the box height when drawn left to right). */
  node: number;
  nodeSep: number;
  edgeSep: number;
}

/** Builds dagre's grid from our layering: odd ranks hold one dummy per edge segment crossing. */
export function dagreGrid(l: Layered): DagreGrid {
  const pos = new Int32Array(l.rank.length);
  for (const layer of l.layers) layer.forEach((v, i) => (pos[v] = i));
  // Our items keep their numbers; odd-rank dummies are numbered after them.
  let next = l.rank.length;
  const pred: number[][] = Array.from({ length: next }, () => []);
  const succ: number[][] = Array.from({ length: next }, () => []);
  const odd: { v: number; a: number; b: number }[][] = l.layers.map(() => []);
  const chains = l.chains.map((chain) => {
    const out = [chain[0]!];
    for (let j = 0; j + 1 < chain.length; j++) {
      const from = chain[j]!;
      const to = chain[j + 1]!;
      const d = next++;
      pred.push([from]);
      succ.push([to]);
      succ[from]!.push(d);
      pred[to]!.push(d);
      odd[l.rank[from]!]!.push({ v: d, a: pos[from]!, b: pos[to]! });
      out.push(d, to);
    }
    return out;
  });
  const layers: number[][] = [];
  l.layers.forEach((layer, r) => {
    layers.push([...layer]);
    if (r + 1 < l.layers.length) {
      // Ordered by both ends, the segments add no crossings to those of our order.
      layers.push(odd[r]!.sort((p, q) => p.a - q.a || p.b - q.b).map((s) => s.v));
    }
  });
  return { layers, pred, succ, chains, n: l.n };
}

type Grid = readonly (readonly number[])[];

/** Type-1 conflicts: a segment crossing an inner (dummy–dummy) segment, which BK keeps straight. */
function type1Conflicts(g: DagreGrid, pos: Int32Array): Set<number> {
  const conflicts = new Set<number>();
  const count = g.pred.length;
  const n = g.n;
  for (let r = 1; r < g.layers.length; r++) {
    const prevLength = g.layers[r - 1]!.length;
    const layer = g.layers[r]!;
    let k0 = 0;
    let scan = 0;
    for (let i = 0; i < layer.length; i++) {
      const v = layer[i]!;
      // A dummy has one predecessor; an inner segment is one between two dummies.
      const w = v >= n ? g.pred[v]!.find((u) => u >= n) : undefined;
      if (w === undefined && i !== layer.length - 1) continue;
      const k1 = w === undefined ? prevLength : pos[w]!;
      for (let j = scan; j <= i; j++) {
        const s = layer[j]!;
        for (const u of g.pred[s]!) {
          const p = pos[u]!;
          if ((p < k0 || k1 < p) && !(u >= n && s >= n))
            conflicts.add(Math.min(u, s) * count + Math.max(u, s));
        }
      }
      scan = i + 1;
      k0 = k1;
    }
  }
  return conflicts;
}

/** Aligns each item with a median neighbour into blocks, as BK's vertical alignment does. */
function alignBlocks(
  layering: Grid,
  neighbours: number[][],
  conflicts: Set<number>,
  count: number,
): Int32Array {
  const root = new Int32Array(count);
  const align = new Int32Array(count);
  const pos = new Int32Array(count);
  for (const layer of layering) {
    for (let i = 0; i < layer.length; i++) {
      const v = layer[i]!;
      root[v] = v;
      align[v] = v;
      pos[v] = i;
    }
  }
  let ws = new Int32Array(16);
  for (const layer of layering) {
    let prevIdx = -1;
    for (const v of layer) {
      const nb = neighbours[v]!;
      const k = nb.length;
      if (k === 0) continue;
      if (k > ws.length) ws = new Int32Array(k);
      // Insertion sort by position: an item has a handful of neighbours.
      for (let i = 0; i < k; i++) {
        const w = nb[i]!;
        let j = i;
        while (j > 0 && pos[ws[j - 1]!]! > pos[w]!) {
          ws[j] = ws[j - 1]!;
          j--;
        }
        ws[j] = w;
      }
      const mp = (k - 1) / 2;
      for (let i = Math.floor(mp), il = Math.ceil(mp); i <= il; ++i) {
        const w = ws[i]!;
        if (align[v] === v && prevIdx < pos[w]! && !conflicts.has(Math.min(v, w) * count + Math.max(v, w))) {
          align[w] = v;
          align[v] = root[v] = root[w]!;
          prevIdx = pos[w]!;
        }
      }
    }
  }
  return root;
}

/**
 * Places the blocks: smallest coordinates first (longest path in the block graph), then every
 * block moved as far as its successors allow, as dagre's `horizontalCompaction` does. Parallel
 * block edges are kept rather than merged: the longest path over them is the same. Flat typed
 * arrays (one block-graph edge per pair of neighbours in a rank): this runs four times per layout.
 */
function compact(layering: Grid, root: Int32Array, sep: (a: number, b: number) => number): Float64Array {
  const count = root.length;
  let m = 0;
  for (const layer of layering) m += Math.max(0, layer.length - 1);
  const from = new Int32Array(m);
  const to = new Int32Array(m);
  const gap = new Float64Array(m);
  const outStart = new Int32Array(count + 1);
  const inStart = new Int32Array(count + 1);
  const isBlock = new Uint8Array(count);
  let e = 0;
  for (const layer of layering) {
    for (let i = 0; i < layer.length; i++) {
      const v = layer[i]!;
      isBlock[root[v]!] = 1;
      if (i === 0) continue;
      const u = layer[i - 1]!;
      from[e] = root[u]!;
      to[e] = root[v]!;
      gap[e] = sep(v, u);
      outStart[from[e]! + 1]! += 1;
      inStart[to[e]! + 1]! += 1;
      e++;
    }
  }
  for (let v = 0; v < count; v++) {
    outStart[v + 1]! += outStart[v]!;
    inStart[v + 1]! += inStart[v]!;
  }
  const outEdge = new Int32Array(m);
  const inEdge = new Int32Array(m);
  const outFill = outStart.slice(0, count);
  const inFill = inStart.slice(0, count);
  for (let k = 0; k < m; k++) {
    outEdge[outFill[from[k]!]!++] = k;
    inEdge[inFill[to[k]!]!++] = k;
  }
  // The block graph is acyclic (alignment respects every layer's order): Kahn's order.
  const indeg = new Int32Array(count);
  for (let b = 0; b < count; b++) indeg[b] = inStart[b + 1]! - inStart[b]!;
  const order = new Int32Array(count);
  let len = 0;
  for (let b = 0; b < count; b++) if (isBlock[b] && indeg[b] === 0) order[len++] = b;
  for (let i = 0; i < len; i++) {
    const b = order[i]!;
    for (let k = outStart[b]!; k < outStart[b + 1]!; k++) {
      const w = to[outEdge[k]!]!;
      if (--indeg[w]! === 0) order[len++] = w;
    }
  }
  const xs = new Float64Array(count);
  for (let i = 0; i < len; i++) {
    const b = order[i]!;
    let x = 0;
    for (let k = inStart[b]!; k < inStart[b + 1]!; k++) {
      const edge = inEdge[k]!;
      x = Math.max(x, xs[from[edge]!]! + gap[edge]!);
    }
    xs[b] = x;
  }
  for (let i = len - 1; i >= 0; i--) {
    const b = order[i]!;
    if (outStart[b] === outStart[b + 1]) continue;
    let min = Infinity;
    for (let k = outStart[b]!; k < outStart[b + 1]!; k++) {
      const edge = outEdge[k]!;
      min = Math.min(min, xs[to[edge]!]! - gap[edge]!);
    }
    xs[b] = Math.max(xs[b]!, min);
  }
  const out = new Float64Array(count);
  for (let v = 0; v < count; v++) out[v] = xs[root[v]!]!;
  return out;
}

/** Centre of every item across the ranks (dagre's x before it turns the drawing left to right). */
export function bkCoordinates(g: DagreGrid, size: BkSizes): Float64Array {
  const count = g.pred.length;
  const n = g.n;
  const width = (v: number): number => (v >= n ? 0 : size.node);
  const gap = (v: number): number => (v >= n ? size.edgeSep : size.nodeSep) / 2;
  // Summed in dagre's order, so the floating-point result is the same.
  const sep = (v: number, u: number): number => width(v) / 2 + gap(v) + gap(u) + width(u) / 2;
  const pos = new Int32Array(count);
  for (const layer of g.layers) layer.forEach((v, i) => (pos[v] = i));
  const conflicts = type1Conflicts(g, pos);
  const xss: Float64Array[] = [];
  for (const vert of ['u', 'd'] as const) {
    const byRank = vert === 'u' ? g.layers : [...g.layers].reverse();
    for (const horiz of ['l', 'r'] as const) {
      const layering = horiz === 'r' ? byRank.map((layer) => [...layer].reverse()) : byRank;
      const root = alignBlocks(layering, vert === 'u' ? g.pred : g.succ, conflicts, count);
      const xs = compact(layering, root, sep);
      if (horiz === 'r') for (let v = 0; v < count; v++) xs[v] = -xs[v]!;
      xss.push(xs);
    }
  }
  // The narrowest alignment is the reference; the others are shifted to its left or right edge.
  const lo = new Float64Array(4).fill(Infinity);
  const hi = new Float64Array(4).fill(-Infinity);
  let smallest = 0;
  let smallestWidth = Infinity;
  xss.forEach((xs, k) => {
    let max = -Infinity;
    let min = Infinity;
    for (let v = 0; v < count; v++) {
      const x = xs[v]!;
      max = Math.max(x + width(v) / 2, max);
      min = Math.min(x - width(v) / 2, min);
      lo[k] = Math.min(lo[k]!, x);
      hi[k] = Math.max(hi[k]!, x);
    }
    if (max - min < smallestWidth) {
      smallestWidth = max - min;
      smallest = k;
    }
  });
  xss.forEach((xs, k) => {
    if (k === smallest) return;
    const delta = k % 2 === 0 ? lo[smallest]! - lo[k]! : hi[smallest]! - hi[k]!;
    if (delta) for (let v = 0; v < count; v++) xs[v]! += delta;
  });
  // Balance: the mean of the two middle candidates of the four.
  const [ul, ur, dl, dr] = xss as [Float64Array, Float64Array, Float64Array, Float64Array];
  const out = new Float64Array(count);
  for (let v = 0; v < count; v++) {
    const a = ul[v]!;
    const b = ur[v]!;
    const c = dl[v]!;
    const d = dr[v]!;
    out[v] = (Math.max(Math.min(a, b), Math.min(c, d)) + Math.min(Math.max(a, b), Math.max(c, d))) / 2;
  }
  return out;
}
