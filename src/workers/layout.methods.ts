import { z } from 'zod';
import { defineMethods } from './rpc/protocol.ts';

/** The layout worker's one method: `layoutLayered` (src/view/layout.ts) off the main thread. */

const nodeId = z.string().min(1).max(200);
const MAX_NODES = 10_000;
const MAX_EDGES = 100_000;
const point = z.object({ x: z.number().finite(), y: z.number().finite() });

export const layoutMethods = defineMethods({
  layout: {
    input: z.object({
      nodes: z.array(nodeId).max(MAX_NODES),
      edges: z.array(z.object({ from: nodeId, to: nodeId })).max(MAX_EDGES),
    }),
    // One synchronous computation: nothing to report before the answer.
    progress: z.never(),
    output: z.object({
      positions: z.record(nodeId, point),
      /** Time the layout took inside the worker, ms. */
      ms: z.number().nonnegative(),
    }),
  },
});

export type LayoutMethods = typeof layoutMethods;
