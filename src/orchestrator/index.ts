/**
 * The in-tab orchestrator: the model manifest and loading, the prompts, constrained decoding and
 * the teacher data the tiny model is trained on. Other layers import it only through this file.
 */

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
