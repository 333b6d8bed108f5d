import { z } from 'zod';

/**
 * Messages between the main thread and the layout worker. Both sides parse what they receive with
 * these schemas: a worker message crosses a trust boundary like any other input.
 */

const nodeId = z.string().min(1).max(200);
const MAX_NODES = 10_000;
const MAX_EDGES = 100_000;

export const LayoutRequestSchema = z.object({
  type: z.literal('layout'),
  /** Correlates the answer with the request; answers to superseded requests are dropped. */
  requestId: z.number().int().nonnegative(),
  nodes: z.array(nodeId).max(MAX_NODES),
  edges: z.array(z.object({ from: nodeId, to: nodeId })).max(MAX_EDGES),
});

const point = z.object({ x: z.number().finite(), y: z.number().finite() });

export const LayoutResponseSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('layout.done'),
    requestId: z.number().int().nonnegative(),
    positions: z.record(nodeId, point),
    /** Time the layout took inside the worker, ms. */
    ms: z.number().nonnegative(),
  }),
  z.object({
    type: z.literal('layout.error'),
    requestId: z.number().int().nonnegative(),
    message: z.string().max(10_000),
  }),
]);

export type LayoutRequest = z.infer<typeof LayoutRequestSchema>;
export type LayoutResponse = z.infer<typeof LayoutResponseSchema>;
