/** Entry point of the WebAssembly SIMD kernels (AssemblyScript); see docs/compute-core.md. */
export { matmul, matmulRows, matmulWorkBytes, packBAll, packedBFloats } from './matmul';
export { adam, sumSquares } from './adam';
export { sparseRows } from './sparse';
export {
  biasAct,
  biasActGrad,
  binary,
  binaryGrad,
  softmax,
  softmaxGrad,
  unary,
  unaryGrad,
} from './elementwise';
export {
  gatherRows,
  scatterAddRows,
  layerNorm,
  layerNormGrad,
  crossEntropy,
  crossEntropyGrad,
  causalAttention,
  causalAttentionGrad,
  attendRow,
} from './rows';

/** First byte past the module's static data: the host allocates above it. */
export function heapBase(): usize {
  return __heap_base;
}
