/// <reference lib="webworker" />
import { layoutLayered } from '../view/layout.ts';
import { layoutMethods } from './layout.methods.ts';
import { serveRpc } from './rpc/server.ts';

/**
 * Runs the graph layout (`layoutLayered`) off the main thread: on a fresh page it takes ≈50–90 ms at
 * 1,000 agents, more than a frame. The viewer shows a placeholder until the answer arrives.
 */
const scope = self as unknown as DedicatedWorkerGlobalScope;

serveRpc(
  scope,
  layoutMethods,
  {
    layout(graph) {
      const started = performance.now();
      const positions = layoutLayered(graph);
      return { positions, ms: performance.now() - started };
    },
  },
  'layout',
);
