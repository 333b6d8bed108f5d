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
// tokenizer: byte-level BPE, trained from a corpus, in the Hugging Face tokenizers format
export {
  BpeTokenizer,
  byteLevel,
  tokenizerFromJson,
  trainTokenizer,
  type TokenizerData,
  type TrainTokenizerOptions,
} from './tokenizer.ts';
