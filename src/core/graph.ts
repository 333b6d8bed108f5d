/**
 * Small graph algorithms over string node ids, shared by the validator, the executor, the layout and
 * totals. Edges point from producer to consumer.
 */
export interface GraphEdge {
  from: string;
  to: string;
}

export interface Adjacency {
  out: Map<string, string[]>;
  in: Map<string, string[]>;
}

export function adjacency(nodes: readonly string[], edges: readonly GraphEdge[]): Adjacency {
  const out = new Map<string, string[]>(nodes.map((n) => [n, []]));
  const inn = new Map<string, string[]>(nodes.map((n) => [n, []]));
  for (const e of edges) {
    out.get(e.from)?.push(e.to);
    inn.get(e.to)?.push(e.from);
  }
  return { out, in: inn };
}

/**
 * Node indices and edges as index pairs in CSR form (successors of node i at `succ[start[i] ..
 * start[i + 1]]`, in edge order; −1 for an edge to an unknown id), with each node's in-degree
 * (edges from unknown ids included). Null when the ids repeat. Arrays, not Maps of arrays: the
 * trainer orders and measures every design it builds, thousands per second.
 */
function indexed(
  nodes: readonly string[],
  edges: readonly GraphEdge[],
): { index: Map<string, number>; start: number[]; succ: number[]; indeg: number[] } | null {
  const n = nodes.length;
  const index = new Map<string, number>();
  for (let i = 0; i < n; i++) index.set(nodes[i] as string, i);
  if (index.size !== n) return null;
  const start = new Array<number>(n + 1).fill(0);
  const indeg = new Array<number>(n).fill(0);
  for (const e of edges) {
    const f = index.get(e.from);
    const t = index.get(e.to);
    if (f !== undefined) start[f + 1] = (start[f + 1] as number) + 1;
    if (t !== undefined) indeg[t] = (indeg[t] as number) + 1;
  }
  for (let i = 0; i < n; i++) start[i + 1] = (start[i + 1] as number) + (start[i] as number);
  const fill = start.slice(0, n);
  const succ = new Array<number>(start[n] as number);
  for (const e of edges) {
    const f = index.get(e.from);
    if (f !== undefined) succ[(fill[f] as number)++] = index.get(e.to) ?? -1;
  }
  return { index, start, succ, indeg };
}

/** Kahn's algorithm over node indices: the order, or null when there is a cycle. */
function topoIndices(g: NonNullable<ReturnType<typeof indexed>>, n: number): number[] | null {
  const indeg = g.indeg.slice();
  const queue: number[] = [];
  for (let i = 0; i < n; i++) if (indeg[i] === 0) queue.push(i);
  for (let h = 0; h < queue.length; h++) {
    const i = queue[h] as number;
    for (let p = g.start[i] as number; p < (g.start[i + 1] as number); p++) {
      const t = g.succ[p] as number;
      if (t >= 0 && --(indeg[t] as number) === 0) queue.push(t);
    }
  }
  return queue.length === n ? queue : null;
}

/** Kahn's algorithm. Returns the order, or null when there is a cycle. Ties keep input order. */
export function topoOrder(nodes: readonly string[], edges: readonly GraphEdge[]): string[] | null {
  const g = indexed(nodes, edges);
  if (!g) return topoOrderByName(nodes, edges);
  const order = topoIndices(g, nodes.length);
  return order ? order.map((i) => nodes[i] as string) : null;
}

/** Kahn's algorithm over Maps keyed by id: the general form, for ids that repeat. */
function topoOrderByName(nodes: readonly string[], edges: readonly GraphEdge[]): string[] | null {
  const { out, in: inn } = adjacency(nodes, edges);
  const indeg = new Map(nodes.map((n) => [n, inn.get(n)?.length ?? 0]));
  const queue = nodes.filter((n) => indeg.get(n) === 0);
  const order: string[] = [];
  for (let i = 0; i < queue.length; i++) {
    const n = queue[i] as string;
    order.push(n);
    for (const m of out.get(n) ?? []) {
      const d = (indeg.get(m) ?? 0) - 1;
      indeg.set(m, d);
      if (d === 0) queue.push(m);
    }
  }
  return order.length === nodes.length ? order : null;
}

/** One cycle as a closed list of ids (first repeated at the end), or null. Iterative DFS. */
export function findCycle(nodes: readonly string[], edges: readonly GraphEdge[]): string[] | null {
  const { out } = adjacency(nodes, edges);
  const state = new Map<string, 0 | 1 | 2>(); // 0 unseen, 1 on stack, 2 done
  for (const root of nodes) {
    if (state.get(root)) continue;
    const stack: { node: string; next: number }[] = [{ node: root, next: 0 }];
    const path: string[] = [root];
    state.set(root, 1);
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as { node: string; next: number };
      const succ = out.get(top.node) ?? [];
      if (top.next < succ.length) {
        const m = succ[top.next++] as string;
        const s = state.get(m) ?? 0;
        if (s === 1) return [...path.slice(path.indexOf(m)), m];
        if (s === 0) {
          state.set(m, 1);
          stack.push({ node: m, next: 0 });
          path.push(m);
        }
      } else {
        state.set(top.node, 2);
        stack.pop();
        path.pop();
      }
    }
  }
  return null;
}

/** Every node reachable from `starts` following `next`. */
export function reachable(starts: readonly string[], next: Map<string, string[]>): Set<string> {
  const seen = new Set(starts);
  const queue = [...starts];
  while (queue.length > 0) {
    const n = queue.pop() as string;
    for (const m of next.get(n) ?? []) {
      if (!seen.has(m)) {
        seen.add(m);
        queue.push(m);
      }
    }
  }
  return seen;
}

/**
 * Longest path through a DAG where each node weighs `weight(node)`; edges weigh 0.
 * Returns 0 for an empty graph and the heaviest single node when there are no edges.
 * Ties go to the first node in topological order, and to the first predecessor in edge order.
 */
export function longestPath(
  nodes: readonly string[],
  edges: readonly GraphEdge[],
  weight: (node: string) => number,
): { length: number; path: string[] } {
  const g = indexed(nodes, edges);
  if (!g) return longestPathByName(nodes, edges, weight);
  const n = nodes.length;
  const order = topoIndices(g, n);
  if (!order) return { length: 0, path: [] };
  // Predecessors in edge order (in a DAG every edge into a node comes from a known id).
  const pstart = new Array<number>(n + 1).fill(0);
  for (const e of edges) {
    const t = g.index.get(e.to);
    if (t !== undefined && g.index.has(e.from)) pstart[t + 1] = (pstart[t + 1] as number) + 1;
  }
  for (let i = 0; i < n; i++) pstart[i + 1] = (pstart[i + 1] as number) + (pstart[i] as number);
  const fill = pstart.slice(0, n);
  const pred = new Array<number>(pstart[n] as number);
  for (const e of edges) {
    const t = g.index.get(e.to);
    const f = g.index.get(e.from);
    if (t !== undefined && f !== undefined) pred[(fill[t] as number)++] = f;
  }
  const best = new Array<number>(n).fill(0);
  const prev = new Array<number>(n).fill(-1);
  let end = -1;
  let length = 0;
  for (const i of order) {
    let b = 0;
    let p = -1;
    for (let q = pstart[i] as number; q < (pstart[i + 1] as number); q++) {
      const v = best[pred[q] as number] as number;
      if (v > b) {
        b = v;
        p = pred[q] as number;
      }
    }
    best[i] = b + weight(nodes[i] as string);
    prev[i] = p;
    if (end < 0 || (best[i] as number) > length) {
      end = i;
      length = best[i] as number;
    }
  }
  const path: string[] = [];
  for (let i = end; i >= 0; i = prev[i] as number) path.push(nodes[i] as string);
  return { length, path: path.reverse() };
}

/** The same over Maps keyed by id: the general form, for ids that repeat. */
function longestPathByName(
  nodes: readonly string[],
  edges: readonly GraphEdge[],
  weight: (node: string) => number,
): { length: number; path: string[] } {
  const order = topoOrder(nodes, edges);
  if (!order) return { length: 0, path: [] };
  const { in: inn } = adjacency(nodes, edges);
  const best = new Map<string, number>();
  const prev = new Map<string, string | null>();
  for (const n of order) {
    let b = 0;
    let p: string | null = null;
    for (const m of inn.get(n) ?? []) {
      const v = best.get(m) ?? 0;
      if (v > b) {
        b = v;
        p = m;
      }
    }
    best.set(n, b + weight(n));
    prev.set(n, p);
  }
  let end: string | null = null;
  let length = 0;
  for (const [n, v] of best) {
    if (end === null || v > length) {
      end = n;
      length = v;
    }
  }
  const path: string[] = [];
  for (let n = end; n !== null; n = prev.get(n) ?? null) path.unshift(n);
  return { length, path };
}
