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
