/** Public API of the trainer (HRPO, GRPO, REINFORCE for the construction policy). See docs/train.md. */
export {
  ADVANTAGE_NORMS,
  ALGOS,
  PRESETS,
  TrainConfigSchema,
  parseTrainConfig,
  trainConfig,
  type Algo,
  type ConfigResult,
  type PresetName,
  type TrainConfig,
  type TrainConfigInput,
} from './config.ts';
export { actionRewardsOf, advantages, rewardOf, type Advantages, type Scored } from './advantages.ts';
export { ppoObjective, type ObjectiveInput, type ObjectiveResult, type ObjectiveStats } from './objective.ts';
export { PRESET_TABLE, drawTasks, type Preset } from './presets.ts';
export {
  rollout,
  type FinalOutcome,
  type Rollout,
  type RolloutOptions,
  type RunnersFor,
  type TaskRunners,
} from './rollout.ts';
export { rolloutMany, type ManyRolloutOptions } from './rollout-batch.ts';
export type { PooledRolloutRequest, RolloutWorkers } from './rollout-workers.ts';
export { PROBE_ROUNDS, rolloutTimes, type RolloutChoice } from './rollout-probe.ts';
export { Learner, type UpdateStats } from './learner.ts';
// GRPO of the orchestrator LM (its config and checkpoint format too) is behind src/train/orchestrator.ts.
export {
  Trainer,
  train,
  type Clock,
  type TrainerOptions,
  type TrainOptions,
  type TrainResult,
  type UpdateMetrics,
} from './loop.ts';
export { iterationWorkload, type IterationProbeOptions } from './backend-probe.ts';
export {
  designDepth,
  meanUpdate,
  roleShares,
  type AxisStats,
  type IterationMetrics,
  type RolloutStats,
  type SampledDesign,
} from './metrics.ts';
export {
  MAX_SNAPSHOT_TEXT,
  SNAPSHOT_IDB,
  SNAPSHOT_FORMAT,
  TrainerSnapshotSchema,
  parseSnapshot,
  snapshotFromJson,
  snapshotToJson,
  type SnapshotResult,
  type TrainerSnapshot,
} from './snapshot.ts';
export {
  evaluatePolicy,
  scoreHeldOut,
  wilson,
  type AxisScore,
  type EvalOptions,
  type EvalResult,
} from './evaluate.ts';
export {
  CURVE_KEYS,
  EvalRowSchema,
  MAX_RECORD_ITERATIONS,
  RUN_RECORD_FORMAT,
  RunRecordSchema,
  builtInStart,
  curvesOf,
  firstDifference,
  parseRunRecord,
  quantiseDelta,
  recordCheckpoint,
  runRecord,
  type CurveKey,
  type EvalRow,
  type RecordInput,
  type RunRecord,
} from './run-record.ts';
export {
  meanOf,
  pairedBootstrap,
  sampleStd,
  t975,
  tInterval,
  type MeanInterval,
  type PairedDifference,
} from './ablation-stats.ts';
export {
  compareStructure,
  heldOutRollouts,
  structureMarkdown,
  structureOf,
  type AxisStructure,
  type HeldOutRow,
  type StructureComparison,
  type StructureDelta,
  type StructureStats,
  type StructureTable,
} from './structure.ts';
export {
  ABLATION_VARIANTS,
  ablationMarkdown,
  runAblation,
  summarizeAblation,
  type AblationOptions,
  type AblationProgress,
  type AblationRun,
  type AblationStudy,
  type AblationVariant,
  type CurvePoint,
  type VariantSummary,
} from './ablation.ts';
export {
  baselinesMarkdown,
  presetBaselines,
  type BaselineOptions,
  type BaselineScore,
  type PresetBaseline,
} from './baselines.ts';
