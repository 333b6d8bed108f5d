/**
 * The workers' front door: what store services use to talk to Web Workers. Everything that posts a
 * message lives in this folder; each worker declares its methods once (`*.methods.ts`) and is served
 * and called through the typed RPC in `rpc/`.
 */
export { createLayoutWorkerClient, type LayoutWorkerClient } from './layout.client.ts';
export { workersAvailable } from './rpc/endpoint.ts';
export { heldLayoutWorker, type HeldLayoutWorker } from './layout.fake.ts';
export type { CallOptions, RpcClient } from './rpc/client.ts';
export { RPC_CODES, type RpcErrorCode } from './rpc/protocol.ts';
export { createTrainWorkerClient, type StartInput, type TrainWorkerClient } from './train.client.ts';
export {
  EvaluationSchema,
  IterationMetricsSchema,
  type AblationProgressReport,
  type Evaluation,
  type StructureRow,
  type RerunProgress,
  type TrainFrom,
  type TrainProgress,
} from './train.methods.ts';
export { channelTrainWorker } from './train.local.ts';
export {
  createEvalWorkerClient,
  type EvalWorkerClient,
  type EvalWorkerInput,
  type EvalWorkerOutput,
  type EvalWorkerProgress,
} from './eval.client.ts';
export { channelEvalWorker } from './eval.local.ts';
export { EvalProviderSchema, type EvalProvider } from './eval.methods.ts';
// orchestrator: the in-tab orchestrator model's worker (orchestrator.*)
export {
  createOrchestratorWorkerClient,
  type ManifestListing,
  type OrchestratorWorkerClient,
} from './orchestrator.client.ts';
export { channelOrchestratorWorker } from './orchestrator.local.ts';
export {
  DevicePreferenceSchema,
  DomChoiceSchema,
  GeneratedSchema,
  LoadedModelSchema,
  MODEL_CODES,
  type GenerateProgress,
  type Generated,
  type LoadProgress,
  type LoadedModel,
  type ModelErrorCode,
  type ModelProblem,
} from './orchestrator.methods.ts';
