import { fail, ok } from '../core/result.ts';
import { layoutLayered, type LayoutGraph, type Positions } from '../view/layout.ts';
import type { LayoutWorkerClient } from './layout.client.ts';

/**
 * For tests (Node has no Web Workers): a layout worker client whose requests wait until the test
 * answers or fails them, oldest first.
 */
export interface HeldLayoutWorker {
  client: LayoutWorkerClient;
  /** The node count of every graph sent, in order. */
  calls: number[];
  /** Answers the oldest waiting request: with `positions`, or with what the real worker computes. */
  answer(positions?: Positions): void;
  /** Fails the oldest waiting request, as a crashed worker or a malformed reply would. */
  fail(message: string): void;
}

export function heldLayoutWorker(): HeldLayoutWorker {
  const calls: number[] = [];
  type Answer = Awaited<ReturnType<LayoutWorkerClient['layout']>>;
  const waiting: { graph: LayoutGraph; settle: (a: Answer) => void }[] = [];
  const next = (): (typeof waiting)[number] => {
    const w = waiting.shift();
    if (!w) throw new Error('no layout request is waiting');
    return w;
  };
  return {
    client: {
      layout: (graph) => {
        calls.push(graph.nodes.length);
        return new Promise((settle) => waiting.push({ graph, settle }));
      },
      dispose: () => {},
    },
    calls,
    answer(positions) {
      const w = next();
      w.settle(ok(positions ?? layoutLayered(w.graph)));
    },
    fail(message) {
      next().settle(fail({ code: 'E_WORKER_CRASHED', message, path: 'layout.layout' }));
    },
  };
}
