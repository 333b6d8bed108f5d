import type { Result } from '../core/result.ts';
import type { PolicyCheckpoint } from '../policy/index.ts';
import type { AblationStudy, IterationMetrics, TrainerSnapshot } from '../train/index.ts';
import { createRpcClient, type CallOptions } from './rpc/client.ts';
import type { WorkerEndpoint } from './rpc/endpoint.ts';
import type { InputOf, OutputOf } from './rpc/protocol.ts';
import {
  trainMethods,
  type AblationProgressReport,
  type Evaluation,
  type RerunProgress,
  type TrainFrom,
  type TrainMethods,
  type TrainProgress,
} from './train.methods.ts';

/**
 * The main-thread side of the training worker: one lazily started worker holding one trainer.
 * Every answer is a `Result` (`E_WORKER_*` on failure), never an exception. Pausing is cancelling
 * `run` through its signal; the iteration in flight still finishes in the worker, and a following
 * `snapshot` answers after it.
 */
/** `start`'s input, with a snapshot as the trainer types it (the worker parses it again). */
export type StartInput = Omit<InputOf<TrainMethods['start']>, 'from'> & {
  from: Exclude<TrainFrom, { kind: 'snapshot' }> | { kind: 'snapshot'; snapshot: TrainerSnapshot };
};

export interface TrainWorkerClient {
  start(input: StartInput): Promise<Result<OutputOf<TrainMethods['start']>>>;
  run(
    input: InputOf<TrainMethods['run']>,
    options: CallOptions<TrainProgress>,
  ): Promise<Result<OutputOf<TrainMethods['run']>>>;
  snapshot(): Promise<Result<TrainerSnapshot>>;
  trained(): Promise<Result<PolicyCheckpoint>>;
  evaluate(
    input: InputOf<TrainMethods['evaluate']>,
    options?: CallOptions<{ done: number; total: number }>,
  ): Promise<Result<Evaluation>>;
  reset(): Promise<Result<object>>;
  /** A fresh CPU re-run of a built-in start, apart from the held run: every iteration's metrics. */
  rerun(
    input: InputOf<TrainMethods['rerun']>,
    options?: CallOptions<RerunProgress>,
  ): Promise<Result<IterationMetrics[]>>;
  /** The ablation study; cancelling through `options.signal` ends it. */
  ablation(
    input: InputOf<TrainMethods['ablation']>,
    options?: CallOptions<AblationProgressReport>,
  ): Promise<Result<AblationStudy>>;
  /** Test hook: destroys the WebGPU device after that many more minibatch updates. */
  loseDevice(afterUpdates: number): Promise<Result<{ armed: boolean }>>;
  dispose(): void;
}

export function startTrainWorker(): WorkerEndpoint {
  return new Worker(new URL('./train.worker.ts', import.meta.url), { type: 'module', name: 'baton-train' });
}

export function createTrainWorkerClient(spawn: () => WorkerEndpoint = startTrainWorker): TrainWorkerClient {
  const rpc = createRpcClient(trainMethods, spawn, 'train');
  return {
    start: (input) => rpc.call('start', input as InputOf<TrainMethods['start']>),
    run: (input, options) => rpc.call('run', input, options),
    snapshot: async () => (await rpc.call('snapshot', {})) as Result<TrainerSnapshot>,
    trained: () => rpc.call('trained', {}),
    evaluate: (input, options) => rpc.call('evaluate', input, options),
    reset: () => rpc.call('reset', {}),
    rerun: async (input, options) => {
      const r = await rpc.call('rerun', input, options);
      return r.ok ? { ...r, value: r.value.history as unknown as IterationMetrics[] } : r;
    },
    ablation: async (input, options) =>
      (await rpc.call('ablation', input, options)) as unknown as Result<AblationStudy>,
    loseDevice: (afterUpdates) => rpc.call('loseDevice', { afterUpdates }),
    dispose: () => rpc.dispose(),
  };
}
