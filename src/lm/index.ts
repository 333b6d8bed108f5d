/** The tiny orchestrator model: architecture, reference forward pass, initial weights. */
export {
  TinyGptConfigSchema,
  checkWeights,
  headDim,
  paramCount,
  paramSpecs,
  type ParamSpec,
  type TinyGptConfig,
  type TinyGptWeights,
} from './spec.ts';
export { cacheLength, emptyCache, forward, greedy, step, type KvCache } from './reference.ts';
export { initWeights } from './init.ts';
// ONNX export (src/lm/onnx).
export { exportTinyGptOnnx, buildTinyGptOnnx, ioNames, OPSET, type ExportOptions } from './onnx/gpt2.ts';
export { dequantizedWeights, type ExportDtype } from './onnx/quantize.ts';
