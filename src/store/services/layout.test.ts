import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { layoutDagre } from '../../view/layout-dagre.ts';
import { layoutLayered, type LayoutGraph } from '../../view/layout.ts';
import { heldLayoutWorker, workersAvailable } from '../../workers/index.ts';
import { clearLayoutCache, planLayout, setLayoutWorkerClient, WORKER_THRESHOLD } from './layout.ts';

/** Agents fed by the agent a third of the graph earlier and by the one at half their index. */
function bigGraph(n: number): LayoutGraph {
  const nodes = Array.from({ length: n }, (_, i) => `a${i}`);
  const third = Math.ceil(n / 3);
  const edges = nodes.slice(third).flatMap((to, k) => {
    const j = k + third;
    return [
      { from: nodes[j - third]!, to },
      { from: nodes[Math.floor(j / 2)]!, to },
    ];
  });
  return { nodes, edges };
}

describe('layout service', () => {
  let worker = heldLayoutWorker();
  beforeEach(() => {
    clearLayoutCache();
    worker = heldLayoutWorker();
    setLayoutWorkerClient(worker.client);
  });
  afterEach(() => setLayoutWorkerClient(null));

  it('lays out a small graph at once on the main thread, with no worker job', () => {
    const graph = bigGraph(WORKER_THRESHOLD);
    const plan = planLayout(graph);
    expect(plan.later).toBeNull();
    expect(plan.ready).toMatchObject({ source: 'main', error: null });
    // The final layout: dagre's positions on our layering.
    expect(plan.ready!.positions).toEqual(layoutDagre(graph));
    expect(worker.calls).toEqual([]);
  });

  it('shows nothing for a big graph until the worker answers, then its answer, unchanged', async () => {
    const graph = bigGraph(WORKER_THRESHOLD + 1);
    const plan = planLayout(graph);
    expect(plan.ready).toBeNull();
    expect(worker.calls).toEqual([WORKER_THRESHOLD + 1]);
    const sent = { a0: { x: 1, y: 2 } };
    worker.answer(sent);
    const out = await plan.later!;
    expect(out).toEqual({ positions: sent, source: 'worker', error: null });
    expect(out.positions).toBe(sent);
  });

  it("the worker's layout is dagre's, and a revisit takes it from the cache", async () => {
    const graph = bigGraph(WORKER_THRESHOLD * 4);
    const first = planLayout(graph);
    worker.answer();
    const out = await first.later!;
    expect(out.positions).toEqual(layoutDagre(graph));
    const again = planLayout(graph);
    expect(again).toMatchObject({ key: first.key, later: null, ready: { source: 'cache', error: null } });
    expect(again.ready!.positions).toBe(out.positions);
    expect(worker.calls).toHaveLength(1);
  });

  it('asks the worker once for a graph requested again while it works', async () => {
    const graph = bigGraph(120);
    const a = planLayout(graph);
    const b = planLayout({ nodes: [...graph.nodes], edges: [...graph.edges] });
    expect(b.later).toBe(a.later);
    expect(worker.calls).toEqual([120]);
    worker.answer();
    await a.later;
    // Settled: the next request is a cache hit, not a stale in-flight job.
    expect(planLayout(graph).ready?.source).toBe('cache');
  });

  it('computes the layout on the main thread when the worker fails, and says why', async () => {
    const graph = bigGraph(100);
    const plan = planLayout(graph);
    worker.fail('The layout worker failed: boom');
    const out = await plan.later!;
    expect(out).toMatchObject({ source: 'main', error: 'The layout worker failed: boom' });
    expect(out.positions).toEqual(layoutLayered(graph));
    expect(planLayout(graph).ready?.source).toBe('cache');
  });

  it('sends a graph too big for the layered layout to the worker too (its fallback is computed there)', async () => {
    const nodes = Array.from({ length: 300 }, (_, i) => `n${i}`);
    const edges = nodes.flatMap((from, i) => nodes.slice(i + 1, i + 150).map((to) => ({ from, to })));
    const plan = planLayout({ nodes, edges });
    expect(plan.ready).toBeNull();
    worker.answer();
    expect(Object.keys((await plan.later!).positions)).toHaveLength(300);
  });

  it('without Web Workers (Node) lays out a big graph at once', () => {
    expect(workersAvailable()).toBe(false);
    setLayoutWorkerClient(null);
    const graph = bigGraph(200);
    const plan = planLayout(graph);
    expect(plan.later).toBeNull();
    expect(plan.ready).toMatchObject({ source: 'main', error: null });
    expect(plan.ready!.positions).toEqual(layoutLayered(graph));
  });
});
