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

/** Kahn's algorithm. Returns the order, or null when there is a cycle. Ties keep input order. */
export function topoOrder(nodes: readonly string[], edges: readonly GraphEdge[]): string[] | null {
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
 */
export function longestPath(
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
