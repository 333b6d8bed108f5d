/**
 * The execution backend from a plain spec, in one place for the store and the CLI: a provider (an
 * OpenAI-compatible endpoint, model, key and prices) or the simulator (a MASBench task, a seed, a
 * pace). Specs are data, so they can be kept in settings and passed around; building the backend is
 * the only step that creates a client.
 *
 * The API key lives in the spec and in the client it configures, and nowhere else: `secretsOf`
 * names it so callers hand it to the executor as a secret, which removes it from every event,
 * answer and problem before anything is recorded or printed.
 */
import type { ConstructionStep } from '../core/trace.ts';
import type { MasBenchTask } from '../masbench/index.ts';
import {
  createIntermediateExecutor,
  type IntermediateExecutor,
  type IntermediateResult,
} from './intermediate.ts';
import { createLlmClient, type PriceTable } from './llm/index.ts';
import { remoteBackend } from './remote.ts';
import type { RunBudget } from './run.ts';
import { simulatedBackend } from './sim/index.ts';
import type { ChatBackend } from './types.ts';

export interface RemoteSpec {
  kind: 'remote';
  /** Provider id recorded in the trace (a preset id, `openai-compatible`, …). */
  provider: string;
  baseUrl: string;
  model: string;
  /** '' for none (local servers): the calls then go out without a key. */
  apiKey: string;
  /** USD per million tokens by model (default: the built-in price table). */
  prices?: PriceTable;
}

export interface SimulatedSpec {
  kind: 'simulated';
  task: MasBenchTask;
  seed: number;
  /** Real time slept per call = timeScale × modelled latency (default 0: answers at once). */
  timeScale?: number;
}

export type BackendSpec = RemoteSpec | SimulatedSpec;

export function backendFromSpec(spec: BackendSpec, fetchImpl?: typeof fetch): ChatBackend {
  if (spec.kind === 'simulated')
    return simulatedBackend(spec.task, spec.seed, {
      ...(spec.timeScale !== undefined ? { timeScale: spec.timeScale } : {}),
    });
  const client = createLlmClient({
    baseUrl: spec.baseUrl,
    ...(spec.apiKey !== '' ? { apiKey: spec.apiKey } : {}),
    ...(spec.prices ? { prices: spec.prices } : {}),
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
  return remoteBackend(client, spec.model, spec.prices, { provider: spec.provider, baseUrl: spec.baseUrl });
}

/** Strings to remove from everything recorded or printed for runs on this spec: the key, if any. */
export function secretsOf(spec: BackendSpec): string[] {
  return spec.kind === 'remote' && spec.apiKey !== '' ? [spec.apiKey] : [];
}

/** Where the partial designs of a construction run: the simulator (generated tasks) or a provider. */
export type IntermediateSpec =
  | { kind: 'simulated'; task: MasBenchTask; seed: number }
  | {
      kind: 'remote';
      backend: RemoteSpec;
      /** Limits for all the construction's intermediate runs together. */
      budget: RunBudget;
      concurrency: number;
    };

/**
 * An executor for one construction's partial designs. On a provider its calls are cached, so a step
 * pays only for the calls that changed (intermediate.ts); the simulator is free and re-simulated.
 */
export function intermediateExecutorFromSpec(
  spec: IntermediateSpec,
  signal?: AbortSignal,
): IntermediateExecutor {
  if (spec.kind === 'simulated')
    return createIntermediateExecutor({ backend: backendFromSpec(spec), cache: false });
  return createIntermediateExecutor({
    backend: backendFromSpec(spec.backend),
    budget: spec.budget,
    concurrency: spec.concurrency,
    cache: true,
    ...(signal ? { signal } : {}),
    ...(spec.backend.apiKey !== '' ? { secrets: secretsOf(spec.backend) } : {}),
  });
}

/**
 * A construction step's intermediate result from an executor's: the answer and correctness, and
 * the run record the trace keeps (status, this run's fresh spend, the problem if any).
 */
export function stepResultOf(
  r: IntermediateResult,
  backend: IntermediateSpec['kind'],
): {
  answer: string | null;
  correct: boolean | null;
  run: NonNullable<ConstructionStep['intermediateRun']>;
} {
  const { runs: _runs, ...usage } = r.usage;
  return {
    answer: r.answer,
    correct: r.correct,
    run: {
      backend,
      status: r.status,
      ...usage,
      ...(r.problem !== undefined ? { problem: r.problem } : {}),
    },
  };
}
