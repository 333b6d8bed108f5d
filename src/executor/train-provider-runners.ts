/**
 * The trainer's runners on the user's OpenAI-wire provider (src/train `RunnersFor`, matched by
 * shape, like train-runners.ts for the simulator): every partial MAS (intermediate answers) and
 * every finished design of every rollout runs on the provider, under one hard budget of tokens
 * and dollars for the whole training run.
 *
 * The budget is checked before each request: the request reserves its worst case (estimated
 * prompt + its completion cap, and their price) against what the earlier requests left; a request
 * that does not fit is not sent. From then on nothing more is sent, and the runner throws
 * `TrainBudgetExceeded` as soon as the rollout that hit the limit needs an answer, so the training
 * iteration stops with a clear error instead of learning from placeholders. Under a dollar limit a
 * model without a known price is refused (unknown is not free). Within one construction, repeated
 * calls are answered from a call cache (intermediate.ts) and cost nothing.
 *
 * The API key stays in the spec and its client: it is passed as a secret, so it is removed from
 * every answer, problem and error message this module produces.
 */
import type { Design, Task, Trace } from '../core/trace.ts';
import type { MasBenchTask } from '../masbench/index.ts';
import { backendFromSpec, secretsOf, stepResultOf, type RemoteSpec } from './backend-spec.ts';
import { createIntermediateExecutor, reservationFor } from './intermediate.ts';
import { Budget, redactText } from './llm/index.ts';
import { runDesign } from './run.ts';
import type { ChatBackend, ChatReply } from './types.ts';

export interface TrainBudget {
  /** Prompt + completion tokens for the whole training run (required: training on a provider is never unlimited). */
  tokens: number;
  /** USD for the whole training run. */
  usd?: number;
}

/** Training stopped because the next request could cross the budget. */
export class TrainBudgetExceeded extends Error {
  readonly code = 'train-budget-exceeded';
  constructor(
    message: string,
    readonly spent: TrainSpend,
  ) {
    super(message);
    this.name = 'TrainBudgetExceeded';
  }
}

export interface TrainSpend {
  /** Requests sent (cached replies excluded). */
  calls: number;
  tokens: number;
  usd: number;
}

export interface ProviderTrainRunners {
  /** The trainer's runners: (task, seed) → { intermediate, final }. */
  runners: (
    task: MasBenchTask,
    seed: number,
  ) => {
    intermediate: (design: Design, task: Task) => Promise<ReturnType<typeof stepResultOf>>;
    final: (trace: Trace) => Promise<{ correct: boolean | null; tokens: number }>;
  };
  /** Spend so far over the whole run. */
  spent(): TrainSpend;
  /** Why nothing more is sent (the refused request's reason), or null while there is room. */
  exhausted(): string | null;
}

export interface ProviderRunnerOptions {
  /** Agents of one design running at once (default 4). */
  concurrency?: number;
  signal?: AbortSignal;
  /** Injected fetch (tests). */
  fetch?: typeof fetch;
}

export function providerTrainRunners(
  spec: RemoteSpec,
  budget: TrainBudget,
  o: ProviderRunnerOptions = {},
): ProviderTrainRunners {
  if (!(Number.isInteger(budget.tokens) && budget.tokens > 0))
    throw new Error('training on a provider needs a token budget (a positive integer)');
  if (budget.usd !== undefined && !(Number.isFinite(budget.usd) && budget.usd >= 0))
    throw new Error('the dollar budget must be a non-negative number');
  const inner = backendFromSpec(spec, o.fetch);
  const secrets = secretsOf(spec);
  const clean = (s: string): string => (secrets.length > 0 ? redactText(s, secrets) : s);
  const shared = new Budget({
    maxTokens: budget.tokens,
    ...(budget.usd !== undefined ? { maxUsd: budget.usd } : {}),
  });
  let calls = 0;
  let refusal: string | null = null;
  const spent = (): TrainSpend => ({ calls, tokens: shared.spent.tokens, usd: shared.spent.usd });

  // Every request of the run goes through here: reserve the worst case, send, commit the actual.
  const guarded: ChatBackend = {
    info: inner.info,
    tags: inner.tags,
    ...(inner.labelPrefix !== undefined ? { labelPrefix: inner.labelPrefix } : {}),
    modelFor: (call) => inner.modelFor(call),
    costOf: (model, p, c) => inner.costOf(model, p, c),
    async chat(call): Promise<ChatReply> {
      const model = inner.modelFor(call);
      const refuse = (message: string): ChatReply => ({
        ok: false,
        kind: 'budget',
        message,
        model,
        promptTokens: 0,
        completionTokens: 0,
      });
      if (refusal !== null) return refuse(refusal);
      const worst = reservationFor(call, shared.defaultCompletionTokens);
      const r = shared.reserve(
        {
          tokens: worst.promptTokens + worst.completionTokens,
          usd: inner.costOf(model, worst.promptTokens, worst.completionTokens),
        },
        model,
      );
      if (!r.ok) {
        refusal = r.error.message;
        return refuse(refusal);
      }
      calls++;
      const reply = await inner.chat(call);
      const usd = reply.ok
        ? reply.costUsd
        : (inner.costOf(reply.model, reply.promptTokens, reply.completionTokens) ?? 0);
      shared.commit(r.reservation, { tokens: reply.promptTokens + reply.completionTokens, usd });
      return reply;
    },
  };

  const stopIfSpent = (): void => {
    if (refusal === null) return;
    const s = spent();
    throw new TrainBudgetExceeded(
      clean(
        `training stopped: the budget (${budget.tokens} tokens${budget.usd !== undefined ? `, $${budget.usd}` : ''}) would be exceeded after ${s.calls} requests (${s.tokens} tokens, $${s.usd.toFixed(4)} spent). ${refusal}`,
      ),
      s,
    );
  };

  return {
    spent,
    exhausted: () => refusal,
    runners: () => {
      const intermediate = createIntermediateExecutor({
        backend: guarded,
        cache: true,
        concurrency: o.concurrency ?? 4,
        secrets,
        ...(o.signal ? { signal: o.signal } : {}),
      });
      return {
        intermediate: async (design, task) => {
          stopIfSpent();
          const r = stepResultOf(await intermediate.run(design, task), 'remote');
          stopIfSpent();
          return r;
        },
        final: async (trace) => {
          stopIfSpent();
          const done = await runDesign({
            trace,
            backend: guarded,
            concurrency: o.concurrency ?? 4,
            secrets,
            ...(o.signal ? { signal: o.signal } : {}),
          });
          stopIfSpent();
          return {
            correct: done.result.correct,
            tokens: done.totals.promptTokens + done.totals.completionTokens,
          };
        },
      };
    },
  };
}
