/**
 * One evaluation, start to end, with the execution injected (as src/train does with its runners):
 * plan the (method, task, seed) jobs, skip those a journal already finished, prepare each job's
 * trace (an archive agent or a fixed design as it is; the policy's construction first), hand it to
 * the `EvalExecutor`, turn the trace into a row, and summarise. At most `concurrency` jobs run at
 * once, methods interleaved. The budget is checked before a job starts (what is left must cover the
 * method's mean cost so far) and by the executor during it (every call reserves first); a job the
 * budget stopped mid-way gives no row, so a resumed evaluation runs it again from the start and
 * nothing finished is run twice. Promises only: no timers, no I/O.
 */
import { checkAnswer } from '../answers/index.ts';
import { minimalTrace, traceIdFrom } from '../core/trace-builders.ts';
import type { Design, Trace } from '../core/trace.ts';
import { construct, type PolicyNetwork, type RolePool } from '../policy/index.ts';
import { archiveDesign, methodId, methodLabel, unavailableReason } from './methods.ts';
import {
  orchestratedTrace,
  orchestratorSpend,
  withOrchestratorCost,
  type OrchestratorFor,
} from './orchestrated.ts';
import { EVAL_FORMAT, type EvalConfig, type EvalDocument, type EvalRow, type Method } from './schema.ts';
import { summarize, type MethodInfo } from './summary.ts';
import type { EvalTask } from './tasks.ts';

export interface Job {
  /** `method|task|seed`, the journal key. */
  key: string;
  method: Method;
  methodId: string;
  task: EvalTask;
  seed: number;
}

export const rowKey = (method: string, taskId: string, seed: number): string => `${method}|${taskId}|${seed}`;

/** Every (method, task, seed) of the available methods, task-major so methods interleave. */
export function planJobs(
  methods: readonly Method[],
  tasks: readonly EvalTask[],
  seeds: readonly number[],
): Job[] {
  const jobs: Job[] = [];
  for (const seed of seeds)
    for (const task of tasks)
      for (const method of methods) {
        const id = methodId(method);
        jobs.push({ key: rowKey(id, task.id, seed), method, methodId: id, task, seed });
      }
  return jobs;
}

export type Outcome =
  /** `wasted`: spend of attempts the executor ran again (not in the trace). */
  | { kind: 'done'; trace: Trace; wasted?: { tokens: number; usd: number } }
  /** Stopped by the budget or a cancel mid-run: no row; `tokens`/`usd` were spent on it anyway. */
  | { kind: 'stopped'; reason: string; tokens: number; usd: number };

/** The effects, from src/executor (`evalExecutor`): runs one prepared trace and keeps the budget. */
export interface EvalExecutor {
  run: (trace: Trace, job: Job, signal?: AbortSignal) => Promise<Outcome>;
  /** Left under the evaluation's limits (Infinity where there is none), reservations included. */
  left: () => { tokens: number; usd: number };
}

/** The network and role pool a policy method constructs with (built by the caller on its compute core). */
export type PolicyFor = (method: Extract<Method, { kind: 'policy' }>) => {
  net: PolicyNetwork;
  pool: RolePool;
};

export interface EvalProgress {
  total: number;
  done: number;
  running: number;
  perMethod: Record<string, { done: number; total: number }>;
  /** Tokens and USD of the rows so far (resumed ones included) plus this run's stopped jobs. */
  tokens: number;
  usd: number;
}

export interface EvaluateOptions {
  config: EvalConfig;
  tasks: readonly EvalTask[];
  executor: EvalExecutor;
  policyFor?: PolicyFor;
  /** Rows a journal already holds: their jobs are not run again. */
  done?: readonly EvalRow[];
  /** Jobs at once (default 4). */
  concurrency?: number;
  /** ISO time for the traces and the document. */
  createdAt: string;
  /** Called for every finished job, with its trace (the journal writes both). */
  onRow?: (row: EvalRow, trace: Trace) => void | Promise<void>;
  onProgress?: (p: EvalProgress) => void;
  signal?: AbortSignal;
  /** Whether an in-tab orchestrator exists (none does yet). */
  orchestratorAvailable?: boolean;
  /** Who writes the design of an `orchestrator:` method (null: that model cannot run here). */
  orchestratorFor?: OrchestratorFor;
}

/** Whether each orchestrator method can run: the flag, or a designer the caller gives for it. */
const availability = (o: Pick<EvaluateOptions, 'orchestratorAvailable' | 'orchestratorFor'>) =>
  o.orchestratorFor ? (m: Method) => o.orchestratorFor?.(m) != null : (o.orchestratorAvailable ?? false);

function designOf(method: Method): Design | null {
  if (method.kind === 'agent') return archiveDesign(method.agent);
  if (method.kind === 'design') return method.design;
  return null;
}

/** The trace a job runs: the task, the method's design (the policy constructs it), a stable id. */
export async function prepareTrace(job: Job, createdAt: string, policyFor?: PolicyFor): Promise<Trace> {
  const id = traceIdFrom('eval', job.key);
  const title = `${methodLabel(job.method)} · ${job.task.id}`.slice(0, 200);
  const design = designOf(job.method);
  if (design) {
    const base = minimalTrace({ query: job.task.task.query, id, title, createdAt });
    return { ...base, task: { ...job.task.task }, design, tags: ['eval'] };
  }
  if (job.method.kind !== 'policy') throw new Error(`method ${job.methodId} cannot be prepared`);
  if (!policyFor) throw new Error(`no policy network was given for ${job.methodId}`);
  const { net, pool } = policyFor(job.method);
  const c = await construct({
    policy: net,
    pool,
    task: job.task.task,
    seed: job.seed,
    greedy: job.method.greedy,
    createdAt,
  });
  return { ...c.trace, id, title, design: c.design, tags: [...c.trace.tags, 'eval'] };
}

/** The row of a finished job; a JSONL task with its own checker is graded with it. */
export function rowOf(job: Job, trace: Trace): EvalRow {
  let correct = trace.result.correct;
  const answer = trace.result.finalAnswer;
  const truths =
    job.task.task.groundTruths ?? (job.task.task.groundTruth !== null ? [job.task.task.groundTruth] : []);
  if (job.task.checker !== 'auto' && answer !== null && truths.length > 0)
    correct = checkAnswer(
      answer,
      truths.length === 1 ? (truths[0] as string) : truths,
      job.task.checker,
    ).correct;
  const status =
    trace.execution.status === 'completed'
      ? 'completed'
      : trace.execution.status === 'cancelled'
        ? 'cancelled'
        : 'failed';
  const t = trace.totals;
  return withOrchestratorCost(trace, {
    key: job.key,
    method: job.methodId,
    taskId: job.task.id,
    seed: job.seed,
    axis: job.task.axis,
    value: job.task.value,
    traceId: trace.id,
    correct,
    status,
    tokens: t.promptTokens + t.completionTokens,
    promptTokens: t.promptTokens,
    completionTokens: t.completionTokens,
    costUsd: t.costUsd,
    wallMs: t.wallMs,
    agents: trace.design.agents.length,
    llmCalls: t.llmCalls,
  });
}

export function methodInfos(
  methods: readonly Method[],
  orchestratorAvailable: boolean | ((m: Method) => boolean) = false,
): MethodInfo[] {
  return methods.map((m) => {
    const available =
      typeof orchestratorAvailable === 'function' ? orchestratorAvailable(m) : orchestratorAvailable;
    const why = unavailableReason(m, available);
    return { id: methodId(m), label: methodLabel(m), ...(why !== null ? { unavailable: why } : {}) };
  });
}

/** The results document from the rows so far. */
export function documentOf(
  o: Pick<EvaluateOptions, 'config' | 'createdAt' | 'orchestratorAvailable' | 'orchestratorFor'>,
  planned: number,
  rows: readonly EvalRow[],
  wasted: { tokens: number; usd: number },
  stopped?: string,
): EvalDocument {
  let tokens = 0;
  let usd = 0;
  for (const r of rows) {
    tokens += r.tokens;
    usd += r.costUsd;
  }
  return {
    format: EVAL_FORMAT,
    createdAt: o.createdAt,
    config: o.config,
    complete: rows.length === planned && stopped === undefined,
    planned,
    spend: {
      tokens: tokens + wasted.tokens,
      usd: usd + wasted.usd,
      wastedTokens: wasted.tokens,
      wastedUsd: wasted.usd,
    },
    ...(stopped !== undefined ? { stopped } : {}),
    summary: summarize(methodInfos(o.config.methods, availability(o)), rows),
    rows: [...rows],
  };
}

export async function runEvaluation(o: EvaluateOptions): Promise<EvalDocument> {
  const infos = methodInfos(o.config.methods, availability(o));
  const runnable = o.config.methods.filter((_, i) => infos[i]?.unavailable === undefined);
  const jobs = planJobs(runnable, o.tasks, o.config.seeds);
  const planned = new Set(jobs.map((j) => j.key));
  const rows = new Map<string, EvalRow>();
  for (const r of o.done ?? []) if (planned.has(r.key) && !rows.has(r.key)) rows.set(r.key, r);
  const queue = jobs.filter((j) => !rows.has(j.key));
  const perMethod: Record<string, { done: number; total: number }> = {};
  for (const j of jobs) {
    const pm = (perMethod[j.methodId] ??= { done: 0, total: 0 });
    pm.total += 1;
    if (rows.has(j.key)) pm.done += 1;
  }
  const wasted = { tokens: 0, usd: 0 };
  let running = 0;
  let stopped: string | undefined;
  const concurrency = Math.max(1, Math.floor(o.concurrency ?? 4));
  // Policy constructions share one network: run them one at a time.
  let policyLock: Promise<unknown> = Promise.resolve();

  const progress = (): void => {
    if (!o.onProgress) return;
    let tokens = wasted.tokens;
    let usd = wasted.usd;
    for (const r of rows.values()) {
      tokens += r.tokens;
      usd += r.costUsd;
    }
    o.onProgress({ total: jobs.length, done: rows.size, running, perMethod, tokens, usd });
  };

  /** Mean tokens and USD of a method's finished rows: what its next job is expected to need. */
  const expected = (method: string): { tokens: number; usd: number } => {
    let n = 0;
    let tokens = 0;
    let usd = 0;
    for (const r of rows.values())
      if (r.method === method) {
        n += 1;
        tokens += r.tokens;
        usd += r.costUsd;
      }
    return n === 0 ? { tokens: 1, usd: 0 } : { tokens: tokens / n, usd: usd / n };
  };

  const runOne = async (job: Job): Promise<void> => {
    let trace: Trace;
    if (job.method.kind === 'policy') {
      const prev = policyLock;
      let release = (): void => undefined;
      policyLock = new Promise<void>((r) => (release = r));
      await prev;
      try {
        trace = await prepareTrace(job, o.createdAt, o.policyFor);
      } finally {
        release();
      }
    } else if (job.method.kind === 'orchestrator') {
      const designed = await orchestratedTrace(job, o.createdAt, o.orchestratorFor, o.signal);
      if (!designed.run) {
        // No valid design: a failed row that still counts what the orchestrator spent.
        const row = rowOf(job, designed.trace);
        rows.set(job.key, row);
        const pm = perMethod[job.methodId];
        if (pm) pm.done += 1;
        await o.onRow?.(row, designed.trace);
        return;
      }
      trace = designed.trace;
    } else trace = await prepareTrace(job, o.createdAt, o.policyFor);
    const out = await o.executor.run(trace, job, o.signal);
    if (out.kind === 'stopped') {
      // The orchestrator's calls were spent on it too.
      const o = orchestratorSpend(trace);
      wasted.tokens += out.tokens + (o?.tokens ?? 0);
      wasted.usd += out.usd + (o?.costUsd ?? 0);
      stopped ??= out.reason;
      return;
    }
    wasted.tokens += out.wasted?.tokens ?? 0;
    wasted.usd += out.wasted?.usd ?? 0;
    const row = rowOf(job, out.trace);
    rows.set(job.key, row);
    const pm = perMethod[job.methodId];
    if (pm) pm.done += 1;
    await o.onRow?.(row, out.trace);
  };

  await new Promise<void>((resolve, reject) => {
    let failed = false;
    const pump = (): void => {
      while (!failed && stopped === undefined && running < concurrency && queue.length > 0) {
        if (o.signal?.aborted) {
          stopped = 'cancelled';
          break;
        }
        const job = queue[0] as Job;
        const left = o.executor.left();
        const need = expected(job.methodId);
        if (left.tokens < need.tokens || left.usd < need.usd) {
          stopped = `budget: ${Math.max(0, Math.floor(left.tokens))} tokens left, a ${job.methodId} task needs about ${Math.ceil(need.tokens)}`;
          break;
        }
        queue.shift();
        running += 1;
        progress();
        runOne(job).then(
          () => {
            running -= 1;
            progress();
            pump();
          },
          (e: unknown) => {
            failed = true;
            running -= 1;
            reject(e instanceof Error ? e : new Error(String(e)));
          },
        );
      }
      if (running === 0 && !failed && (queue.length === 0 || stopped !== undefined)) resolve();
    };
    pump();
  });
  const ordered = jobs.flatMap((j) => {
    const r = rows.get(j.key);
    return r ? [r] : [];
  });
  return documentOf(o, jobs.length, ordered, wasted, stopped);
}
