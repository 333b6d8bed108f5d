/**
 * Runs designs for the store: the Run page's run (the backend built from its spec by
 * src/executor/backend-spec.ts, every event reported, the growing trace saved — throttled, and at
 * once on every agent end or error and at the finish — so a reload mid-run loses at most the last
 * fraction of a second), the Build page's partial designs (`intermediateExecutorFor`) and its run of
 * a finished construction on the simulator (`runOnSimulator`). Also the Settings page's connection
 * test.
 */
import type { MasBenchTask } from '../../masbench/index.ts';
import { fail, ok, type Result } from '../../core/result.ts';
import type { Trace, TraceEvent } from '../../core/trace.ts';
import {
  backendFromSpec,
  intermediateExecutorFromSpec,
  secretsOf,
  stepResultOf,
  type BackendSpec,
  type IntermediateSpec,
} from '../../executor/backend-spec.ts';
import type { IntermediateExecutor } from '../../executor/intermediate.ts';
import { runDesign, type RunBudget } from '../../executor/run.ts';
import { createLlmClient } from '../../executor/llm/index.ts';
import type { IntermediateRunner } from '../../policy/index.ts';
import { loadPref, savePref } from './keys.ts';
import { policyProblem } from './policy-checkpoints.ts';
import { errorText } from './problems.ts';

export type { BackendSpec, IntermediateSpec };

// ---------------------------------------------------------------- connection test

export type ConnectionResult = { ok: true; models: string[] } | { ok: false; message: string };

/** GET /models once (no retries: the user is waiting), with the key if there is one. */
export async function testConnection(options: {
  baseUrl: string;
  apiKey: string;
  fetchImpl?: typeof fetch;
  timeoutMs?: number;
}): Promise<ConnectionResult> {
  const client = createLlmClient({
    baseUrl: options.baseUrl,
    ...(options.apiKey !== '' ? { apiKey: options.apiKey } : {}),
    retry: { maxAttempts: 1 },
    timeoutMs: options.timeoutMs ?? 15_000,
    ...(options.fetchImpl ? { fetch: options.fetchImpl } : {}),
  });
  const listed = await client.listModels();
  return listed.ok ? { ok: true, models: listed.value } : { ok: false, message: listed.error.message };
}

// ---------------------------------------------------------------- throttling

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (h) => globalThis.clearTimeout(h as ReturnType<typeof setTimeout>),
};

export interface Throttle {
  /** Asks for a run of `job`: at once if the last was ≥ interval ago, else at the end of the interval. */
  request(): void;
  /** Runs `job` now (cancelling a scheduled run). */
  flush(): void;
  /** Cancels a scheduled run. */
  cancel(): void;
}

/** At most one `job` per `intervalMs`, never dropping the last request (trailing edge). */
export function createThrottle(job: () => void, intervalMs: number, clock: Clock = realClock): Throttle {
  let last = -Infinity;
  let timer: unknown = null;
  const run = (): void => {
    if (timer !== null) clock.clearTimeout(timer);
    timer = null;
    last = clock.now();
    job();
  };
  return {
    request() {
      if (timer !== null) return;
      const wait = last + intervalMs - clock.now();
      if (wait <= 0) run();
      else timer = clock.setTimeout(run, wait);
    },
    flush: run,
    cancel() {
      if (timer !== null) clock.clearTimeout(timer);
      timer = null;
    },
  };
}

// ---------------------------------------------------------------- runs

export interface RunRequest {
  /** Task, design and metadata; its execution is filled in by the run. */
  trace: Trace;
  backend: BackendSpec;
  budget: RunBudget;
  concurrency: number;
  signal: AbortSignal;
  /** Every event, with the trace so far (status `running`). */
  onEvent?: (event: TraceEvent, snapshot: Trace) => void;
  /** Text so far of a call in flight (remote providers stream it), secrets removed. */
  onDelta?: (agentId: string, label: string, textSoFar: string) => void;
  /** Stores a trace (the growing one, then the final one); saves are chained in call order. */
  save: (trace: Trace) => Promise<void>;
  /** Least time between two saves of the growing trace, ms (default 250). */
  saveIntervalMs?: number;
  clock?: Clock;
  fetchImpl?: typeof fetch;
}

/** Real time per simulated call = this × the simulator's modelled latency: slow enough to watch. */
export const SIM_TIME_SCALE = 0.25;

/**
 * Runs the design and returns the final trace (status completed, failed or cancelled). Never
 * rejects for a failed agent or call: those are events. The API key is passed to the executor as
 * a secret, so any echo of it in an event is replaced before the event is recorded.
 */
export async function executeRun(req: RunRequest): Promise<Trace> {
  const clock = req.clock ?? realClock;
  let latest: Trace | null = null;
  let saving: Promise<void> = Promise.resolve();
  const chainSave = (trace: Trace): Promise<void> => {
    saving = saving.then(() => req.save(trace)).catch(() => undefined);
    return saving;
  };
  const saver = createThrottle(
    () => {
      if (latest) void chainSave(latest);
    },
    req.saveIntervalMs ?? 250,
    clock,
  );
  const secrets = secretsOf(req.backend);
  // A run on the simulator is paced so it can be watched, unless its spec says otherwise.
  const spec: BackendSpec =
    req.backend.kind === 'simulated'
      ? { ...req.backend, timeScale: req.backend.timeScale ?? SIM_TIME_SCALE }
      : req.backend;
  // The first save makes the run visible (and recoverable) before any call has returned.
  await chainSave(req.trace);
  let final: Trace;
  try {
    final = await runDesign({
      trace: req.trace,
      backend: backendFromSpec(spec, req.fetchImpl),
      concurrency: req.concurrency,
      budget: req.budget,
      signal: req.signal,
      startedAt: req.trace.createdAt,
      secrets,
      ...(req.onDelta ? { onDelta: req.onDelta } : {}),
      onEvent: (event, snapshot) => {
        if (event.type === 'run.end') return;
        latest = snapshot();
        req.onEvent?.(event, latest);
        if (event.type === 'agent.end' || event.type === 'agent.error') saver.flush();
        else saver.request();
      },
    });
  } finally {
    saver.cancel();
  }
  await chainSave(final);
  return final;
}

// ---------------------------------------------------------------- construction runs

/**
 * The executor of one construction's partial designs and its runner for the episode: each result
 * carries its run record (status, fresh spend, problem). The API key is a secret removed from
 * everything recorded.
 */
export interface ConstructionExecution {
  executor: IntermediateExecutor;
  /** Runs a partial design for the episode; the result carries the step's run record. */
  runner: IntermediateRunner;
}

export function intermediateExecutorFor(spec: IntermediateSpec, signal?: AbortSignal): ConstructionExecution {
  const executor = intermediateExecutorFromSpec(spec, signal);
  return {
    executor,
    runner: async (design, task) => stepResultOf(await executor.run(design, task), spec.kind),
  };
}

/** Executes a finished construction trace on the simulator (labelled `simulated` by the backend). */
export async function runOnSimulator(
  trace: Trace,
  masbench: MasBenchTask,
  seed: number,
): Promise<Result<Trace>> {
  try {
    return ok(
      await runDesign({
        trace,
        backend: backendFromSpec({ kind: 'simulated', task: masbench, seed }),
        startedAt: new Date().toISOString(),
      }),
    );
  } catch (e) {
    return fail(policyProblem('E_SIMULATOR', errorText(e)));
  }
}

// ---------------------------------------------------------------- the active-run marker

const ACTIVE_RUN_PREF = 'baton.run.active';

/**
 * The id of the trace this tab is running, kept in sessionStorage: it survives a reload of the tab
 * (so the restarted page can tell that run was interrupted) but is never seen by other tabs, whose
 * own live runs must not be mistaken for interrupted ones.
 */
export function markActiveRun(traceId: string | null): void {
  savePref(ACTIVE_RUN_PREF, traceId ?? undefined, 'tab');
}

export function activeRunMarker(): string | null {
  const v = loadPref(ACTIVE_RUN_PREF, 'tab');
  return typeof v === 'string' && v.length > 0 && v.length <= 200 ? v : null;
}
