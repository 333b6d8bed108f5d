import type { LayoutGraph, Positions } from '../view/layout.ts';
import { LayoutResponseSchema, type LayoutRequest } from './protocol.ts';

/** The main-thread side of the layout worker: one lazily started worker, requests by id. */
export interface LayoutWorkerClient {
  /** `layoutLayered(graph)`, computed in the worker. */
  layout(graph: LayoutGraph): Promise<Positions>;
  dispose(): void;
}

/** Something that behaves like a Worker; tests pass a fake. */
export interface WorkerLike {
  postMessage(msg: unknown): void;
  terminate(): void;
  onmessage: ((ev: MessageEvent<unknown>) => void) | null;
  onerror: ((ev: ErrorEvent) => void) | null;
}

export function startLayoutWorker(): WorkerLike {
  return new Worker(new URL('./layout.worker.ts', import.meta.url), { type: 'module', name: 'baton-layout' });
}

export function createLayoutWorkerClient(spawn: () => WorkerLike = startLayoutWorker): LayoutWorkerClient {
  let worker: WorkerLike | null = null;
  let nextId = 1;
  const pending = new Map<number, { resolve: (p: Positions) => void; reject: (e: Error) => void }>();

  const failAll = (message: string): void => {
    for (const p of pending.values()) p.reject(new Error(message));
    pending.clear();
  };

  const ensure = (): WorkerLike => {
    if (worker) return worker;
    const w = spawn();
    w.onmessage = (ev) => {
      const parsed = LayoutResponseSchema.safeParse(ev.data);
      if (!parsed.success) {
        failAll('The layout worker sent a malformed message.');
        return;
      }
      const msg = parsed.data;
      const entry = pending.get(msg.requestId);
      if (!entry) return;
      pending.delete(msg.requestId);
      if (msg.type === 'layout.done') entry.resolve(msg.positions);
      else entry.reject(new Error(msg.message));
    };
    w.onerror = (ev) => {
      failAll(`The layout worker failed: ${ev.message || 'unknown error'}`);
      w.terminate();
      worker = null;
    };
    worker = w;
    return w;
  };

  return {
    layout(graph) {
      const requestId = nextId++;
      const req: LayoutRequest = {
        type: 'layout',
        requestId,
        nodes: [...graph.nodes],
        edges: graph.edges.map((e) => ({ from: e.from, to: e.to })),
      };
      return new Promise<Positions>((resolve, reject) => {
        pending.set(requestId, { resolve, reject });
        ensure().postMessage(req);
      });
    },
    dispose() {
      failAll('The layout worker was stopped.');
      worker?.terminate();
      worker = null;
    },
  };
}
