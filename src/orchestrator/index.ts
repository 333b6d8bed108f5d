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
export { designOutcome, type DesignRead, type DesignerInput, type DomChoice } from './designer.ts';
export {
  chatFormat,
  designBudget,
  designConstraint,
  positionsOf,
  tinyFormat,
  tinyVersionOfLm,
  type PromptFormatAdapter,
} from './formats.ts';
export { MODEL_CACHE_KEY, cachedModelFiles, clearModelCache, type CacheSummary } from './cache.ts';
// trained-models: folders the Train page exports, kept in Cache Storage and served to the loader
export {
  TRAINED_MODELS_CACHE,
  TRAINED_MODELS_PATH,
  fetchModelFolder,
  isTrainedModelUrl,
  putTrainedFolder,
  trainedModelsFetch,
} from './trained-models.ts';
// design-sampling: a format's prompt, constraint and reading in one object (the GRPO trainer's sampler)
export { tinyDesignSampling, type DesignSampling, type TinyTokenizer } from './design-sampling.ts';
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

// Constrained decoding (src/orchestrator/constrain): every finished output a valid design.
import type { DesignLogitsProcessor } from './constrain/processor.ts';
export {
  createDesignConstraint,
  type ConstraintRole,
  type ConstraintStats,
  type DesignConstraint,
  type DesignConstraintOptions,
} from './constrain/engine.ts';
export { designGrammar, type DesignFormat } from './constrain/grammar.ts';
export { vocabFromTokenizer, type TokenizerLike, type VocabType } from './constrain/vocab.ts';
/** The transformers.js logits processor, loaded on demand so the front door stays light. */
export const loadDesignLogitsProcessor = async (): Promise<typeof DesignLogitsProcessor> =>
  (await import('./constrain/processor.ts')).DesignLogitsProcessor;
// tiny-format: the tiny model's prompt and output format (format `tiny`)
export {
  SUMMARIZER_ROLE,
  TINY_FORMAT,
  TINY_SPECIAL_TOKENS,
  TINY_TAG_TOKENS,
  TINY_TOKENS,
  canonicalDesign,
  designOfPlan,
  expandTinyDesign,
  tinyAgentId,
  tinyDesignText,
  tinyPlanOf,
  tinyPlanText,
  tinyPromptIds,
  tinyQueryText,
  tinyRoles,
  type ExpandResult,
  type TinyPlan,
  type TinyRole,
} from './tiny-format.ts';
// teacher: the designs the tiny model is trained on, chosen by simulator reward
export {
  TEACHER_REWARD,
  bestOf,
  drawTeacherTasks,
  lowCandidates,
  scoreSeed,
  teacherExamples,
  type DesignOutcome,
  type DesignRunner,
  type RewardSettings,
  type Scored,
  type TeacherExample,
  type TeacherOptions,
} from './teacher.ts';
// tiny2-format: version 2 of the tiny format (whole query, a stated plan, the direct answer)
export {
  ARCHIVE_ROLES,
  TINY2_FORMAT,
  TINY2_TAG_TOKENS,
  branchOf,
  designOfPlan2,
  planNotes,
  planShape,
  readTiny2,
  tiny2PlanOf,
  tiny2PlanText,
  tiny2Roles,
  tinyVersionOf,
  type ArchiveRole,
  type DesignBranch,
  type Expand2Result,
  type TaskShape,
  type Tiny2Plan,
} from './tiny2-format.ts';
// teacher2: the v2 teacher, the best of policy samples, fixed designs and archive agents
export {
  DIRECT_CANDIDATE,
  FIXED_PROGRAMS,
  programDesign,
  staticCandidates,
  structureOf,
  teacher2Examples,
  type Candidate2,
  type CandidateSource,
  type Program,
  type Scored2,
  type SeededRunner,
  type Teacher2Example,
  type Teacher2Options,
} from './teacher2.ts';
