/**
 * The Evaluate page's state: the settings being edited, the run (progress per method, budget used),
 * and the results document. Running goes through the evaluation worker; each finished row and its
 * trace go to the journal first, so a reload resumes (`startEval` with the same settings runs only
 * what the journal lacks). Pure helpers (`evalConfigOf`) turn the settings into a validated config.
 *
 * On a provider (the Settings page's endpoint, model, prices and key) the budget is required and
 * hard: the worker's executor reserves every call's worst case from it before sending. The key is
 * read from where Settings keeps it at start and goes to the worker in that call only; the config,
 * the journal, rows, traces and exports hold the provider, public base URL and model, never the key.
 */
import { problemOf } from '../../core/errors.ts';
import type { Problem } from '../../core/result.ts';
import {
  EvalConfigSchema,
  documentOf,
  parseAxes,
  parseEvalDocument,
  parseMethodWords,
  rowsCsv,
  summaryCsv,
  type EvalConfig,
  type EvalDocument,
  type EvalProgress,
  type EvalRow,
  type Method,
} from '../../eval/index.ts';
import { publicBaseUrl } from '../../executor/index.ts';
import { priceOf } from '../../executor/llm/index.ts';
import { idbEvalJournal, evalWorker, type EvalJournal, type EvalProvider } from '../services/eval.ts';

type EvalWorker = ReturnType<typeof evalWorker>;
import type { BatonState, SliceCreator } from '../store.ts';
import { connectionUrl, providerBlockers, remoteSpecOf } from './settings.ts';
import { buildEnv } from './build-env.ts';
import { savedCheckpointsOf } from './eval-pickers.ts';

export type { EvalDocument, EvalRow, MethodSummary, Score } from '../../eval/index.ts';

export interface EvalDraft {
  /** `cot,sc,policy:prior,orchestrator:<model>` (design files: `baton eval`). */
  methods: string;
  /** `depth:2,6,robustness:3`. */
  axes: string;
  n: number;
  seed: number;
  split: 'train' | 'test' | 'all';
  /** '' for none (the simulator only: a provider run needs a budget). */
  budgetTokens: string;
  /** '' for none. */
  budgetUsd: string;
  concurrency: number;
  /** Where the tasks run: the simulator, or the provider chosen in Settings. */
  backend: 'simulator' | 'provider';
}

/** The provider as the evaluation records it (no key), or null for the simulator. */
export interface EvalRemote {
  provider: string;
  baseUrl: string;
  model: string;
}

export type EvalRunState =
  | { status: 'idle' }
  | {
      status: 'running';
      progress: (Omit<EvalProgress, 'perMethod'> & { perMethod: EvalProgress['perMethod'] }) | null;
      resumed: number;
      /** Spend of the rows the journal already held (in `progress`, not billed again). */
      resumedSpend: { tokens: number; usd: number };
      budget: EvalConfig['budget'];
    }
  | { status: 'done' }
  | { status: 'stopped'; reason: string }
  | { status: 'error'; problems: Problem[] };

export interface EvalSlice {
  evalDraft: EvalDraft;
  evalRun: EvalRunState;
  evalDoc: EvalDocument | null;
  setEvalDraft(patch: Partial<EvalDraft>): void;
  /** Runs the draft's evaluation; `fresh` forgets the journal's rows for it first. */
  startEval(options?: { fresh?: boolean }): Promise<void>;
  cancelEval(): void;
  /** Reads a trace of the results from the journal and opens it in the library; its id, or null. */
  openEvalTrace(traceId: string): Promise<string | null>;
  /** Loads a results file (JSON) for viewing. */
  loadEvalFile(text: string): Problem[];
  exportEval(kind: 'json' | 'rows-csv' | 'summary-csv'): { name: string; text: string } | null;
}

export const DEFAULT_EVAL_DRAFT: EvalDraft = {
  methods: 'cot,sc,reflexion,debate,ceo',
  axes: 'depth:2,6,12,breadth:6,robustness:4',
  n: 20,
  seed: 0,
  split: 'test',
  budgetTokens: '',
  budgetUsd: '',
  concurrency: 4,
  backend: 'simulator',
};

/** The configuration a draft stands for, or what is wrong with it. */
export function evalConfigOf(
  d: EvalDraft,
  remote: EvalRemote | null = null,
): { ok: true; config: EvalConfig } | { ok: false; problems: Problem[] } {
  const bad = (detail: string): { ok: false; problems: Problem[] } => ({
    ok: false,
    problems: [problemOf('E_EVAL_CONFIG', detail)],
  });
  const words = parseMethodWords(d.methods);
  if (!words.ok) return bad(`methods: ${words.message}`);
  const methods: Method[] = [];
  for (const w of words.words) {
    if (w.kind === 'design')
      return bad(`methods: "design:${w.file}" needs a file; use baton eval for designs`);
    if (w.kind === 'policy') methods.push({ kind: 'policy', checkpoint: w.checkpoint, greedy: w.greedy });
    else if (w.kind === 'agent') methods.push({ kind: 'agent', agent: w.agent });
    else methods.push({ kind: 'orchestrator', model: w.model });
  }
  const axes = parseAxes(d.axes);
  if (!axes.ok) return bad(`axes: ${axes.message}`);
  const budget = d.budgetTokens.trim();
  if (budget !== '' && !/^\d+$/.test(budget)) return bad('the token budget must be a whole number');
  const usd = (d.budgetUsd ?? '').trim();
  if (usd !== '' && !(/^\d*\.?\d+$/.test(usd) && Number.isFinite(Number(usd))))
    return bad('the $ budget must be a number, e.g. 0.50');
  if (d.backend === 'provider') {
    if (!remote) return bad('choose a provider in Settings');
    if (budget === '' && usd === '') return bad('a run on a provider needs a budget: set a token or $ limit');
  }
  const parsed = EvalConfigSchema.safeParse({
    methods,
    taskSet: { kind: 'masbench', axes: axes.axes, n: d.n, seed: d.seed, split: d.split },
    seeds: [d.seed],
    backend:
      d.backend === 'provider' && remote
        ? {
            kind: 'remote',
            provider: remote.provider,
            baseUrl: publicBaseUrl(remote.baseUrl),
            model: remote.model,
          }
        : { kind: 'simulated' },
    budget: {
      ...(budget === '' ? {} : { tokens: Number(budget) }),
      ...(usd === '' ? {} : { usd: Number(usd) }),
    },
  });
  if (!parsed.success)
    return bad(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  return { ok: true, config: parsed.data };
}

/** What keeps the draft's backend from running, in words (the provider's settings); empty when none. */
export function evalBackendBlockers(s: BatonState): string[] {
  return s.evalDraft.backend === 'provider' ? providerBlockers(s) : [];
}

/** The provider the settings describe, as the evaluation records it (no key is read), or null. */
export function evalRemoteOf(s: BatonState): EvalRemote | null {
  const url = connectionUrl(s);
  const model = s.connections[s.provider].model.trim();
  return url.ok && model !== '' ? { provider: s.provider, baseUrl: url.url, model } : null;
}

/** The configuration the page would run now (its draft on its backend), or what keeps it from running. */
export function evalCheckOf(s: BatonState): ReturnType<typeof evalConfigOf> {
  const blockers = evalBackendBlockers(s);
  if (blockers.length > 0) return { ok: false, problems: blockers.map((b) => problemOf('E_EVAL_CONFIG', b)) };
  const c = evalConfigOf(s.evalDraft, s.evalDraft.backend === 'provider' ? evalRemoteOf(s) : null);
  // Unknown is not free: under a $ limit every call to a model without a price would be refused.
  if (
    c.ok &&
    c.config.backend.kind === 'remote' &&
    c.config.budget.usd !== undefined &&
    !priceOf(c.config.backend.model, s.prices)
  )
    return {
      ok: false,
      problems: [
        problemOf(
          'E_EVAL_CONFIG',
          `Settings have no price for ${c.config.backend.model}: add one, or clear the $ budget and limit tokens`,
        ),
      ],
    };
  return c;
}

/** The provider the settings describe, as the evaluation records it, with the key kept apart. */
function providerOf(s: BatonState): { remote: EvalRemote; call: EvalProvider } | null {
  const spec = remoteSpecOf(s);
  if (!spec) return null;
  return {
    remote: { provider: spec.provider, baseUrl: spec.baseUrl, model: spec.model },
    call: {
      provider: spec.provider,
      baseUrl: spec.baseUrl,
      model: spec.model,
      apiKey: spec.apiKey,
      ...(spec.prices ? { prices: { ...spec.prices } } : {}),
    },
  };
}

let journal: EvalJournal = idbEvalJournal();
/** Swaps the journal (tests); returns the previous one. */
export function configureEvalJournal(next: EvalJournal): EvalJournal {
  const prev = journal;
  journal = next;
  return prev;
}
/** The journal in use (the eval-share slice reads the results' traces from it). */
export const evalJournal = (): EvalJournal => journal;

export const createEvalSlice: SliceCreator<EvalSlice> = (set, get) => {
  let abort: AbortController | null = null;
  return {
    evalDraft: DEFAULT_EVAL_DRAFT,
    evalRun: { status: 'idle' },
    evalDoc: null,

    setEvalDraft(patch) {
      set((s) => ({ evalDraft: { ...s.evalDraft, ...patch } }));
    },

    async startEval(options = {}) {
      if (get().evalRun.status === 'running') return;
      const draft = get().evalDraft;
      const check = evalCheckOf(get());
      if (!check.ok) {
        set({ evalRun: { status: 'error', problems: check.problems } });
        return;
      }
      const prov = draft.backend === 'provider' ? providerOf(get()) : null;
      const c = evalConfigOf(draft, prov?.remote ?? null);
      if (!c.ok) {
        set({ evalRun: { status: 'error', problems: c.problems } });
        return;
      }
      const { config } = c;
      // Saved checkpoints (Build's, and those Train keeps) travel to the worker with the call.
      const checkpoints: Record<string, unknown> = {};
      for (const name of savedCheckpointsOf(draft.methods)) {
        const cp = await buildEnv().storage.load(name);
        if (!cp.ok) {
          set({ evalRun: { status: 'error', problems: cp.errors } });
          return;
        }
        checkpoints[name] = cp.value;
      }
      let done: EvalRow[];
      try {
        if (options.fresh) await journal.clear(config);
        done = await journal.rows(config);
      } catch (e) {
        set({
          evalRun: {
            status: 'error',
            problems: [problemOf('E_EVAL_STORAGE', e instanceof Error ? e.message : String(e))],
          },
        });
        return;
      }
      abort = new AbortController();
      const resumedSpend = {
        tokens: done.reduce((t, r) => t + r.tokens, 0),
        usd: done.reduce((t, r) => t + r.costUsd, 0),
      };
      set({
        evalRun: {
          status: 'running',
          progress: null,
          resumed: done.length,
          resumedSpend,
          budget: config.budget,
        },
        evalDoc: null,
      });
      let writes: Promise<unknown> = Promise.resolve();
      // The answer leaves the rows out: they are the journal's and those that arrive as progress.
      const rows: EvalRow[] = [...done];
      const answer = await evalWorker().evaluate(
        {
          config,
          done,
          concurrency: draft.concurrency,
          createdAt: new Date().toISOString(),
          // Where an in-tab orchestrator method loads its model: this page's own models/ folder.
          ...(typeof location !== 'undefined' && /^https?:$/.test(location.protocol)
            ? { modelsBaseUrl: new URL('.', location.href).href }
            : {}),
          // The key goes in this call and nowhere else.
          ...(prov
            ? {
                provider: prov.call,
                agentConcurrency: get().concurrency,
                repairTurns: get().repairTurns,
                designOutput: get().designOutput,
              }
            : {}),
          ...(Object.keys(checkpoints).length > 0
            ? {
                checkpoints: checkpoints as NonNullable<Parameters<EvalWorker['evaluate']>[0]['checkpoints']>,
              }
            : {}),
        },
        {
          signal: abort.signal,
          onProgress: (p) => {
            if (p.kind === 'row') {
              rows.push(p.row);
              writes = writes.then(() => journal.add(config, p.row, p.trace)).catch(() => undefined);
              return;
            }
            const { kind: _kind, ...progress } = p;
            set((s) => (s.evalRun.status === 'running' ? { evalRun: { ...s.evalRun, progress } } : {}));
          },
        },
      );
      abort = null;
      await writes;
      if (!answer.ok) {
        const cancelled = answer.errors.some((e) => e.code === 'E_WORKER_CANCELLED');
        set({
          evalRun: cancelled
            ? { status: 'stopped', reason: 'cancelled' }
            : { status: 'error', problems: answer.errors },
        });
        // What finished before the cancel is in the journal: show it.
        if (cancelled) {
          const rows = await journal.rows(config).catch(() => []);
          set({
            evalDoc: documentOf(
              { config, createdAt: new Date().toISOString() },
              0,
              rows,
              { tokens: 0, usd: 0 },
              'cancelled',
            ),
          });
        }
        return;
      }
      set({
        evalDoc: { ...answer.value, rows },
        evalRun: answer.value.complete
          ? { status: 'done' }
          : { status: 'stopped', reason: answer.value.stopped ?? 'stopped' },
      });
    },

    cancelEval() {
      abort?.abort();
    },

    async openEvalTrace(traceId) {
      const inMemory = get().openTraces[traceId];
      const trace = inMemory ?? (await journal.trace(traceId).catch(() => null));
      if (!trace) return null;
      await get().rememberTraces([{ trace, source: 'app', sourceLabel: 'Evaluation' }]);
      return trace.id;
    },

    loadEvalFile(text) {
      const p = parseEvalDocument(text);
      if (!p.ok) return p.problems.map((m) => problemOf('E_EVAL_FILE', m));
      set({ evalDoc: p.doc, evalRun: { status: 'idle' } });
      return [];
    },

    exportEval(kind) {
      const doc = get().evalDoc;
      if (!doc) return null;
      if (kind === 'json') return { name: 'evaluation.json', text: JSON.stringify(doc, null, 2) };
      if (kind === 'rows-csv') return { name: 'evaluation-rows.csv', text: rowsCsv(doc) };
      return { name: 'evaluation-summary.csv', text: summaryCsv(doc) };
    },
  };
};
