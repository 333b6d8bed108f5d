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
// Training graph on the compute core (graph.ts) and its training loop (train.ts).
export {
  TINY_GPT_INPUTS,
  buildTinyGptGraph,
  buildTinyGptLogits,
  weightsOf,
  type TinyGptGraph,
  type TinyGptWindow,
} from './graph.ts';
export {
  LmTrainConfigSchema,
  lrAt,
  trainTinyGpt,
  windowInputs,
  type LmCurvePoint,
  type LmExample,
  type LmTrainConfig,
  type LmTrainConfigInput,
  type LmValidationPoint,
  type TrainTinyGptOptions,
  type TrainTinyGptResult,
} from './train.ts';
// ONNX export and the transformers.js model folder (src/lm/onnx, src/lm/hf-files.ts).
export { exportTinyGptOnnx, buildTinyGptOnnx, ioNames, OPSET, type ExportOptions } from './onnx/gpt2.ts';
export { dequantizedWeights, type ExportDtype } from './onnx/quantize.ts';
export { checkOnnxModel, type CheckOptions, type OnnxSummary, type OnnxValueSummary } from './onnx/check.ts';
export {
  MODEL_FOLDER_FORMAT,
  ModelConfigSchema,
  ModelProvenanceSchema,
  ONNX_FILE_BY_DTYPE,
  SpecialTokensSchema,
  modelFolderFiles,
  parseModelConfig,
  type ModelConfigJson,
  type ModelFolderOptions,
  type ModelProvenance,
  type SpecialTokens,
} from './hf-files.ts';
// tokenizer: byte-level BPE, trained from a corpus, in the Hugging Face tokenizers format
export {
  BpeTokenizer,
  byteLevel,
  tokenizerFromJson,
  trainTokenizer,
  type TokenizerData,
  type TrainTokenizerOptions,
} from './tokenizer.ts';
