/**
 * The Orchestrate page with the Settings provider as the orchestrator: the endpoint's model writes
 * the design (services/provider-orchestrator.ts), each attempt streaming into the page as the
 * in-tab model's output does (the thinking, the design text, the graph growing), an invalid design
 * sent back with its numbered problems for at most the Settings' repair turns. Interrupt aborts the
 * call and keeps what was written. The attempts, with their problems, tokens and cost, are kept on
 * the generation and in the designer record the trace gets.
 */
import { problemOf } from '../../core/errors.ts';
import type { ProviderAttempt } from '../../core/trace.ts';
import {
  DEFAULT_REPAIR_TURNS,
  MAX_REPAIR_TURNS,
  designBudgetPreview,
} from '../../executor/provider-design-read.ts';
import { orchestratorMessages } from '../../interop/index.ts';
import type { RunBudget } from '../../executor/run.ts';
import { errorText } from '../services/problems.ts';
import { createThrottle } from '../services/runner.ts';
import type { BatonState } from '../store.ts';
import type { GenerationResult, OrchGeneration, OrchTask } from './orchestrate.ts';
import { providerBlockers, remoteSpecOf, runBudgetOf, type SettingsSlice } from './settings.ts';

export { DEFAULT_REPAIR_TURNS, MAX_REPAIR_TURNS };
/** Completion tokens each design call may take (what the budget reserves for it). */
export const DESIGN_MAX_TOKENS = 2048;

type SetState = (partial: Partial<BatonState>) => void;
type GetState = () => BatonState;

let abort: AbortController | null = null;

/** Interrupts the provider's design call in flight; true when there was one. */
export function interruptProviderDesign(): boolean {
  if (!abort) return false;
  abort.abort();
  return true;
}

/**
 * What the design may spend at most, before it starts: every attempt at its prompt plus the
 * per-call completion limit, priced with the Settings' table; and the Settings' limits it counts
 * against (the same limits as the run's sub-agents).
 */
export function providerDesignPreview(
  s: Pick<SettingsSlice, 'provider' | 'connections' | 'prices' | 'budget' | 'repairTurns'>,
  query: string,
  dom: 'low' | 'high' | 'auto',
): {
  calls: number;
  tokens: number;
  usd: number | undefined;
  limitTokens: number | null;
  limitUsd: number | null;
} {
  const p = designBudgetPreview({
    messages: orchestratorMessages(query, dom === 'low' ? 'low' : 'high'),
    maxTokens: DESIGN_MAX_TOKENS,
    repairTurns: s.repairTurns,
    model: s.connections[s.provider].model.trim(),
    prices: s.prices,
  });
  return { ...p, limitTokens: s.budget.totalTokens, limitUsd: s.budget.totalUsd };
}

/** What keeps the provider from writing the design, in words. */
export const providerOrchestratorBlockers = (s: BatonState): string[] => providerBlockers(s);

/** Runs the provider's design loop for `task`; resolves when it ends. */
export async function startProviderDesign(
  get: GetState,
  set: SetState,
  task: OrchTask,
  query: string,
  settings: OrchGeneration['settings'],
): Promise<void> {
  const s = get();
  const spec = remoteSpecOf(s);
  if (!spec) return;
  const startedAt = Date.now();
  let gen: OrchGeneration = {
    status: 'running',
    task,
    model: null,
    provider: { model: spec.model, where: spec.provider, repairTurns: s.repairTurns },
    attempts: [],
    attempt: 0,
    settings,
    text: '',
    tokens: 0,
    startedAt,
    firstTokenAt: null,
    endedAt: null,
    result: null,
    problems: [],
    check: null,
  };
  set({ orchGen: gen, orchRun: { status: 'idle', target: null, problems: [], progress: null } });
  const mine = (): boolean => get().orchGen?.startedAt === startedAt;
  const view = createThrottle(() => {
    if (mine()) set({ orchGen: gen });
  }, 50);
  abort = new AbortController();
  try {
    const { designOnProvider } = await import('../services/provider-orchestrator.ts');
    const { result } = await designOnProvider(
      spec,
      runBudgetOf(s),
      {
        query,
        dom: settings.dom,
        temperature: settings.temperature,
        seed: settings.seed,
        repairTurns: s.repairTurns,
      },
      {
        signal: abort.signal,
        onDelta: (t, attempt) => {
          // A new attempt starts a new text; the graph grows again from it.
          const fresh = attempt !== gen.attempt;
          gen = {
            ...gen,
            attempt,
            text: (fresh ? '' : gen.text) + t,
            // An estimate while it streams (about four characters a token); the reply's usage at the end.
            tokens: gen.tokens + Math.ceil(t.length / 4),
            firstTokenAt: gen.firstTokenAt ?? Date.now(),
          };
          view.request();
        },
        onAttempt: (a: ProviderAttempt) => {
          gen = { ...gen, attempts: [...(gen.attempts ?? []), a] };
          view.request();
        },
      },
    );
    view.cancel();
    const d = result.designer;
    const interrupted = d.stopReason === 'interrupted';
    const res: GenerationResult = {
      rawOutput: d.rawOutput ?? '',
      design: result.design,
      problem: result.failure ? problemOf('E_MODEL_OUTPUT', result.failure) : null,
      stopReason: interrupted ? 'interrupted' : d.stopReason === 'max-tokens' ? 'max-tokens' : 'eos',
      timings: {
        firstTokenMs: gen.firstTokenAt !== null ? gen.firstTokenAt - startedAt : 0,
        generateMs: d.timings?.generateMs ?? 0,
        tokens: d.timings?.tokens ?? 0,
        tokensPerSecond: d.timings?.tokensPerSecond ?? 0,
      },
      designer: d,
    };
    // A call that failed or was refused (not a design the validator rejected).
    const failedCall = !interrupted && result.design === null && !result.failure?.startsWith('no valid');
    const lines = result.design ? [] : [...(result.failure ? [result.failure] : []), ...result.errors];
    gen = {
      ...gen,
      // The last attempt's whole text (an interrupted one: what it had written).
      text: res.rawOutput || gen.text,
      tokens: res.timings.tokens,
      attempts: d.attempts ?? gen.attempts ?? [],
      result: res,
      endedAt: Date.now(),
      status: interrupted ? 'interrupted' : failedCall ? 'error' : 'done',
      problems: failedCall && result.failure ? [problemOf('E_PROVIDER', result.failure)] : [],
      check: { valid: result.design !== null, lines },
    };
  } catch (e) {
    view.cancel();
    gen = {
      ...gen,
      endedAt: Date.now(),
      status: 'error',
      problems: [problemOf('E_PROVIDER', errorText(e))],
    };
  } finally {
    abort = null;
  }
  if (mine()) set({ orchGen: gen });
}

/** The run's limits less what a provider spent writing the design: one budget for both. */
export function budgetAfterDesign(limits: RunBudget, g: OrchGeneration): RunBudget {
  const d = g.result?.designer;
  const u = d && d.kind === 'orchestrator' ? d.usage : undefined;
  if (!u) return limits;
  return {
    ...limits,
    ...(limits.totalTokens !== undefined
      ? { totalTokens: Math.max(0, limits.totalTokens - u.promptTokens - u.completionTokens) }
      : {}),
    ...(limits.totalUsd !== undefined ? { totalUsd: Math.max(0, limits.totalUsd - (u.costUsd ?? 0)) } : {}),
  };
}
