/**
 * The five MASBench axes, measured on a task's sub-task graph alone. This is deliberately written
 * without reference to how the generator builds tasks, so tests can hold the generator to it.
 *
 * - depth: sub-tasks on the longest dependency chain that ends at an asked sub-task;
 * - breadth: the largest number of deps of one sub-task;
 * - parallel: weakly connected components of the whole graph;
 * - horizon: asked sub-tasks;
 * - robustness: sub-tasks carrying a misleading note.
 */

/** The part of a task the measures read. */
export interface SubtaskGraph {
  subtasks: readonly { id: string; deps: readonly string[]; note?: string | undefined }[];
  asks: readonly string[];
}

export interface AxisValues {
  depth: number;
  breadth: number;
  parallel: number;
  horizon: number;
  robustness: number;
}

export interface GraphProblem {
  message: string;
  path: (string | number)[];
}

/** Everything that keeps the sub-tasks from being a well-formed DAG with valid asks; empty when fine. */
export function graphProblems(graph: SubtaskGraph): GraphProblem[] {
  const problems: GraphProblem[] = [];
  const ids = new Set<string>();
  graph.subtasks.forEach((s, i) => {
    if (ids.has(s.id))
      problems.push({ message: `sub-task id "${s.id}" is used twice`, path: ['subtasks', i, 'id'] });
    ids.add(s.id);
  });
  graph.subtasks.forEach((s, i) => {
    const seen = new Set<string>();
    s.deps.forEach((d, j) => {
      const path = ['subtasks', i, 'deps', j];
      if (!ids.has(d)) problems.push({ message: `sub-task "${s.id}" depends on unknown "${d}"`, path });
      else if (d === s.id) problems.push({ message: `sub-task "${s.id}" depends on itself`, path });
      else if (seen.has(d)) problems.push({ message: `sub-task "${s.id}" lists "${d}" twice`, path });
      seen.add(d);
    });
  });
  const asked = new Set<string>();
  graph.asks.forEach((a, i) => {
    if (!ids.has(a)) problems.push({ message: `asked sub-task "${a}" does not exist`, path: ['asks', i] });
    if (asked.has(a)) problems.push({ message: `sub-task "${a}" is asked twice`, path: ['asks', i] });
    asked.add(a);
  });
  if (problems.length === 0) {
    const cycle = findCycle(graph);
    if (cycle) problems.push({ message: `dependency cycle: ${cycle.join(' → ')}`, path: ['subtasks'] });
  }
  return problems;
}

/** One dependency cycle as a list of ids (first repeated at the end), or null for a DAG. */
export function findCycle(graph: SubtaskGraph): string[] | null {
  const deps = new Map(graph.subtasks.map((s) => [s.id, s.deps] as const));
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (id: string): string[] | null => {
    const st = state.get(id);
    if (st === 'done') return null;
    if (st === 'open') return [...stack.slice(stack.indexOf(id)), id];
    state.set(id, 'open');
    stack.push(id);
    for (const d of deps.get(id) ?? []) {
      const found = visit(d);
      if (found) return found;
    }
    stack.pop();
    state.set(id, 'done');
    return null;
  };
  for (const s of graph.subtasks) {
    const found = visit(s.id);
    if (found) return found;
  }
  return null;
}

/** All five axis values. Throws with the first problem when the graph is not a valid DAG. */
export function measureAxes(graph: SubtaskGraph): AxisValues {
  const problems = graphProblems(graph);
  if (problems.length > 0) throw new Error(`cannot measure an invalid task: ${problems[0]?.message}`);
  const byId = new Map(graph.subtasks.map((s) => [s.id, s] as const));

  // Longest chain (in sub-tasks) ending at each node = 1 + the longest among its deps.
  const chain = new Map<string, number>();
  const chainTo = (id: string): number => {
    const known = chain.get(id);
    if (known !== undefined) return known;
    let longest = 0;
    for (const d of byId.get(id)?.deps ?? []) longest = Math.max(longest, chainTo(d));
    chain.set(id, longest + 1);
    return longest + 1;
  };
  const depth = graph.asks.reduce((m, a) => Math.max(m, chainTo(a)), 0);

  const breadth = graph.subtasks.reduce((m, s) => Math.max(m, s.deps.length), 0);

  // Union–find over undirected dependency edges.
  const parent = new Map<string, string>(graph.subtasks.map((s) => [s.id, s.id]));
  const root = (id: string): string => {
    let r = id;
    while (parent.get(r) !== r) r = parent.get(r) ?? r;
    parent.set(id, r);
    return r;
  };
  for (const s of graph.subtasks) for (const d of s.deps) parent.set(root(s.id), root(d));
  const parallel = new Set(graph.subtasks.map((s) => root(s.id))).size;

  return {
    depth,
    breadth,
    parallel,
    horizon: new Set(graph.asks).size,
    robustness: graph.subtasks.filter((s) => s.note !== undefined && s.note !== '').length,
  };
}

/** Ids of the sub-tasks an answer needs: the asked ones and everything they depend on, transitively. */
export function neededSubtaskIds(graph: SubtaskGraph): Set<string> {
  const byId = new Map(graph.subtasks.map((s) => [s.id, s] as const));
  const needed = new Set<string>();
  const todo = [...graph.asks];
  for (let id = todo.pop(); id !== undefined; id = todo.pop()) {
    if (needed.has(id)) continue;
    needed.add(id);
    todo.push(...(byId.get(id)?.deps ?? []));
  }
  return needed;
}
