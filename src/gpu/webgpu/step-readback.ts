import type { Graph, Node as GraphNode } from '../graph.ts';
import { size } from '../graph.ts';
import type { ParamLayout } from '../layout.ts';
import type { TrainState } from '../optimizer.ts';
import { bindingOf, takeReadback, type DeviceState } from './state.ts';

/**
 * A step's one read-back (model.ts `submit` fills it, `collect` reads it): the loss and the
 * gradient norm (8 bytes), the tensors the step reads (`RunOptions.read`), each at its own offset,
 * and with `RunOptions.state` the parameter arena and the two Adam moment arenas after the step.
 */
export interface StepReadback {
  rb: GPUBuffer;
  bytes: number;
  reads: GraphNode[];
  /** Floats of each state arena in the read-back (0: the step reads no state). */
  stateFloats: number;
}

/** Encodes the copies of one step's read-back into `enc`, after its compute pass. */
export function encodeStepReadback(
  enc: GPUCommandEncoder,
  s: DeviceState,
  graph: Graph,
  layout: ParamLayout,
  o: { lossId: number | null; prune: boolean; backward: boolean; reads: GraphNode[]; state: boolean },
): StepReadback {
  const stateFloats = o.state ? layout.total : 0;
  const bytes = o.reads.reduce((b, n) => b + size(n.shape) * 4, 8) + 3 * stateFloats * 4;
  const rb = takeReadback(s, bytes);
  if (o.lossId !== null && !o.prune) enc.copyBufferToBuffer(s.values[o.lossId] as GPUBuffer, 0, rb, 0, 4);
  if (o.backward) enc.copyBufferToBuffer(s.norm, 0, rb, 4, 4);
  let at = 8;
  for (const n of o.reads) {
    const b = size(n.shape) * 4;
    const src = bindingOf(graph, layout, s, { t: 'value', id: n.id });
    enc.copyBufferToBuffer(src.buffer, src.offset ?? 0, rb, at, b);
    at += b;
  }
  if (stateFloats > 0)
    for (const arena of [s.arenas.params, s.arenas.m, s.arenas.v]) {
      enc.copyBufferToBuffer(arena, 0, rb, at, stateFloats * 4);
      at += stateFloats * 4;
    }
  return { rb, bytes, reads: o.reads, stateFloats };
}

/** The tensors read and the state arenas from a mapped read-back's floats (`out`). */
export function stepReadbackValues(
  out: Float32Array,
  r: Pick<StepReadback, 'reads' | 'stateFloats'>,
): { values?: Float32Array[]; state?: Omit<TrainState, 't'> } {
  let at = 2;
  const values = r.reads.map((n) => {
    const v = out.slice(at, at + size(n.shape));
    at += size(n.shape);
    return n.dtype === 'u32' ? Float32Array.from(new Uint32Array(v.buffer)) : v;
  });
  const n = r.stateFloats;
  const state =
    n > 0
      ? {
          params: out.slice(at, at + n),
          m: out.slice(at + n, at + 2 * n),
          v: out.slice(at + 2 * n, at + 3 * n),
        }
      : null;
  return { ...(values.length > 0 ? { values } : {}), ...(state ? { state } : {}) };
}
