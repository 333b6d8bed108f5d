import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { layoutGraph, type LayoutGraph } from '../../design/layout.ts';
import type { LayoutWorkerClient } from '../../workers/layout.client.ts';
import { clearLayoutCache, planLayout, setLayoutWorkerClient, WORKER_THRESHOLD } from './layout.ts';

/** A worker client that runs the requested engine in-process, as the real worker would. */
function inProcessWorker(calls: string[]): LayoutWorkerClient {
  return {
    layout: (graph, engine) => {
      calls.push(engine);
      return Promise.resolve(layoutGraph(graph, engine));
    },
    dispose: () => {},
  };
}

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
  beforeEach(() => clearLayoutCache());
  afterEach(() => setLayoutWorkerClient(null));

  it("shows dagre's positions at once for a big graph: the worker's answer changes nothing", async () => {
    const calls: string[] = [];
    setLayoutWorkerClient(inProcessWorker(calls));
    const graph = bigGraph(WORKER_THRESHOLD * 4);
    const plan = planLayout(graph);
    expect(plan.engine).toBe('layered');
    expect(calls).toEqual(['dagre']);
    const refined = await plan.refined;
    expect(refined).toEqual(plan.positions);
    // Same object: the view sees at a glance that nothing moved.
    expect(refined).toBe(plan.positions);
  });

  it('remembers the confirmed layout, so a revisit needs no worker', async () => {
    const calls: string[] = [];
    setLayoutWorkerClient(inProcessWorker(calls));
    const graph = bigGraph(120);
    await planLayout(graph).refined;
    const again = planLayout(graph);
    expect(again).toMatchObject({ engine: 'dagre', refined: null });
    expect(calls).toHaveLength(1);
  });

  it('sends no worker job for a graph too big for the layered layout', () => {
    const calls: string[] = [];
    setLayoutWorkerClient(inProcessWorker(calls));
    const nodes = Array.from({ length: 300 }, (_, i) => `n${i}`);
    const edges = nodes.flatMap((from, i) => nodes.slice(i + 1, i + 150).map((to) => ({ from, to })));
    const plan = planLayout({ nodes, edges });
    expect(plan).toMatchObject({ engine: 'layered', refined: null });
    expect(Object.keys(plan.positions)).toHaveLength(300);
    expect(calls).toEqual([]);
  });
});
