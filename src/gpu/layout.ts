import type { Graph } from './graph.ts';
import { size } from './graph.ts';

/**
 * Byte layout of the parameter arena (and of its gradient, m and v arenas, which share it): every
 * parameter starts at a multiple of PARAM_ALIGN floats (256 bytes, WebGPU's
 * minStorageBufferOffsetAlignment) so that it can be bound on its own. Padding floats stay 0 in every
 * arena, so they add nothing to the gradient norm and Adam leaves them at 0.
 */
export const PARAM_ALIGN = 64;

export interface ParamLayout {
  /** Node id -> offset in floats. */
  offsets: Map<number, number>;
  /** Total floats, a multiple of PARAM_ALIGN. */
  total: number;
}

export function paramLayout(graph: Graph): ParamLayout {
  const offsets = new Map<number, number>();
  let total = 0;
  for (const p of graph.params()) {
    offsets.set(p.id, total);
    total += Math.ceil(size(p.shape) / PARAM_ALIGN) * PARAM_ALIGN;
  }
  return { offsets, total: Math.max(total, PARAM_ALIGN) };
}

/** The initial parameter arena built from each param's init values. */
export function initialParams(graph: Graph, layout: ParamLayout): Float32Array {
  const arena = new Float32Array(layout.total);
  for (const p of graph.params()) {
    if (p.op.kind === 'param') arena.set(p.op.init, layout.offsets.get(p.id) ?? 0);
  }
  return arena;
}
