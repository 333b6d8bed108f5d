/**
 * Ranks (columns) for the layered layouts. Both engines use these same ranks, so `layoutLayered` and
 * its reference, dagre, agree on every node's column.
 *
 * Works on dense integer ids (0..n-1) and `[from, to]` pairs; edges are assumed clean (no
 * self-loops, no duplicates). O(V + E).
 */

export interface Ranked {
  /** rank[v] ≥ 0; every returned edge goes from a lower rank to a higher one. */
  rank: Int32Array;
  /** The input edges minus those that closed a cycle (a valid design has none). */
  edges: [number, number][];
}

/** Kahn's order with input-order ties; nodes on cycles follow in input order. */
function topological(n: number, edges: readonly [number, number][]): Int32Array {
  const indeg = new Int32Array(n);
  const out: number[][] = Array.from({ length: n }, () => []);
  for (const [u, v] of edges) {
    out[u]!.push(v);
    indeg[v]! += 1;
  }
  const order = new Int32Array(n);
  const placed = new Uint8Array(n);
  let len = 0;
  for (let v = 0; v < n; v++) if (indeg[v] === 0) order[len++] = v;
  for (let head = 0; head < len; head++) {
    const u = order[head]!;
    placed[u] = 1;
    for (const v of out[u]!) if (--indeg[v]! === 0) order[len++] = v;
  }
  for (let v = 0; v < n; v++) if (!placed[v]) order[len++] = v;
  return order;
}

/**
 * Longest-path ranks from the starts, then every node with more links out than in moves as far
 * right as its successors allow (a source feeding only the sink sits next to the sink, as dagre's
 * network simplex would put it: shorter edges, fewer long bends). Empty ranks are closed up.
 */
export function rankNodes(n: number, edges: readonly [number, number][]): Ranked {
  const order = topological(n, edges);
  const pos = new Int32Array(n);
  order.forEach((v, i) => (pos[v] = i));
  const kept = edges.filter(([u, v]) => pos[u]! < pos[v]!);
  const inn: number[][] = Array.from({ length: n }, () => []);
  const out: number[][] = Array.from({ length: n }, () => []);
  for (const [u, v] of kept) {
    out[u]!.push(v);
    inn[v]!.push(u);
  }
  const rank = new Int32Array(n);
  for (const v of order) for (const u of inn[v]!) rank[v] = Math.max(rank[v]!, rank[u]! + 1);
  for (let i = n - 1; i >= 0; i--) {
    const v = order[i]!;
    const succ = out[v]!;
    if (succ.length === 0 || succ.length <= inn[v]!.length) continue;
    let limit = Infinity;
    for (const w of succ) limit = Math.min(limit, rank[w]! - 1);
    if (limit > rank[v]!) rank[v] = limit;
  }
  let max = -1;
  for (let v = 0; v < n; v++) max = Math.max(max, rank[v]!);
  const used = new Uint8Array(max + 1);
  for (let v = 0; v < n; v++) used[rank[v]!] = 1;
  const shift = new Int32Array(max + 1);
  let next = 0;
  for (let r = 0; r <= max; r++) if (used[r]) shift[r] = next++;
  for (let v = 0; v < n; v++) rank[v] = shift[rank[v]!]!;
  return { rank, edges: kept };
}
