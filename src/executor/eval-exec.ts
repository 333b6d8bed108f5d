/**
 * The evaluation harness's effects (src/eval `EvalExecutor`, matched by shape): each job's trace
 * runs through `runDesign` on the simulator or a provider, like any other run, under one budget
 * for the whole evaluation. Every call first reserves its worst case (estimated prompt + its
 * completion cap) from that budget and settles to what it used, so jobs running at once can never
 * overspend it together; a call the budget refuses is not sent, and the job it belongs to is
 * reported `stopped` (no row: a resumed evaluation runs it again from the start). A job whose calls
 * failed for a passing reason (HTTP, network, timeout, after the client's own retries) is run again
 * up to `jobRetries` times; the spend of the attempts thrown away is reported as wasted.
 */
import type { Trace } from '../core/trace.ts';
import type { MasBenchTask } from '../masbench/index.ts';
import { Budget, estimatePromptTokens } from './llm/index.ts';
import { runDesign } from './run.ts';
import { simulatedBackend } from './sim/index.ts';
import type { ChatBackend, ChatReply } from './types.ts';

/** What the executor needs of a job (src/eval `Job`). */
export interface EvalJobRef {
  key: string;
  seed: number;
  task: { masbench: MasBenchTask | null };
}

export type EvalOutcome =
  /** `wasted`: spend of attempts run again after a passing failure (not in the trace). */
  | { kind: 'done'; trace: Trace; wasted: { tokens: number; usd: number } }
  | { kind: 'stopped'; reason: string; tokens: number; usd: number };

export interface EvalExecutorOptions {
  /** `simulated`: each job on `simulatedBackend(task, seed)`; otherwise this backend for every job. */
  backend: 'simulated' | ChatBackend;
  /** Limits for the whole evaluation. */
  budget?: { tokens?: number; usd?: number };
  /** Agents running at once within one job (default 4). */
  agentConcurrency?: number;
  /** Extra runs of a job whose calls failed for a passing reason (default 2). */
  jobRetries?: number;
  /** Removed from everything recorded (the API key). */
  secrets?: readonly string[];
  /** ISO start time written into every trace (default: the wall clock). */
  startedAt?: () => string;
  /**
   * The budget to charge instead of a new one from `budget`: pass the one an orchestrator's client
   * charges, so designs and runs spend one hard limit.
   */
  sharedBudget?: Budget;
  /** Real time slept per simulated call, × its modelled latency (default 0). */
  simTimeScale?: number;
}

/** Call failures worth running the job again for; budget refusals and cancels are not. */
const PASSING = /^(http|network|timeout|invalid-response|exception):/;

function transientFailure(trace: Trace): boolean {
  return trace.execution.events.some(
    (e) => e.type === 'llm.call' && e.error !== undefined && PASSING.test(e.error),
  );
}

/**
 * A backend whose every call reserves from `budget` first. `refused` is set when one was not sent.
 */
function budgeted(
  inner: ChatBackend,
  budget: Budget,
): { backend: ChatBackend; refused: () => string | null; spent: { tokens: number; usd: number } } {
  let refused: string | null = null;
  const spent = { tokens: 0, usd: 0 };
  const backend: ChatBackend = {
    info: inner.info,
    tags: inner.tags,
    ...(inner.labelPrefix !== undefined ? { labelPrefix: inner.labelPrefix } : {}),
    modelFor: (c) => inner.modelFor(c),
    costOf: (m, p, c) => inner.costOf(m, p, c),
    chat: async (call): Promise<ChatReply> => {
      const model = inner.modelFor(call.model !== undefined ? { model: call.model } : {});
      const prompt = estimatePromptTokens(
        call.messages.map((m) => ({ role: m.role === 'tool' ? 'user' : m.role, content: m.content })),
      );
      const cap = call.maxTokens ?? budget.defaultCompletionTokens;
      const r = budget.reserve({ tokens: prompt + cap, usd: inner.costOf(model, prompt, cap) }, model);
      if (!r.ok) {
        refused ??= r.error.message;
        return {
          ok: false,
          kind: 'budget',
          message: r.error.message,
          model,
          promptTokens: 0,
          completionTokens: 0,
        };
      }
      const reply = await inner.chat(call);
      const tokens = reply.promptTokens + reply.completionTokens;
      const usd = reply.ok
        ? reply.costUsd
        : (inner.costOf(reply.model, reply.promptTokens, reply.completionTokens) ?? 0);
      if (tokens > 0 || usd > 0) budget.commit(r.reservation, { tokens, usd });
      else budget.release(r.reservation);
      spent.tokens += tokens;
      spent.usd += usd;
      return reply;
    },
  };
  return { backend, refused: () => refused, spent };
}

export interface EvalExecutorHandle {
  run: (trace: Trace, job: EvalJobRef, signal?: AbortSignal) => Promise<EvalOutcome>;
  left: () => { tokens: number; usd: number };
  /** Committed spend of this executor's calls (all jobs, stopped ones included). */
  spent: () => { tokens: number; usd: number };
}

export function evalExecutor(o: EvalExecutorOptions): EvalExecutorHandle {
  const budget =
    o.sharedBudget ??
    new Budget({
      ...(o.budget?.tokens !== undefined ? { maxTokens: o.budget.tokens } : {}),
      ...(o.budget?.usd !== undefined ? { maxUsd: o.budget.usd } : {}),
    });
  const retries = Math.max(0, Math.floor(o.jobRetries ?? 2));
  const backendOf = (job: EvalJobRef): ChatBackend => {
    if (o.backend !== 'simulated') return o.backend;
    if (!job.task.masbench)
      throw new Error(`the simulator runs generated MASBench tasks only; ${job.key} is not one`);
    return simulatedBackend(job.task.masbench, job.seed, {
      ...(o.simTimeScale !== undefined ? { timeScale: o.simTimeScale } : {}),
    });
  };
  const run = async (trace: Trace, job: EvalJobRef, signal?: AbortSignal): Promise<EvalOutcome> => {
    const wasted = { tokens: 0, usd: 0 };
    for (let attempt = 0; ; attempt++) {
      const b = budgeted(backendOf(job), budget);
      const done = await runDesign({
        trace,
        backend: b.backend,
        ...(o.agentConcurrency !== undefined ? { concurrency: o.agentConcurrency } : {}),
        ...(signal ? { signal } : {}),
        ...(o.secrets && o.secrets.length > 0 ? { secrets: o.secrets } : {}),
        startedAt: o.startedAt?.() ?? new Date().toISOString(),
      });
      const refusal = b.refused();
      if (refusal !== null || done.execution.status === 'cancelled')
        return {
          kind: 'stopped',
          reason: refusal !== null ? `budget: ${refusal}` : 'cancelled',
          tokens: wasted.tokens + b.spent.tokens,
          usd: wasted.usd + b.spent.usd,
        };
      if (attempt < retries && transientFailure(done)) {
        wasted.tokens += b.spent.tokens;
        wasted.usd += b.spent.usd;
        continue;
      }
      return { kind: 'done', trace: done, wasted };
    }
  };
  return { run, left: () => budget.remaining(), spent: () => budget.spent };
}
