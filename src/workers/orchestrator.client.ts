import type { z } from 'zod';
import { fail, ok, type Result } from '../core/result.ts';
import { createRpcClient, type CallOptions } from './rpc/client.ts';
import type { WorkerEndpoint } from './rpc/endpoint.ts';
import type { InputOf } from './rpc/protocol.ts';
import {
  orchestratorMethods,
  type GenerateProgress,
  type Generated,
  type LoadProgress,
  type LoadedModel,
  type ModelProblem,
  type OrchestratorMethods,
} from './orchestrator.methods.ts';

/**
 * The main-thread side of the orchestrator worker: one lazily started worker holding one model.
 * Every answer is a `Result`, never an exception: model failures carry their `E_MODEL_*` code (a
 * corrupt file, a missing one, a tokenizer that does not fit, output that is no design), the
 * worker's own failures `E_WORKER_*`. A generation whose output is no valid design still answers
 * ok, with the raw output kept and `problem` saying why there is no design.
 */
type Out<K extends keyof OrchestratorMethods> = z.output<OrchestratorMethods[K]['output']>;

export interface ManifestListing {
  default: string;
  models: Out<'manifest'> extends infer T ? (T extends { ok: true; models: infer M } ? M : never) : never;
  warnings: string[];
}

export interface OrchestratorWorkerClient {
  manifest(baseUrl: string): Promise<Result<ManifestListing>>;
  load(
    input: InputOf<OrchestratorMethods['load']>,
    options?: CallOptions<LoadProgress>,
  ): Promise<Result<LoadedModel>>;
  generate(
    input: InputOf<OrchestratorMethods['generate']>,
    options?: CallOptions<GenerateProgress>,
  ): Promise<Result<Generated>>;
  /** Stops the generation in flight at the next token; it answers with what was written. */
  interrupt(): Promise<Result<{ interrupted: boolean }>>;
  clearCache(): Promise<Result<{ deleted: number }>>;
  /** Drops the model in the worker (the worker keeps running). */
  unload(): Promise<Result<{ disposed: boolean }>>;
  /** Stops the worker. */
  dispose(): void;
}

export function startOrchestratorWorker(): WorkerEndpoint {
  return new Worker(new URL('./orchestrator.worker.ts', import.meta.url), {
    type: 'module',
    name: 'baton-orchestrator',
  });
}

const problemOf = (p: ModelProblem, path: string) => fail({ ...p, path: p.path ?? path });

function unwrap<T extends { ok: boolean }>(
  r: Result<T>,
  path: string,
): Result<Omit<Extract<T, { ok: true }>, 'ok'>> {
  if (!r.ok) return r;
  const v = r.value as T & { problem?: ModelProblem };
  if (!v.ok) return problemOf(v.problem as ModelProblem, path);
  const { ok: _ok, ...rest } = v as Extract<T, { ok: true }>;
  return ok(rest as Omit<Extract<T, { ok: true }>, 'ok'>, r.warnings);
}

export function createOrchestratorWorkerClient(
  spawn: () => WorkerEndpoint = startOrchestratorWorker,
): OrchestratorWorkerClient {
  const rpc = createRpcClient(orchestratorMethods, spawn, 'orchestrator');
  return {
    manifest: async (baseUrl) =>
      unwrap(await rpc.call('manifest', { baseUrl }), 'orchestrator.manifest') as Result<ManifestListing>,
    load: async (input, options) =>
      unwrap(await rpc.call('load', input, options), 'orchestrator.load') as Result<LoadedModel>,
    generate: async (input, options) => {
      const r = await rpc.call('generate', input, options);
      if (!r.ok) return r;
      if (!r.value.ok) return problemOf(r.value.problem, 'orchestrator.generate');
      return ok(r.value);
    },
    interrupt: () => rpc.call('interrupt', {}),
    clearCache: async () => unwrap(await rpc.call('clearCache', {}), 'orchestrator.clearCache'),
    unload: () => rpc.call('dispose', {}),
    dispose: () => rpc.dispose(),
  };
}
