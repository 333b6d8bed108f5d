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
