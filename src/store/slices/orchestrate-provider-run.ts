/**
 * The provider's design loop on the Orchestrate page (see `orchestrate-provider.ts`): each attempt
 * streams into the generation, the attempts are kept, the result becomes the generation's result.
 * Loaded when a provider design starts.
 */
import { problemOf } from '../../core/errors.ts';
import type { ProviderAttempt } from '../../core/trace.ts';
import { errorText } from '../services/problems.ts';
import { createThrottle } from '../services/runner.ts';
import type { BatonState } from '../store.ts';
import {
  runningGeneration,
  type GenerationResult,
  type OrchGeneration,
  type OrchTask,
} from './orchestrate.ts';
import { setProviderAbort } from './orchestrate-provider.ts';
import { remoteSpecOf, runBudgetOf } from './settings.ts';

type SetState = (partial: Partial<BatonState>) => void;
type GetState = () => BatonState;

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
  let gen: OrchGeneration = {
    ...runningGeneration(task, null, settings),
    provider: { model: spec.model, where: spec.provider, repairTurns: s.repairTurns },
    attempts: [],
    attempt: 0,
  };
  const startedAt = gen.startedAt;
  set({ orchGen: gen, orchRun: { status: 'idle', target: null, problems: [], progress: null } });
  const mine = (): boolean => get().orchGen?.startedAt === startedAt;
  const view = createThrottle(() => {
    if (mine()) set({ orchGen: gen });
  }, 50);
  const abort = new AbortController();
  setProviderAbort(abort);
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
        output: s.designOutput,
        timeoutMs: s.designTimeoutS * 1000,
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
    setProviderAbort(null);
  }
  if (mine()) set({ orchGen: gen });
}
