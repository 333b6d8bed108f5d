/**
 * Intermediate execution for MAS construction (MasHost's intermediate outputs): after every
 * construction action the partial MAS is run for an answer, on the simulator or on a remote
 * provider. On a provider this would cost a whole run per step, so the backend is wrapped in a
 * call cache: a call whose agent, position within the agent, model, sampling parameters and
 * messages are the same as an earlier call's returns that call's reply without a request. Because
 * an agent's messages contain its input, and its input the outputs of the agents it reads, an
 * ADD re-uses every existing agent's calls and pays only for the new agent and the summariser;
 * a DELETE pays at most for the agents that read the deleted one and the summariser (nothing when
 * it restores an earlier design). Only successful replies are kept.
 *
 * The whole construction shares one budget, and only requests spend it: cached replies are free
 * and are never refused. Before each request its worst case (estimated prompt + the completion
 * cap) is reserved against what the earlier requests left; when only requests in flight stand in
 * the way, it waits for them. When a request does not fit, it is not sent, the budget counts as
 * spent, and the run stops (an answer built on a missing agent's placeholder would not grade the
 * design). From then on runs are answered from the cache alone; a run that needs a request is
 * `skipped`.
 *
 * One module because the call cache, the budget reservation and the per-step usage share the
 * executor's private state; split apart, each piece would need that state passed around.
 */
import type { Design, Task, Trace } from '../core/trace.ts';
import { minimalTrace } from '../core/trace-builders.ts';
import { Budget, estimatePromptTokens, redactText, type Amount, type Reservation } from './llm/index.ts';
import { runDesign, type RunBudget } from './run.ts';
import type { ChatBackend, ChatCall, ChatReply } from './types.ts';

/** Fresh (not cached) spend of the intermediate runs so far. */
export interface IntermediateUsage {
  /** Partial designs run (skipped ones excluded). */
  runs: number;
  /** Calls sent to the backend. */
  calls: number;
  /** Calls answered from the cache. */
  cachedCalls: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
}

export interface IntermediateResult {
  /** The partial MAS's final answer (secrets removed); null when it produced none. */
  answer: string | null;
  /** Graded against the task's ground truth; null when ungraded, failed, cancelled or skipped. */
  correct: boolean | null;
  /**
   * `skipped`: the construction's budget is spent and the run needed a request (nothing was
   * sent for it); `failed`: no answer, including a run stopped when the budget ran out mid-way.
   */
  status: 'completed' | 'failed' | 'cancelled' | 'skipped';
  /** Why the run failed or was skipped (secrets removed). */
  problem?: string;
  /** What this run alone cost (cached calls are free). */
  usage: IntermediateUsage;
}

export interface IntermediateOptions {
  backend: ChatBackend;
  /**
   * Limits for the whole construction (all intermediate runs together): `totalTokens` and
   * `totalUsd` are shared; `perAgentTokens` and `defaultCompletionTokens` apply within each run.
   */
  budget?: RunBudget;
  /** Default true for remote backends, false for the simulator (free, and re-simulated per run). */
  cache?: boolean;
  concurrency?: number;
  signal?: AbortSignal;
  /** Strings removed from every recorded event, answer and problem (the API key). */
  secrets?: readonly string[];
  /** Clock for the runs' event times (default performance.now). */
  now?: () => number;
}

/** What is left of the construction's limits; undefined where there is no limit. */
export interface IntermediateRemaining {
  tokens: number | undefined;
  usd: number | undefined;
}

export interface IntermediateExecutor {
  /** Runs a partial design; runs may overlap (each keeps its own usage). Never rejects. */
  run(design: Design, task: Task): Promise<IntermediateResult>;
  /** Totals over every run so far. */
  usage(): IntermediateUsage;
  /** Replies kept in the cache. */
  cacheSize(): number;
  /** The construction's budget after the spend so far (≥ 0), e.g. for running the final design. */
  remaining(): IntermediateRemaining;
}

const zeroUsage = (): IntermediateUsage => ({
  runs: 0,
  calls: 0,
  cachedCalls: 0,
  promptTokens: 0,
  completionTokens: 0,
  costUsd: 0,
});

/** What makes two calls the same call: everything the backend sees except the signal and stream. */
export function callKey(call: ChatCall, model: string): string {
  return JSON.stringify([
    call.agent.id,
    call.agent.type,
    call.agent.description,
    call.callIndex,
    call.label,
    call.kind,
    model,
    call.temperature ?? null,
    call.maxTokens ?? null,
    call.messages.map((m) => [m.role, m.content]),
  ]);
}

type CachedReply = Extract<ChatReply, { ok: true }>;

/** A reply and whether it came from memory (no request was made for it). */
interface Answer {
  reply: ChatReply;
  cached: boolean;
}

const cancelledReply = (model: string): ChatReply => ({
  ok: false,
  kind: 'aborted',
  message: 'The call was cancelled.',
  model,
  promptTokens: 0,
  completionTokens: 0,
});

/** Resolves with `value` once `signal` aborts (never, without a signal). */
function onAbort<T>(signal: AbortSignal, value: T): Promise<T> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(value);
    else signal.addEventListener('abort', () => resolve(value), { once: true });
  });
}

/**
 * The cache itself: successful replies by `callKey`, and the requests in flight so that
 * concurrent identical calls share one. `send` makes the request on a miss.
 */
function callCache(inner: ChatBackend) {
  const done = new Map<string, CachedReply>();
  const pending = new Map<string, Promise<ChatReply>>();
  // Hits are reported as free (0 tokens, $0): nothing was sent.
  const hit = (r: CachedReply): ChatReply => ({
    ...r,
    promptTokens: 0,
    completionTokens: 0,
    tokensEstimated: false,
    costUsd: 0,
  });
  return {
    size: () => done.size,
    async answer(call: ChatCall, send: (call: ChatCall) => Promise<ChatReply>): Promise<Answer> {
      const model = inner.modelFor(call);
      const key = callKey(call, model);
      const kept = done.get(key);
      if (kept) {
        call.onDelta?.(kept.output);
        return { reply: hit(kept), cached: true };
      }
      const shared = pending.get(key);
      if (shared) {
        // Wait for the identical call in flight, unless this caller is cancelled first.
        const r = await Promise.race([shared, onAbort(call.signal, null)]);
        if (r === null) return { reply: cancelledReply(model), cached: false };
        if (r.ok) {
          call.onDelta?.(r.output);
          return { reply: hit(r), cached: true };
        }
        // The shared request failed (or was cancelled by its own caller): try on our own rather
        // than inherit its failure.
      }
      const request = send(call);
      pending.set(key, request);
      try {
        const r = await request;
        if (r.ok) done.set(key, r);
        return { reply: r, cached: false };
      } finally {
        if (pending.get(key) === request) pending.delete(key);
      }
    },
  };
}

/** Everything of a backend but `chat`, for wrappers. */
function metaOf(b: ChatBackend): Omit<ChatBackend, 'chat'> {
  return {
    info: b.info,
    tags: b.tags,
    ...(b.labelPrefix !== undefined ? { labelPrefix: b.labelPrefix } : {}),
    modelFor: (c) => b.modelFor(c),
    costOf: (m, p, c) => b.costOf(m, p, c),
  };
}

/**
 * A backend that answers repeated calls from memory. Hits are reported as free (0 tokens, $0):
 * nothing was sent. Concurrent identical calls share one request. Failed replies are not kept.
 */
export function cachingBackend(
  inner: ChatBackend,
  onReply?: (reply: ChatReply, cached: boolean) => void,
): ChatBackend & { size(): number } {
  const cache = callCache(inner);
  return {
    ...metaOf(inner),
    size: cache.size,
    async chat(call) {
      const { reply, cached } = await cache.answer(call, (c) => inner.chat(c));
      onReply?.(reply, cached);
      return reply;
    },
  };
}

/** USD of a reply: what it reports when it succeeded, else its billable tokens at the price. */
function replyCost(backend: ChatBackend, reply: ChatReply): number {
  return reply.ok
    ? reply.costUsd
    : (backend.costOf(reply.model, reply.promptTokens, reply.completionTokens) ?? 0);
}

/**
 * The worst case a request reserves against the construction's budget, tokens: the estimated
 * prompt, and the call's `maxTokens` or else `defaultCompletionTokens` (the Budget's 1024).
 */
export function reservationFor(
  call: Pick<ChatCall, 'messages' | 'maxTokens'>,
  defaultCompletionTokens = 1024,
): { promptTokens: number; completionTokens: number } {
  return {
    promptTokens: estimatePromptTokens(
      call.messages.map((m) => ({ role: m.role === 'tool' ? 'user' : m.role, content: m.content })),
    ),
    completionTokens: call.maxTokens ?? defaultCompletionTokens,
  };
}

/** Runs partial designs for their answers, with a shared budget and (on providers) a call cache. */
export function createIntermediateExecutor(o: IntermediateOptions): IntermediateExecutor {
  const total = zeroUsage();
  const limits = o.budget ?? {};
  const shared = new Budget({
    ...(limits.totalTokens !== undefined ? { maxTokens: limits.totalTokens } : {}),
    ...(limits.totalUsd !== undefined ? { maxUsd: limits.totalUsd } : {}),
    ...(limits.defaultCompletionTokens !== undefined
      ? { defaultCompletionTokens: limits.defaultCompletionTokens }
      : {}),
  });
  /** Why the budget counts as spent (a request did not fit); null while it has room. */
  let refusal: string | null = null;
  const secrets = (o.secrets ?? []).filter((s) => s.length > 0);
  const clean = (text: string): string => (secrets.length > 0 ? redactText(text, secrets) : text);
  const useCache = o.cache ?? o.backend.info.kind === 'remote';
  const cache = useCache ? callCache(o.backend) : null;

  const which = (): string =>
    [
      limits.totalTokens !== undefined ? `${limits.totalTokens} tokens` : null,
      limits.totalUsd !== undefined ? `$${limits.totalUsd}` : null,
    ]
      .filter((x) => x !== null)
      .join(', ');
  const spent = (): boolean => {
    if (refusal !== null) return true;
    const left = shared.remaining();
    return (
      (limits.totalTokens !== undefined && left.tokens <= 0) ||
      (limits.totalUsd !== undefined && left.usd <= 0)
    );
  };

  /** Requests waiting for reservations in flight to settle. */
  const waiting: (() => void)[] = [];
  /** Whether `need` fits in what the committed spend leaves (nothing held in flight). */
  const fitsWhenIdle = (need: Amount): boolean => {
    const used = shared.spent;
    return (
      (limits.totalTokens === undefined || need.tokens <= limits.totalTokens - used.tokens) &&
      (limits.totalUsd === undefined || (need.usd ?? Infinity) <= limits.totalUsd - used.usd)
    );
  };

  /** One run's view of the backend: counts its own usage, stops it when the budget refuses. */
  const backendFor = (usage: IntermediateUsage, stop: (why: string) => void): ChatBackend => {
    const tally = (f: (u: IntermediateUsage) => void): void => {
      f(usage);
      f(total);
    };
    /** A request: reserved against the shared budget, not sent when it does not fit. */
    const send = async (call: ChatCall): Promise<ChatReply> => {
      const model = o.backend.modelFor(call);
      const refuse = (message: string): ChatReply => {
        stop(message);
        return { ok: false, kind: 'budget', message, model, promptTokens: 0, completionTokens: 0 };
      };
      const worst = reservationFor(call, shared.defaultCompletionTokens);
      const need = {
        tokens: worst.promptTokens + worst.completionTokens,
        usd: o.backend.costOf(model, worst.promptTokens, worst.completionTokens),
      };
      let reservation: Reservation;
      for (;;) {
        if (refusal !== null || spent())
          return refuse(refusal ?? `The construction's budget (${which()}) is spent.`);
        const reserved = shared.reserve(need, model);
        if (reserved.ok) {
          reservation = reserved.reservation;
          break;
        }
        // Requests in flight hold their worst case; when only they stand in the way, wait for one
        // to settle and look again. Otherwise (or without a price under a USD limit) it is spent.
        if (!fitsWhenIdle(need)) {
          refusal ??= reserved.error.message;
          return refuse(reserved.error.message);
        }
        const woke = await Promise.race([
          new Promise<boolean>((resolve) => waiting.push(() => resolve(true))),
          onAbort(call.signal, false),
        ]);
        if (!woke) return cancelledReply(model);
      }
      let reply: ChatReply | undefined;
      try {
        reply = await o.backend.chat(call);
        return reply;
      } finally {
        const r = reply;
        const tokens = r ? r.promptTokens + r.completionTokens : 0;
        const costUsd = r ? replyCost(o.backend, r) : 0;
        if (tokens > 0 || costUsd > 0) shared.commit(reservation, { tokens, usd: costUsd });
        else shared.release(reservation);
        for (const wake of waiting.splice(0)) wake();
        tally((u) => {
          u.calls += 1;
          u.promptTokens += r?.promptTokens ?? 0;
          u.completionTokens += r?.completionTokens ?? 0;
          u.costUsd += costUsd;
        });
      }
    };
    return {
      ...metaOf(o.backend),
      async chat(call) {
        if (!cache) return send(call);
        const { reply, cached } = await cache.answer(call, send);
        if (cached) tally((u) => (u.cachedCalls += 1));
        return reply;
      },
    };
  };

  const remaining = (): IntermediateRemaining => {
    const left = shared.remaining();
    return {
      tokens: limits.totalTokens === undefined ? undefined : Math.max(0, left.tokens),
      usd: limits.totalUsd === undefined ? undefined : Math.max(0, left.usd),
    };
  };

  return {
    usage: () => ({ ...total }),
    cacheSize: () => cache?.size() ?? 0,
    remaining,
    async run(design, task) {
      const usage = zeroUsage();
      /** `ran`: the design was executed (a skipped run, or one cancelled before it began, was not). */
      const result = (
        r: Omit<IntermediateResult, 'usage'>,
        ran = r.status !== 'skipped',
      ): IntermediateResult => {
        if (ran) {
          usage.runs = 1;
          total.runs += 1;
        }
        return {
          ...r,
          answer: r.answer === null ? null : clean(r.answer),
          ...(r.problem !== undefined ? { problem: clean(r.problem).slice(0, 500) } : {}),
          usage: { ...usage },
        };
      };
      if (o.signal?.aborted) return result({ answer: null, correct: null, status: 'cancelled' }, false);
      // The run's own signal: the caller's cancel, or a stop when the budget refuses a request.
      const abort = new AbortController();
      let stopped: string | null = null;
      const stop = (why: string): void => {
        stopped ??= why;
        abort.abort();
      };
      const onCancel = (): void => abort.abort();
      o.signal?.addEventListener('abort', onCancel, { once: true });
      let trace: Trace;
      try {
        trace = await runDesign({
          trace: minimalTrace({ query: task.query }),
          design,
          task,
          backend: backendFor(usage, stop),
          startedAt: new Date(0).toISOString(),
          // The construction's totals are enforced per request above, so that cached calls (free)
          // are never refused; the per-agent limit still holds within the run.
          budget: {
            ...(limits.perAgentTokens !== undefined ? { perAgentTokens: limits.perAgentTokens } : {}),
            ...(limits.defaultCompletionTokens !== undefined
              ? { defaultCompletionTokens: limits.defaultCompletionTokens }
              : {}),
          },
          signal: abort.signal,
          ...(o.concurrency !== undefined ? { concurrency: o.concurrency } : {}),
          ...(secrets.length > 0 ? { secrets } : {}),
          ...(o.now ? { now: o.now } : {}),
        });
      } catch (e) {
        return result({
          answer: null,
          correct: null,
          status: 'failed',
          problem: e instanceof Error ? e.message : String(e),
        });
      } finally {
        o.signal?.removeEventListener('abort', onCancel);
      }
      const status = trace.execution.status;
      if (stopped !== null && status !== 'completed') {
        // Nothing sent: the run was not executed, only looked up. Something sent: it started and
        // ran out part-way.
        return usage.calls === 0
          ? result({
              answer: null,
              correct: null,
              status: 'skipped',
              problem: `not run: no room left in the construction's budget (${which()}): ${stopped}`,
            })
          : result({
              answer: null,
              correct: null,
              status: 'failed',
              problem: `stopped: the construction's budget (${which()}) ran out: ${stopped}`,
            });
      }
      if (status === 'completed')
        return result({ answer: trace.result.finalAnswer, correct: trace.result.correct, status });
      const firstError = trace.execution.events.find((e) => e.type === 'agent.error');
      return result({
        answer: null,
        correct: null,
        status: status === 'cancelled' ? 'cancelled' : 'failed',
        ...(firstError?.type === 'agent.error'
          ? { problem: `${firstError.agentId}: ${firstError.error}` }
          : {}),
      });
    },
  };
}
