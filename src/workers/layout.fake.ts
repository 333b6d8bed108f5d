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
  const waiting: { graph: LayoutGraph; ok: (p: Positions) => void; no: (e: Error) => void }[] = [];
  const next = (): (typeof waiting)[number] => {
    const w = waiting.shift();
    if (!w) throw new Error('no layout request is waiting');
    return w;
  };
  return {
    client: {
      layout: (graph) => {
        calls.push(graph.nodes.length);
        return new Promise((ok, no) => waiting.push({ graph, ok, no }));
      },
      dispose: () => {},
    },
    calls,
    answer(positions) {
      const w = next();
      w.ok(positions ?? layoutLayered(w.graph));
    },
    fail(message) {
      next().no(new Error(message));
    },
  };
}
