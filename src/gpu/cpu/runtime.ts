/**
 * What a model of the CPU backend runs on: the kernel table and the allocator of its arrays. The
 * TypeScript backend uses plain typed arrays and the kernels of ./ops.ts; the wasm backend
 * (src/gpu/wasm) supplies views into one WebAssembly memory and its SIMD kernels.
 */
import type { Graph, Node } from '../graph.ts';
import { cols, size } from '../graph.ts';
import { paramLayout } from '../layout.ts';
import type { BackendKind } from '../model.ts';
import { adamStep } from '../optimizer.ts';
import * as ops from './ops.ts';

/** The kernels a model runs: the reference kernels (./ops.ts) and the optimizer's update. */
export type Kernels = typeof ops & { adamStep: typeof adamStep };

/**
 * What a backend built on this one supplies (src/gpu/wasm): kernels with the reference's
 * signatures, and the allocator every array of the model comes from (sized by `modelFloats`).
 */
export interface CpuRuntime {
  backend: BackendKind;
  kernels: Kernels;
  f32(len: number): Float32Array;
  u32(len: number): Uint32Array;
}

export const TS_RUNTIME: CpuRuntime = {
  backend: 'cpu',
  kernels: { ...ops, adamStep },
  f32: (len) => new Float32Array(len),
  u32: (len) => new Uint32Array(len),
};

/** Lengths of the arrays a model of `graph` allocates (the arenas, then per node), for a runtime's sizing. */
export function modelArrayLengths(graph: Graph): number[] {
  const total = paramLayout(graph).total;
  const out = [total, total, total, total];
  for (const n of graph.nodes) {
    const len = size(n.shape);
    if (n.op.kind !== 'param') {
      out.push(len);
      if (n.requiresGrad) out.push(len);
    }
    const stats = statsLength(graph, n);
    if (stats > 0) out.push(stats);
  }
  return out;
}

/** Floats of the per-node statistics kept for backward (0 for ops that keep none). */
export function statsLength(graph: Graph, n: Node): number {
  if (n.op.kind === 'layerNorm') return (2 * size(n.shape)) / cols(n.shape);
  if (n.op.kind === 'causalAttention') return n.op.batch * n.op.heads * n.op.seq * n.op.seq;
  if (n.op.kind === 'crossEntropy') return 2 * (graph.node(n.op.logits).shape[0] as number);
  return 0;
}
