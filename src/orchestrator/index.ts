/**
 * The in-tab orchestrator: the model manifest and loading, the prompts, constrained decoding and
 * the teacher data the tiny model is trained on. Other layers import it only through this file.
 */
// tiny-format: the tiny model's prompt and output format (format `tiny`)
export {
  SUMMARIZER_ROLE,
  TINY_FORMAT,
  TINY_SPECIAL_TOKENS,
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
