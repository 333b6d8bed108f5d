/**
 * `orchestrator:` methods in an evaluation: an orchestrator LLM (a provider, or a model in the
 * tab) writes each task's design before it runs, and its own calls count in the method's cost, as
 * MAS-Orchestra counts them. Who writes the design is injected (`OrchestratorFor`): this layer has
 * no network. A task without a valid design gives a failed row that still counts what was spent.
 */
import { minimalTrace, traceIdFrom } from '../core/trace-builders.ts';
import type { Design, Designer, Task, Trace } from '../core/trace.ts';
import { methodLabel } from './methods.ts';
import type { EvalRow, Method } from './schema.ts';

export interface OrchestratorDesign {
  design: Design | null;
  designer: Designer;
  /** Why there is no design. */
  failure?: string;
}

/** Writes one task's design; `seed` is the job's. */
export type DesignTask = (task: Task, seed: number, signal?: AbortSignal) => Promise<OrchestratorDesign>;

/** The designer of an orchestrator method, or null when that model cannot run here. */
export type OrchestratorFor = (method: Method) => DesignTask | null | undefined;

/**
 * A model in this tab or process wrote the design: its prompt and generated tokens become the
 * designer's `usage` (one call, $0: a local model has no price), so the row counts them as it
 * counts a provider's design calls.
 */
export function withLocalUsage(designer: Designer, promptTokens: number, tokens: number): Designer {
  if (designer.kind !== 'orchestrator') return designer;
  return { ...designer, usage: { promptTokens, completionTokens: tokens, costUsd: 0, calls: 1 } };
}

/** Tokens, USD and calls of the orchestrator's own calls recorded in a trace's designer. */
export function orchestratorSpend(trace: Trace): { tokens: number; costUsd: number; calls: number } | null {
  const d = trace.designer;
  if (d.kind !== 'orchestrator' || !d.usage) return null;
  return {
    tokens: d.usage.promptTokens + d.usage.completionTokens,
    costUsd: d.usage.costUsd ?? 0,
    calls: d.usage.calls,
  };
}

/** The row with the orchestrator's own calls added to its tokens, cost and calls. */
export function withOrchestratorCost(trace: Trace, row: EvalRow): EvalRow {
  const spend = orchestratorSpend(trace);
  const d = trace.designer;
  if (!spend || d.kind !== 'orchestrator' || !d.usage) return row;
  return {
    ...row,
    tokens: row.tokens + spend.tokens,
    promptTokens: row.promptTokens + d.usage.promptTokens,
    completionTokens: row.completionTokens + d.usage.completionTokens,
    costUsd: Math.round((row.costUsd + spend.costUsd) * 1e12) / 1e12,
    llmCalls: row.llmCalls + spend.calls,
    orchestrator: spend,
  };
}

interface JobLike {
  key: string;
  method: Method;
  methodId: string;
  seed: number;
  task: { id: string; task: Task };
}

/**
 * The job's trace with the orchestrator's design, and whether it can run: false (status `failed`,
 * tag `invalid-design`, the designer's `failure` says why) when the orchestrator wrote no valid design.
 */
export async function orchestratedTrace(
  job: JobLike,
  createdAt: string,
  orchestratorFor: OrchestratorFor | undefined,
  signal?: AbortSignal,
): Promise<{ trace: Trace; run: boolean }> {
  const write = orchestratorFor?.(job.method);
  if (!write) throw new Error(`no orchestrator was given for ${job.methodId}`);
  const out = await write(job.task.task, job.seed, signal);
  const base = minimalTrace({
    query: job.task.task.query,
    id: traceIdFrom('eval', job.key),
    title: `${methodLabel(job.method)} · ${job.task.id}`.slice(0, 200),
    createdAt,
    designer: out.designer,
  });
  const trace: Trace = { ...base, task: { ...job.task.task }, tags: ['eval'] };
  if (out.design) return { trace: { ...trace, design: out.design }, run: true };
  return {
    trace: {
      ...trace,
      // Why is the designer's `failure`.
      execution: { ...trace.execution, status: 'failed' },
      tags: ['eval', 'invalid-design'],
    },
    run: false,
  };
}
