import type { Result } from '../core/result.ts';
import { evalMethods } from './eval.methods.ts';
import { createRpcClient, type CallOptions } from './rpc/client.ts';
import type { WorkerEndpoint } from './rpc/endpoint.ts';
import type { z } from 'zod';

type Method = (typeof evalMethods)['evaluate'];
export type EvalWorkerInput = z.infer<Method['input']>;
export type EvalWorkerProgress = z.infer<Method['progress']>;
export type EvalWorkerOutput = z.infer<Method['output']>;

/** The main-thread side of the evaluation worker: one lazily started worker. */
export interface EvalWorkerClient {
  evaluate(
    input: EvalWorkerInput,
    options?: CallOptions<EvalWorkerProgress>,
  ): Promise<Result<EvalWorkerOutput>>;
  dispose(): void;
}

export function startEvalWorker(): WorkerEndpoint {
  return new Worker(new URL('./eval.worker.ts', import.meta.url), { type: 'module', name: 'baton-eval' });
}

export function createEvalWorkerClient(spawn: () => WorkerEndpoint = startEvalWorker): EvalWorkerClient {
  const rpc = createRpcClient(evalMethods, spawn, 'eval');
  return {
    evaluate: (input, options) => rpc.call('evaluate', input, options),
    dispose: () => rpc.dispose(),
  };
}
