import { createRpcClient, type RpcClient } from './rpc/client.ts';
import type { WorkerEndpoint } from './rpc/endpoint.ts';
import { orchTrainMethods, type OrchTrainMethods } from './train-orchestrator.methods.ts';

/**
 * The main-thread side of the orchestrator LM's training: its own instance of the training worker
 * (train.worker.ts serves both method tables), so a policy run and an orchestrator run never wait
 * on each other. Every answer is a `Result` (`E_WORKER_*` on failure), never an exception; pausing
 * is cancelling `orchRun` through its signal.
 */
export type OrchTrainClient = RpcClient<OrchTrainMethods>;

export function startOrchTrainWorker(): WorkerEndpoint {
  return new Worker(new URL('./train.worker.ts', import.meta.url), {
    type: 'module',
    name: 'baton-train-orchestrator',
  });
}

export function createOrchTrainClient(spawn: () => WorkerEndpoint = startOrchTrainWorker): OrchTrainClient {
  return createRpcClient(orchTrainMethods, spawn, 'train');
}
