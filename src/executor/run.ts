/**
 * Runs a validated design (MAS-Orchestra semantics, see `input.ts`) with ready agents in parallel
 * under a concurrency limit. Every event is appended to the log and reported through `onEvent` as
 * it happens. A failed agent (a call that failed after the client's retries, a budget refusal, an
 * exception) ends with `agent.error` and a placeholder its dependents receive; the run goes on.
 * Cancelling aborts running calls; agents that were running end with `agent.error`, the rest never
 * start, and the run ends `cancelled`.
 */
import { checkAnswer } from '../answers/index.ts';
import { adjacency, topoOrder } from '../core/graph.ts';
import { computeTotals } from '../core/totals.ts';
import type { Agent, ChatMessage, Design, Task, Trace, TraceEvent } from '../core/trace.ts';
import { sinkOf } from '../design/validate.ts';
import { AGENT_RUNNERS } from './agents/index.ts';
import { withRole } from './agents/prompts.ts';
import { EventLog, mergeTags, runningTrace } from './events.ts';
import { agentInput, placeholderFor } from './input.ts';
import { Budget, estimatePromptTokens, heldNote, redactSecrets } from './llm/index.ts';
import { AgentCallError, type AgentContext, type ChatBackend, type ChatReply } from './types.ts';

export interface RunBudget {
  /** Prompt + completion tokens one agent may use over all its calls. */
  perAgentTokens?: number;
  /** Prompt + completion tokens for the whole run. */
  totalTokens?: number;
  /** USD for the whole run; calls to a model without a known price are refused under it. */
  totalUsd?: number;
  /** Completion tokens reserved for a call that sets no max tokens (default 1024). */
  defaultCompletionTokens?: number;
}

export interface RunOptions {
  /** The trace to fill in (task, designer, construction, title…); its execution is replaced. */
  trace: Trace;
  /** Default: `trace.design`. Must be valid (see `src/design/validate.ts`). */
  design?: Design;
  /** Default: `trace.task`. Its query is the original question; ground truth grades the answer. */
  task?: Task;
  backend: ChatBackend;
  /** Agents running at once, ≥ 1 (default 4). */
  concurrency?: number;
  budget?: RunBudget;
  signal?: AbortSignal;
  /** Clock in ms (any origin); events' `t` = now() − now() at the start. Default performance.now. */
  now?: () => number;
  /** ISO time of the start, recorded as `execution.startedAt`. Default: the wall clock. */
  startedAt?: string;
  /** Strings removed from every event before it is recorded (e.g. the API key). */
  secrets?: readonly string[];
  /**
   * Called for every event as it happens, after it is appended. `snapshot()` builds the whole
   * trace so far (a copy; status `running`), for a store that persists the growing trace.
   */
  onEvent?: (event: TraceEvent, snapshot: () => Trace) => void;
  /**
   * Live output of a call in flight: the text so far (secrets removed), for a UI that streams it.
   * Not recorded; the call's `llm.call` event holds the final output.
   */
  onDelta?: (agentId: string, label: string, textSoFar: string) => void;
}

const DEFAULT_CONCURRENCY = 4;

/** `kind: message`, the reason recorded on `agent.error`. */
function reasonOf(e: unknown): string {
  if (e instanceof AgentCallError) return `${e.kind}: ${e.message}`;
  if (e instanceof Error) return `exception: ${e.message}`;
  return `exception: ${String(e)}`;
}

/** A run's grading of a final answer: several ground truths are graded as a multi-answer. */
export function gradeAnswer(answer: string, task: Task): boolean | null {
  const truths = task.groundTruths ?? [];
  if (truths.length > 1) return checkAnswer(answer, truths, 'multi').correct;
  const truth = truths[0] ?? task.groundTruth;
  if (truth === null || truth === undefined || truth.trim() === '') return null;
  return checkAnswer(answer, truth).correct;
}

export async function runDesign(options: RunOptions): Promise<Trace> {
  const design = options.design ?? options.trace.design;
  const task = options.task ?? options.trace.task;
  const { backend } = options;
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? DEFAULT_CONCURRENCY));
  const now = options.now ?? (() => performance.now());
  const secrets = (options.secrets ?? []).filter((s) => s.length > 0);
  const startedAt = options.startedAt ?? new Date().toISOString();
  const base: Trace = { ...options.trace, design, task };
  const parts = { backend: backend.info, startedAt, tags: backend.tags };
  const log = new EventLog();
  const origin = now();
  const clock = (): number => Math.max(0, now() - origin);
  const runBudget = new Budget({
    ...(options.budget?.totalTokens !== undefined ? { maxTokens: options.budget.totalTokens } : {}),
    ...(options.budget?.totalUsd !== undefined ? { maxUsd: options.budget.totalUsd } : {}),
    ...(options.budget?.defaultCompletionTokens !== undefined
      ? { defaultCompletionTokens: options.budget.defaultCompletionTokens }
      : {}),
  });
  const perAgentTokens = options.budget?.perAgentTokens;
  const { onDelta } = options;
  /** Accumulates one call's streamed pieces and reports the text so far, secrets removed. */
  const streamTo = (agentId: string, label: string): ((delta: string) => void) => {
    let text = '';
    return (delta) => {
      text += delta;
      const shown = secrets.length > 0 ? redactSecrets(text, secrets) : text;
      try {
        onDelta?.(agentId, label, shown);
      } catch {
        // A display callback must not break the run.
      }
    };
  };

  const emit = (event: TraceEvent): void => {
    const clean = secrets.length > 0 ? redactSecrets(event, secrets) : event;
    log.append(clean);
    try {
      options.onEvent?.(clean, () => runningTrace(base, parts, log.events));
    } catch {
      // A listener that throws (e.g. storage full) must not stop the run or lose the event: the
      // log keeps it and the returned trace has it.
    }
  };

  const runAbort = new AbortController();
  const onOuterAbort = (): void => runAbort.abort();
  if (options.signal?.aborted) runAbort.abort();
  else options.signal?.addEventListener('abort', onOuterAbort, { once: true });

  const ids = design.agents.map((a) => a.id);
  const byId = new Map(design.agents.map((a) => [a.id, a] as const));
  const order = topoOrder(ids, design.edges);
  if (order === null) throw new Error('runDesign needs a valid design: the agents form a cycle.');
  const rank = new Map(order.map((id, i) => [id, i] as const));
  const { out, in: inn } = adjacency(ids, design.edges);
  const waiting = new Map(ids.map((id) => [id, inn.get(id)?.length ?? 0] as const));
  const outputs = new Map<string, string>();
  const failed = new Set<string>();

  /** One agent, start to end; resolves when its event is recorded. Never rejects. */
  const runAgent = async (agent: Agent): Promise<void> => {
    const input = agentInput(agent, task.query, outputs);
    emit({ type: 'agent.start', t: clock(), agentId: agent.id, input });
    const agentAbort = new AbortController();
    const onRunAbort = (): void => agentAbort.abort();
    runAbort.signal.addEventListener('abort', onRunAbort, { once: true });
    if (runAbort.signal.aborted) agentAbort.abort();
    const inFlight = new Set<Promise<unknown>>();
    let calls = 0;
    let usedTokens = 0;
    let heldTokens = 0;

    const chat = async (
      label: string,
      built: ChatMessage[],
      opts: Parameters<AgentContext['chat']>[2] = {},
    ) => {
      const callIndex = calls++;
      const kind = opts.kind ?? 'solve';
      // Every call carries the agent's role, whatever archive type runs it (prompts.ts, withRole).
      const messages = withRole(built, agent.description, kind);
      const params = agent.params;
      const model = backend.modelFor(params.model !== undefined ? { model: params.model } : {});
      const maxTokens = opts.maxTokens ?? params.maxTokens;
      const temperature = opts.temperature ?? params.temperature;
      if (agentAbort.signal.aborted) throw new AgentCallError('aborted', 'The run was cancelled.');
      // Worst case of this call, tokens: estimated prompt + the completion cap.
      const cap = maxTokens ?? runBudget.defaultCompletionTokens;
      const promptEstimate = estimatePromptTokens(
        messages.map((m) => ({ role: m.role === 'tool' ? 'user' : m.role, content: m.content })),
      );
      const need = promptEstimate + cap;
      if (perAgentTokens !== undefined && usedTokens + heldTokens + need > perAgentTokens) {
        const left = Math.max(0, perAgentTokens - usedTokens - heldTokens);
        const message = `Not sent (${label}): this call could use up to ${need} tokens, but only ${left} of agent ${agent.id}'s ${perAgentTokens}-token budget are left${heldNote(usedTokens, heldTokens, inFlight.size)}.`;
        note('budget', message);
        throw new AgentCallError('budget', message);
      }
      const reserved = runBudget.reserve(
        { tokens: need, usd: backend.costOf(model, promptEstimate, cap) },
        model,
      );
      if (!reserved.ok) {
        const message = `Not sent (${label}): ${reserved.error.message}`;
        note('budget', message);
        throw new AgentCallError('budget', message);
      }
      heldTokens += need;
      const sentAt = clock();
      const pending = backend
        .chat({
          agent,
          label,
          kind,
          input,
          messages,
          callIndex,
          ...(temperature !== undefined ? { temperature } : {}),
          ...(maxTokens !== undefined ? { maxTokens } : {}),
          ...(params.model !== undefined ? { model: params.model } : {}),
          signal: agentAbort.signal,
          ...(onDelta ? { onDelta: streamTo(agent.id, label) } : {}),
        })
        .catch((e: unknown): ChatReply => ({
          ok: false,
          kind: 'exception',
          message: e instanceof Error ? e.message : String(e),
          model,
          promptTokens: 0,
          completionTokens: 0,
        }));
      // Tracked until its event is recorded, so an agent's end never comes before its calls.
      const recorded = pending.then((reply) => {
        const latencyMs = Math.max(0, clock() - sentAt);
        heldTokens -= need;
        const spent = reply.promptTokens + reply.completionTokens;
        usedTokens += spent;
        const costUsd = reply.ok
          ? reply.costUsd
          : (backend.costOf(reply.model, reply.promptTokens, reply.completionTokens) ?? 0);
        if (spent > 0) runBudget.commit(reserved.reservation, { tokens: spent, usd: costUsd });
        else runBudget.release(reserved.reservation);
        emit({
          type: 'llm.call',
          t: sentAt,
          agentId: agent.id,
          callId: `${agent.id}#${callIndex + 1}`,
          label: `${backend.labelPrefix ?? ''}${label}`,
          model: reply.model,
          messages,
          output: reply.ok ? reply.output : '',
          promptTokens: reply.promptTokens,
          completionTokens: reply.completionTokens,
          ...(reply.ok && reply.tokensEstimated ? { tokensEstimated: true } : {}),
          latencyMs,
          costUsd,
          ...(reply.ok ? {} : { error: `${reply.kind}: ${reply.message}`.slice(0, 10_000) }),
        });
        return reply;
      });
      inFlight.add(recorded);
      const reply = await recorded;
      inFlight.delete(recorded);
      if (!reply.ok) throw new AgentCallError(reply.kind, reply.message);
      return reply.output;
    };

    const note = (kind: string, text: string): void => {
      emit({ type: 'agent.note', t: clock(), agentId: agent.id, kind, text });
    };

    const ctx: AgentContext = { agent, input, task: task.query, chat, note, signal: agentAbort.signal };
    let output: string | null = null;
    let reason = '';
    try {
      output = await AGENT_RUNNERS[agent.type](ctx);
      if (runAbort.signal.aborted) {
        output = null;
        reason = 'cancelled: the run was cancelled.';
      }
    } catch (e) {
      reason = runAbort.signal.aborted ? 'cancelled: the run was cancelled.' : reasonOf(e);
    }
    // Calls an agent left running (e.g. debate roles after one failed) are aborted and recorded
    // before the agent's own end, so every llm.call sits inside its agent's span.
    if (inFlight.size > 0) {
      agentAbort.abort();
      await Promise.allSettled([...inFlight]);
    }
    runAbort.signal.removeEventListener('abort', onRunAbort);
    if (output !== null) {
      outputs.set(agent.id, output);
      emit({ type: 'agent.end', t: clock(), agentId: agent.id, output });
    } else {
      const placeholder = placeholderFor(agent.id, reason);
      outputs.set(agent.id, placeholder);
      failed.add(agent.id);
      emit({ type: 'agent.error', t: clock(), agentId: agent.id, error: reason, placeholder });
    }
  };

  // Scheduler: ready agents in topological order, at most `concurrency` at once.
  const ready: string[] = order.filter((id) => waiting.get(id) === 0);
  let running = 0;
  let finished = 0;
  await new Promise<void>((resolve) => {
    const pump = (): void => {
      while (!runAbort.signal.aborted && running < concurrency && ready.length > 0) {
        const id = ready.shift() as string;
        const agent = byId.get(id);
        if (!agent) continue;
        running += 1;
        // runAgent records its own failures and does not reject; the catch keeps the scheduler
        // moving even if recording itself fails.
        void runAgent(agent)
          .catch(() => undefined)
          .then(() => {
            running -= 1;
            finished += 1;
            for (const next of out.get(id) ?? []) {
              const left = (waiting.get(next) ?? 0) - 1;
              waiting.set(next, left);
              if (left === 0) {
                ready.push(next);
                ready.sort((a, b) => (rank.get(a) ?? 0) - (rank.get(b) ?? 0));
              }
            }
            pump();
          });
      }
      if (running === 0 && (finished === ids.length || runAbort.signal.aborted || ready.length === 0))
        resolve();
    };
    pump();
  });
  options.signal?.removeEventListener('abort', onOuterAbort);

  const cancelled = runAbort.signal.aborted;
  const sink = sinkOf(design);
  let finalAnswer: string | null = null;
  if (!cancelled) {
    if (sink !== null && !failed.has(sink)) finalAnswer = outputs.get(sink) ?? null;
    else if (design.agents.length === 0 && design.directAnswer !== undefined)
      finalAnswer = design.directAnswer;
  }
  const status = cancelled ? 'cancelled' : finalAnswer === null ? 'failed' : 'completed';
  emit({ type: 'run.end', t: clock(), status });
  return {
    ...base,
    execution: { backend: backend.info, status, startedAt, events: [...log.events] },
    result: {
      finalAnswer,
      ...(sink !== null ? { answerAgent: sink } : {}),
      correct: finalAnswer === null ? null : gradeAnswer(finalAnswer, task),
    },
    totals: computeTotals(design, log.events),
    tags: mergeTags(base.tags, backend.tags),
  };
}
