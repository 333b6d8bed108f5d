/**
 * The workers' front door: what store services use to talk to Web Workers. Everything that posts a
 * message lives in this folder; each worker declares its methods once (`*.methods.ts`) and is served
 * and called through the typed RPC in `rpc/`.
 */
import type { EvalWorkerClient } from './eval.client.ts';
import type { TrainWorkerClient } from './train.client.ts';
import type { ChannelTrainOptions } from './train.local.ts';

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
  type SimThreads,
  type TrainFrom,
  type TrainProgress,
} from './train.methods.ts';
export type { ChannelTrainOptions } from './train.local.ts';
/**
 * The training worker's handlers on a MessageChannel in this thread (store tests): loaded on first
 * use, so the page's first load does not carry the trainer.
 */
export async function openChannelTrainWorker(
  o: ChannelTrainOptions = {},
): Promise<TrainWorkerClient & { close(): void }> {
  const { channelTrainWorker } = await import('./train.local.ts');
  return channelTrainWorker(o);
}
export {
  createEvalWorkerClient,
  type EvalWorkerClient,
  type EvalWorkerInput,
  type EvalWorkerOutput,
  type EvalWorkerProgress,
} from './eval.client.ts';
/**
 * The evaluation worker's handlers on a MessageChannel in this thread (store tests): loaded on first
 * use, so the page's first load does not carry the evaluation worker's code.
 */
export async function openChannelEvalWorker(): Promise<EvalWorkerClient & { close(): void }> {
  const { channelEvalWorker } = await import('./eval.local.ts');
  return channelEvalWorker();
}
export { EvalProviderSchema, type EvalProvider } from './eval.methods.ts';
// orchestrator: the in-tab orchestrator model's worker (orchestrator.*)
export {
  createOrchestratorWorkerClient,
  type ManifestListing,
  type OrchestratorWorkerClient,
} from './orchestrator.client.ts';
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
// train-orchestrator: GRPO of the orchestrator LM in the training worker (train-orchestrator.*)
import type { OrchTrainClient } from './train-orchestrator.client.ts';
export type { OrchTrainClient };
export type {
  ExportedModel,
  OrchConfigInput,
  OrchEvaluation,
  OrchMetrics,
  OrchProgress,
  OrchRunInfo,
  OrchSampled,
} from './train-orchestrator.methods.ts';
/** The orchestrator mode's worker client, loaded on first use (its schemas stay out of the first page). */
export async function openOrchTrainClient(): Promise<OrchTrainClient> {
  const { createOrchTrainClient } = await import('./train-orchestrator.client.ts');
  return createOrchTrainClient();
}
