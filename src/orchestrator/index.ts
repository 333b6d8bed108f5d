/**
 * The in-tab orchestrator: the model manifest and loading, the prompts, constrained decoding and
 * the teacher data the tiny model is trained on. Other layers import it only through this file.
 */
// manifest: the models Baton offers and how a model name resolves to its files (manifest.ts)
export {
  DTYPE_SUFFIX,
  DtypeSchema,
  F16_DTYPES,
  HF_HOST,
  MANIFEST_FORMAT,
  MAX_MANIFEST_BYTES,
  ManifestSchema,
  ModelEntrySchema,
  PromptFormatSchema,
  estimateSizeMB,
  isHubId,
  onnxFileOf,
  parseManifest,
  resolveModel,
  type Dtype,
  type Manifest,
  type ModelEntry,
  type ModelSource,
  type PromptFormat,
  type ResolveOptions,
} from './manifest.ts';
// runtime: loading a model with transformers.js and writing designs (device, load, generate, designer, formats, cache, runtime)
export {
  chooseDevice,
  type Device,
  type DeviceChoice,
  type DevicePreference,
  type DeviceProbe,
} from './device.ts';
export {
  classify,
  configure,
  fetchManifest,
  loadModel,
  loadTransformers,
  tokenizerMismatch,
  tokenizerSizeOf,
  type LoadEvent,
  type LoadOptions,
  type LoadProblem,
  type LoadedLm,
  type Transformers,
} from './load.ts';
export { generate, promptText, type GenerateOptions, type Generation, type Prompt } from './generate.ts';
export {
  designOutcome,
  type DesignOutcome,
  type DesignRead,
  type DesignerInput,
  type DomChoice,
} from './designer.ts';
export { chatFormat, type PromptFormatAdapter } from './formats.ts';
export { MODEL_CACHE_KEY, cachedModelFiles, clearModelCache, type CacheSummary } from './cache.ts';
export {
  createOrchestratorRuntime,
  type Constraint,
  type ConstraintContext,
  type Designed,
  type GenerateRequest,
  type LoadRequest,
  type Loaded,
  type OrchestratorRuntime,
  type Outcome,
  type RuntimeDeps,
  type RuntimeErrorCode,
  type RuntimeProblem,
} from './runtime.ts';
