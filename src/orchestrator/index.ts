/**
 * The in-tab orchestrator: the model manifest and loading, the prompts, constrained decoding and
 * the teacher data the tiny model is trained on. Other layers import it only through this file.
 */
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
