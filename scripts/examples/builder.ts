import { checkAnswer } from '../../src/answers/index.ts';
import { computeTotals } from '../../src/core/totals.ts';
import {
  TRACE_FORMAT,
  TraceSchema,
  type Agent,
  type ChatMessage,
  type ConstructionStep,
  type Design,
  type Designer,
  type ExecutionBackend,
  type Task,
  type Trace,
  type TraceEvent,
} from '../../src/core/trace.ts';

/** Price used for the bundled examples: USD per million tokens (input, output). */
export const EXAMPLE_MODEL = 'gpt-4o-mini';
const PRICE_IN = 0.15;
const PRICE_OUT = 0.6;

export interface CallSpec {
  label: string;
  system?: string;
  user: string;
  output: string;
  promptTokens: number;
  completionTokens: number;
  latencyMs: number;
  /** Start at the same time as the previous call (e.g. self-consistency samples). */
  parallel?: boolean;
  error?: string;
}

export type StepSpec = CallSpec | { note: string; kind: string };

export interface AgentRun {
  id: string;
  /** Agents that must end before this one starts. */
  after?: string[];
  input: string;
  steps: StepSpec[];
  output?: string;
  /** When set, the agent fails with this error and dependents get a placeholder. */
  error?: string;
}

const cost = (p: number, c: number): number => Math.round(((p * PRICE_IN + c * PRICE_OUT) / 1e6) * 1e9) / 1e9;

/**
 * Lays out agent runs on a timeline the way the executor schedules them: an agent starts when
 * every agent in `after` has ended; calls run back to back unless marked parallel.
 */
export function scheduleEvents(runs: AgentRun[], model = EXAMPLE_MODEL): TraceEvent[] {
  const ends = new Map<string, number>();
  const events: TraceEvent[] = [];
  const pending = [...runs];
  let guard = 0;
  while (pending.length > 0 && guard++ < 10_000) {
    const idx = pending.findIndex((r) => (r.after ?? []).every((a) => ends.has(a)));
    if (idx < 0) throw new Error('example runs have a cycle or a missing dependency');
    const run = pending.splice(idx, 1)[0] as AgentRun;
    const start = Math.max(0, ...(run.after ?? []).map((a) => ends.get(a) ?? 0)) + 4;
    events.push({ type: 'agent.start', t: start, agentId: run.id, input: run.input });
    let cursor = start + 2;
    let groupStart = cursor;
    let groupEnd = cursor;
    let n = 0;
    for (const step of run.steps) {
      if ('note' in step) {
        cursor = groupEnd + 1;
        events.push({ type: 'agent.note', t: cursor, agentId: run.id, kind: step.kind, text: step.note });
        groupStart = groupEnd = cursor;
        continue;
      }
      const t = step.parallel ? groupStart : groupEnd + 1;
      if (!step.parallel) groupStart = t;
      const messages: ChatMessage[] = [
        ...(step.system ? [{ role: 'system' as const, content: step.system }] : []),
        { role: 'user', content: step.user },
      ];
      events.push({
        type: 'llm.call',
        t,
        agentId: run.id,
        callId: `${run.id}#${++n}`,
        label: step.label,
        model,
        messages,
        output: step.output,
        promptTokens: step.promptTokens,
        completionTokens: step.completionTokens,
        latencyMs: step.latencyMs,
        costUsd: cost(step.promptTokens, step.completionTokens),
        ...(step.error ? { error: step.error } : {}),
      });
      groupEnd = Math.max(groupEnd, t + step.latencyMs);
    }
    const end = groupEnd + 3;
    if (run.error) {
      events.push({
        type: 'agent.error',
        t: end,
        agentId: run.id,
        error: run.error,
        placeholder: `[${run.id} failed: ${run.error}]`,
      });
    } else {
      events.push({ type: 'agent.end', t: end, agentId: run.id, output: run.output ?? '' });
    }
    ends.set(run.id, end);
  }
  const last = Math.max(...events.map((e) => e.t + (e.type === 'llm.call' ? e.latencyMs : 0)));
  events.sort((a, b) => a.t - b.t);
  // A failed agent does not fail the run: dependents got its placeholder and the run went on.
  events.push({ type: 'run.end', t: last + 1, status: 'completed' });
  return events;
}

export interface ExampleSpec {
  id: string;
  title: string;
  createdAt: string;
  task: Task;
  designer: Designer;
  design: Design;
  runs: AgentRun[];
  backend?: ExecutionBackend;
  construction?: ConstructionStep[];
  finalAnswer: string | null;
  answerAgent?: string;
  /**
   * Test fixtures only, when a fixture needs a particular value. Left out, the final answer is
   * graded (`gradeExampleAnswer`); the gallery examples always leave it out.
   */
  correct?: boolean | null;
  tags: string[];
}

/**
 * The grade of an answer against the task's ground truth, by the rule the executor grades runs
 * with: every one of several ground truths in order (`multi`), else the one (`auto`); null without
 * a ground truth. Examples never state their correctness: it is always computed here.
 */
export function gradeExampleAnswer(answer: string, task: Task): boolean | null {
  const truths = task.groundTruths ?? [];
  if (truths.length > 1) return checkAnswer(answer, truths, 'multi').correct;
  const truth = truths[0] ?? task.groundTruth;
  if (truth === null || truth === undefined || truth.trim() === '') return null;
  return checkAnswer(answer, truth).correct;
}

export function agent(
  id: string,
  type: Agent['type'],
  description: string,
  input = '',
  params: Agent['params'] = {},
  role?: string,
): Agent {
  return { id, type, description, input, params, ...(role ? { role } : {}) };
}

/** Builds and validates one example trace. Throws if the result is not a valid trace. */
export function buildExample(spec: ExampleSpec): Trace {
  const events = scheduleEvents(spec.runs);
  const trace: Trace = {
    format: TRACE_FORMAT,
    id: spec.id,
    title: spec.title,
    createdAt: spec.createdAt,
    task: spec.task,
    designer: spec.designer,
    construction: spec.construction ?? [],
    design: spec.design,
    execution: {
      backend: spec.backend ?? {
        kind: 'remote',
        provider: 'OpenAI',
        baseUrl: 'https://api.openai.com/v1',
        model: EXAMPLE_MODEL,
      },
      status: 'completed',
      startedAt: spec.createdAt,
      events,
    },
    result: {
      finalAnswer: spec.finalAnswer,
      correct:
        spec.correct !== undefined
          ? spec.correct
          : spec.finalAnswer === null
            ? null
            : gradeExampleAnswer(spec.finalAnswer, spec.task),
      ...(spec.answerAgent ? { answerAgent: spec.answerAgent } : {}),
    },
    totals: computeTotals(spec.design, events),
    tags: spec.tags,
  };
  return TraceSchema.parse(trace);
}
