/**
 * Runs a design for the Run page: builds the backend (a provider through the LLM client, or the
 * simulator), calls `runDesign`, reports every event, and saves the growing trace — throttled, and
 * at once on every agent end or error and at the finish — so a reload mid-run loses at most the
 * last fraction of a second. Also the Settings page's connection test.
 */
import type { MasBenchTask } from '../../masbench/index.ts';
import type { Trace, TraceEvent } from '../../core/trace.ts';
import { remoteBackend, runDesign, simulatedBackend, type RunBudget } from '../../executor/index.ts';
import { createLlmClient, type PriceTable } from '../../executor/llm/index.ts';
import type { ChatBackend } from '../../executor/types.ts';
import { loadPref, savePref } from './keys.ts';

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

export type BackendSpec =
  | {
      kind: 'remote';
      provider: string;
      baseUrl: string;
      model: string;
      apiKey: string;
      prices: PriceTable;
    }
  | { kind: 'simulated'; task: MasBenchTask; seed: number; timeScale?: number };

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

export function buildBackend(spec: BackendSpec, fetchImpl?: typeof fetch): ChatBackend {
  if (spec.kind === 'simulated')
    return simulatedBackend(spec.task, spec.seed, { timeScale: spec.timeScale ?? SIM_TIME_SCALE });
  const client = createLlmClient({
    baseUrl: spec.baseUrl,
    ...(spec.apiKey !== '' ? { apiKey: spec.apiKey } : {}),
    prices: spec.prices,
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
  return remoteBackend(client, spec.model, spec.prices, { provider: spec.provider, baseUrl: spec.baseUrl });
}

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
  const secrets = req.backend.kind === 'remote' && req.backend.apiKey !== '' ? [req.backend.apiKey] : [];
  // The first save makes the run visible (and recoverable) before any call has returned.
  await chainSave(req.trace);
  let final: Trace;
  try {
    final = await runDesign({
      trace: req.trace,
      backend: buildBackend(req.backend, req.fetchImpl),
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
