/**
 * Front door of GRPO of the orchestrator LM: the model folder reader (ONNX), the sampler, the
 * learner, the loop and the held-out evaluation. Apart from src/train/index.ts because these pull
 * the LM and the ONNX protobuf schema: the workers and the CLI import them, the page never does.
 */
export {
  MAX_ONNX_BYTES,
  orchestratorFolderFiles,
  readOrchestratorModel,
  weightsFromOnnx,
  type ModelFolderInput,
  type OrchestratorModel,
} from './orchestrator-model.ts';
export { CpuExactDecoder, maskedLogSoftmax, type SequenceCache } from './orchestrator-decode.ts';
export {
  sampleDesigns,
  type Dom,
  type Query,
  type Sample,
  type SampleOptions,
  type SamplingConstraint,
  type SamplingFormat,
} from './orchestrator-sampler.ts';
export {
  OrchestratorLearner,
  type OrchestratorUpdateStats,
  type ScoredSequence,
} from './orchestrator-learner.ts';
export {
  OrchestratorTrainer,
  iterationMetricsOf,
  type OrchestratorTrainerOptions,
  type SampledOrchestration,
} from './orchestrator-loop.ts';
export {
  HELD_OUT_SEED,
  beforeAfter,
  drawSplitTasks,
  evaluateOrchestrator,
  heldOutQueries,
  summarizeHeldOut,
  type BeforeAfter,
  type DesignRunner,
  type HeldOutDesign,
  type HeldOutOptions,
  type HeldOutSummary,
} from './orchestrator-eval.ts';
export {
  DOM_MIXES,
  OrchestratorTrainConfigSchema,
  orchestratorTrainConfig,
  type OrchestratorTrainConfig,
  type OrchestratorTrainConfigInput,
} from './orchestrator-config.ts';
export {
  MAX_CHECKPOINT_TEXT,
  ORCHESTRATOR_CHECKPOINT_FORMAT,
  OrchestratorCheckpointSchema,
  checkpointFromState,
  parseOrchestratorCheckpoint,
  stateOfCheckpoint,
  type CheckpointResult,
  type OrchestratorCheckpoint,
  type OrchestratorIterationMetrics,
} from './orchestrator-checkpoint.ts';
