/**
 * What a model of the CPU backend runs on: the kernel table and the allocator of its arrays. The
 * TypeScript backend uses plain typed arrays and the kernels of ./ops.ts; the wasm backend
 * (src/gpu/wasm) supplies views into one WebAssembly memory and its SIMD kernels.
 */
import type { Graph, Node } from '../graph.ts';
import { cols, size } from '../graph.ts';
import type { BackendKind } from '../model.ts';
import { adamStep } from '../optimizer.ts';
import {
  bernoulliLogProb,
  bernoulliLogProbGrad,
  biasAct,
  biasActGrad,
  binary,
  binaryGrad,
  causalAttention,
  causalAttentionGrad,
  crossEntropy,
  crossEntropyGrad,
  gatherRows,
  layerNorm,
  layerNormGrad,
  matmul,
  matmulSharedPrefix,
  pick,
  pickGrad,
  reduce,
  reduceGrad,
  scatterAddRows,
  softmax,
  softmaxGrad,
  unary,
  unaryGrad,
} from './ops.ts';

/** The kernels a model runs: the reference kernels (./ops.ts) and the optimizer's update. */
export const TS_KERNELS = {
  bernoulliLogProb,
  bernoulliLogProbGrad,
  biasAct,
  biasActGrad,
  binary,
  binaryGrad,
  causalAttention,
  causalAttentionGrad,
  crossEntropy,
  crossEntropyGrad,
  gatherRows,
  layerNorm,
  layerNormGrad,
  matmul,
  matmulSharedPrefix,
  pick,
  pickGrad,
  reduce,
  reduceGrad,
  scatterAddRows,
  softmax,
  softmaxGrad,
  unary,
  unaryGrad,
  adamStep,
};
export type Kernels = typeof TS_KERNELS;

/**
 * What a backend built on this one supplies (src/gpu/wasm): kernels with the reference's
 * signatures, and the allocator every array of the model comes from (the wasm backend sizes its memory for them).
 */
export interface CpuRuntime {
  backend: BackendKind;
  kernels: Kernels;
  f32(len: number): Float32Array;
  u32(len: number): Uint32Array;
  /** Told which array holds the model's weights (once, after allocation); kernels may cache what they derive from them. */
  weights?(params: Float32Array): void;
  /** Told each time the weights were written (optimizer step, import): such caches are stale. */
  weightsChanged?(): void;
}

export const TS_RUNTIME: CpuRuntime = {
  backend: 'cpu',
  kernels: TS_KERNELS,
  f32: (len) => new Float32Array(len),
  u32: (len) => new Uint32Array(len),
};

/** Floats of the per-node statistics kept for backward (0 for ops that keep none). */
export function statsLength(graph: Graph, n: Node): number {
  if (n.op.kind === 'layerNorm') return (2 * size(n.shape)) / cols(n.shape);
  if (n.op.kind === 'causalAttention') return n.op.batch * n.op.heads * n.op.seq * n.op.seq;
  if (n.op.kind === 'crossEntropy') return 2 * (graph.node(n.op.logits).shape[0] as number);
  if (n.op.kind === 'ppoClip') return size(graph.node(n.op.logp).shape);
  return 0;
}
