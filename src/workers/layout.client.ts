import { ok, type Result } from '../core/result.ts';
import type { LayoutGraph, Positions } from '../view/layout.ts';
import { layoutMethods } from './layout.methods.ts';
import { createRpcClient } from './rpc/client.ts';
import type { WorkerEndpoint } from './rpc/endpoint.ts';

/** The main-thread side of the layout worker: one lazily started worker. */
export interface LayoutWorkerClient {
  /** `layoutLayered(graph)`, computed in the worker; a failure is a value (`E_WORKER_*`), never thrown. */
  layout(graph: LayoutGraph): Promise<Result<Positions>>;
  dispose(): void;
}

export function startLayoutWorker(): WorkerEndpoint {
  return new Worker(new URL('./layout.worker.ts', import.meta.url), { type: 'module', name: 'baton-layout' });
}

export function createLayoutWorkerClient(
  spawn: () => WorkerEndpoint = startLayoutWorker,
): LayoutWorkerClient {
  const rpc = createRpcClient(layoutMethods, spawn, 'layout');
  return {
    async layout(graph) {
      const input = { nodes: [...graph.nodes], edges: graph.edges.map((e) => ({ from: e.from, to: e.to })) };
      const answer = await rpc.call('layout', input);
      return answer.ok ? ok(answer.value.positions) : answer;
    },
    dispose: () => rpc.dispose(),
  };
}
