/**
 * The in-tab orchestrator: the model manifest and loading, the prompts, constrained decoding and
 * the teacher data the tiny model is trained on. Other layers import it only through this file.
 */

// Constrained decoding (src/orchestrator/constrain): every finished output a valid design.
import type { DesignLogitsProcessor } from './constrain/processor.ts';
export {
  createDesignConstraint,
  roleSlug,
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
