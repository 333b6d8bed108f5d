/**
 * The Orchestrate page's state: a language model in the tab reads the task and writes a whole MAS
 * design, which then runs on the simulator or the Settings provider and lands on the trace page.
 *
 * The model lives in a worker behind `services/orchestrator.ts`; this slice holds what the page
 * shows: the settings (kept through every error: a failed load or run never clears the query),
 * the manifest, the load with its per-file progress, the generation as it streams (text, token
 * count, constraint statistics, timings; the text is kept when the user interrupts or the worker
 * fails), and the finished output's parse and validation. The trace of a run carries the
 * designer record: model, dtype, device, prompt, raw output, parse problems, constraint
 * statistics and timings.
 */
import { problemOf } from '../../core/errors.ts';
import { fail, type Problem, type Result } from '../../core/result.ts';
import { minimalTrace, traceIdFrom } from '../../core/trace-builders.ts';
import type { Design, Designer, ProviderAttempt, Trace } from '../../core/trace.ts';
import { formatReport, parseDesign } from '../../design/parse.ts';
import { taskOfMasbench, type MasBenchTask } from '../../masbench/index.ts';
import type {
  OrchestratorRuntime,
  DevicePref,
  DomPref,
  FileProgress,
  GenerationResult,
  LoadedModel,
  LoadRequest,
  ModelEntryView,
} from '../services/orchestrator.ts';
import { errorText } from '../services/problems.ts';
import { createThrottle, executeRun, runOnSimulator } from '../services/runner.ts';
import type { BatonState, SliceCreator } from '../store.ts';
import { generateBench, type BenchChoice } from './run.ts';
import {
  budgetAfterDesign,
  interruptProviderDesign,
  providerOrchestratorBlockers,
} from './orchestrate-provider.ts';
import { providerBlockers, remoteSpecOf, runBudgetOf } from './settings.ts';

export type { DevicePref, DomPref, FileProgress, GenerationResult, LoadedModel, ModelEntryView };
export { partialDesign, splitThinking, type PartialDesign } from './orchestrate-partial.ts';

export interface OrchDraft {
  /** Who writes the design: the model in the tab, or the Settings provider's model. */
  orchestrator: 'model' | 'provider';
  taskMode: 'custom' | 'masbench';
  query: string;
  bench: BenchChoice;
  /** `manifest`: `modelId` from the manifest; `custom`: `customModel`, a hub id or a model URL. */
  modelKind: 'manifest' | 'custom';
  modelId: string;
  customModel: string;
  device: DevicePref;
  /** 'auto' = the first the model offers that suits the device. */
  dtype: string;
  dom: DomPref;
  temperature: number;
  seed: number;
  constrained: boolean;
}

export type OrchModels =
  | { status: 'idle' | 'loading' }
  | { status: 'ready'; entries: ModelEntryView[]; warnings: string[] }
  | { status: 'error'; problems: Problem[] };

export type OrchLoad =
  | { status: 'idle' }
  | { status: 'loading'; label: string; files: FileProgress[]; stage: string | null }
  | { status: 'ready'; label: string; model: LoadedModel; files: FileProgress[] }
  | { status: 'error'; label: string; problems: Problem[]; files: FileProgress[] };

/** The task a generation was asked about (kept with it: the draft may change meanwhile). */
export type OrchTask = { kind: 'custom'; query: string } | { kind: 'masbench'; task: MasBenchTask };

export interface OrchGeneration {
  status: 'running' | 'done' | 'interrupted' | 'error';
  task: OrchTask;
  /** The in-tab model that writes; null when the provider does (`provider`). */
  model: LoadedModel | null;
  /** The Settings provider that writes, when it does. */
  provider?: { model: string; where: string; repairTurns: number };
  /** The provider's attempts so far, each with its problems, tokens and cost. */
  attempts?: ProviderAttempt[];
  /** The attempt streaming now (0-based). */
  attempt?: number;
  settings: Pick<OrchDraft, 'dom' | 'temperature' | 'seed' | 'constrained'>;
  /** Everything written so far (kept on interrupt and on failure). */
  text: string;
  tokens: number;
  /** `Date.now()` at the start, at the first token and at the end (null while running). */
  startedAt: number;
  firstTokenAt: number | null;
  endedAt: number | null;
  /** The runtime's answer (null while running, or when it failed). */
  result: GenerationResult | null;
  /** Why it failed (the worker, the model), when it did. */
  problems: Problem[];
  /** Parse and validation of the text written, in words (null while running). */
  check: { valid: boolean; lines: string[] } | null;
}

export interface OrchRun {
  status: 'idle' | 'running' | 'error';
  target: 'simulator' | 'provider' | null;
  problems: Problem[];
  progress: { done: number; total: number } | null;
}

export type OrchCache =
  | { status: 'idle' | 'clearing' }
  | { status: 'cleared'; removed: number }
  | { status: 'error'; problems: Problem[] };

export interface OrchestrateSlice {
  orchDraft: OrchDraft;
  orchModels: OrchModels;
  orchLoad: OrchLoad;
  orchGen: OrchGeneration | null;
  orchRun: OrchRun;
  orchCache: OrchCache;
  /** Reads the manifest (once) and picks its default model (the offline one). */
  initOrchestrate(): Promise<void>;
  setOrchDraft(patch: Partial<OrchDraft>): void;
  setOrchBench(patch: Partial<BenchChoice>): void;
  loadOrchModel(): Promise<void>;
  clearOrchCache(): Promise<void>;
  /** Writes a design for the draft's task; resolves when the generation ends. */
  startOrchestrate(): Promise<void>;
  /** Stops the generation at the next token; what was written is kept. */
  interruptOrchestrate(): void;
  /** Runs the finished design; the trace's id (opened in the library), or null with `orchRun.problems`. */
  runOrchestrated(target: 'simulator' | 'provider'): Promise<string | null>;
  stopOrchRun(): void;
}

export const DEFAULT_ORCH_DRAFT: OrchDraft = {
  orchestrator: 'model',
  taskMode: 'custom',
  query: '',
  bench: { axis: 'depth', value: 3, seed: 1 },
  modelKind: 'manifest',
  modelId: '',
  customModel: '',
  device: 'auto',
  dtype: 'auto',
  dom: 'auto',
  temperature: 0,
  seed: 0,
  constrained: true,
};

const MAX_CUSTOM_MODEL = 2000;

/**
 * The runtime, its module loaded on first use: the worker client and the manifest's schemas stay
 * out of the entry chunk (the model runtime itself only ever loads in the worker).
 */
const runtime = (): Promise<OrchestratorRuntime> =>
  import('../services/orchestrator.ts').then((m) => m.orchestratorRuntime());

/** A runtime call that never rejects: a module or worker that cannot start is a problem too. */
async function call<T>(f: (rt: OrchestratorRuntime) => Promise<Result<T>>): Promise<Result<T>> {
  try {
    return await f(await runtime());
  } catch (e) {
    return fail(problemOf('E_WORKER_UNAVAILABLE', errorText(e)));
  }
}
const MAX_QUERY = 20_000;

/** The draft's model as a load request, or what is wrong with it. */
export function loadRequestOf(
  d: OrchDraft,
): { ok: true; req: LoadRequest; label: string } | { ok: false; message: string } {
  const req = (model: string): LoadRequest => ({ model, device: d.device, dtype: d.dtype });
  if (d.modelKind === 'custom') {
    const ref = d.customModel.trim();
    if (ref === '') return { ok: false, message: 'enter a hub model id (owner/name) or a model URL' };
    if (ref.length > MAX_CUSTOM_MODEL) return { ok: false, message: 'the model id or URL is too long' };
    if (!/^https?:\/\//i.test(ref) && !/^[\w.-]+\/[\w.-]+$/.test(ref))
      return {
        ok: false,
        message: `"${ref.slice(0, 200)}" is neither a hub id (owner/name) nor an http(s) URL`,
      };
    return { ok: true, req: req(ref), label: ref };
  }
  if (d.modelId === '') return { ok: false, message: 'choose a model' };
  return { ok: true, req: req(d.modelId), label: d.modelId };
}

/** The draft's task, or what is missing. */
export function orchTaskOf(d: OrchDraft): { ok: true; task: OrchTask } | { ok: false; message: string } {
  if (d.taskMode === 'masbench') {
    const g = generateBench(d.bench);
    return g.task
      ? { ok: true, task: { kind: 'masbench', task: g.task } }
      : { ok: false, message: g.error ?? 'The MASBench task could not be generated.' };
  }
  const q = d.query.trim();
  if (q === '') return { ok: false, message: 'Write the task, or generate a MASBench task.' };
  if (q.length > MAX_QUERY) return { ok: false, message: `The task is longer than ${MAX_QUERY} characters.` };
  return { ok: true, task: { kind: 'custom', query: q } };
}

export const orchQueryOf = (t: OrchTask): string => (t.kind === 'masbench' ? t.task.question : t.query);

/** What keeps Orchestrate disabled, in words; empty when it can start. */
export function orchestrateBlockers(s: BatonState): string[] {
  const out: string[] = [];
  if (s.orchDraft.orchestrator === 'provider') out.push(...providerOrchestratorBlockers(s));
  else if (s.orchLoad.status === 'loading') out.push('The model is loading.');
  else if (s.orchLoad.status !== 'ready') out.push('Load a model first.');
  if (s.orchGen?.status === 'running') out.push('The model is writing.');
  const t = orchTaskOf(s.orchDraft);
  if (!t.ok) out.push(t.message);
  return out;
}

/** The finished generation's valid design, or null. */
/** A generation that starts now: nothing written, no result yet. */
export function runningGeneration(
  task: OrchTask,
  model: OrchGeneration['model'],
  settings: OrchGeneration['settings'],
): OrchGeneration {
  return {
    status: 'running',
    task,
    model,
    settings,
    text: '',
    tokens: 0,
    startedAt: Date.now(),
    firstTokenAt: null,
    endedAt: null,
    result: null,
    problems: [],
    check: null,
  };
}

export const orchDesignOf = (g: OrchGeneration | null): Design | null =>
  g && g.status !== 'running' ? (g.result?.design ?? null) : null;

/** Why the simulator refuses a design written for the user's own question. */
export const SIMULATOR_MASBENCH_ONLY = 'The simulator runs generated MASBench tasks only.';

/** What keeps the finished design from running on `target`, in words; empty when it can. */
export function orchRunBlockers(s: BatonState, target: 'simulator' | 'provider'): string[] {
  const g = s.orchGen;
  if (!g || g.status === 'running') return ['Orchestrate first.'];
  if (s.orchRun.status === 'running') return ['A run is in progress.'];
  if (!orchDesignOf(g)) return ['There is no valid design to run (the problems are listed above).'];
  if (target === 'simulator') return g.task.kind === 'masbench' ? [] : [SIMULATOR_MASBENCH_ONLY];
  return providerBlockers(s);
}

/** Decode speed: the runtime's figure when it has answered, else tokens after the first over the time since it. */
export function tokensPerSecond(g: OrchGeneration, now: number): number | null {
  if (g.result) return g.result.timings.tokensPerSecond;
  if (g.firstTokenAt === null || g.tokens < 2) return null;
  const ms = (g.endedAt ?? now) - g.firstTokenAt;
  return ms > 0 ? ((g.tokens - 1) * 1000) / ms : null;
}

/** Constrained decoding's counts from the designer record (`maskedSteps`, `forcedTokens`, …). */
export function constraintStatsOf(g: OrchGeneration): Record<string, number> | null {
  const d = g.result?.designer;
  return d && d.kind === 'orchestrator' && d.constraint ? d.constraint : null;
}

/**
 * The check of what was written, in words. With the worker's answer, its reading is the one that
 * counts (a model's own format, e.g. the tiny model's compact XML, is read and expanded by its
 * format adapter): its parse errors and broken rules, or its problem. Without an answer (the
 * worker died), the text that streamed in is read as MAS-Orchestra XML.
 */
function checkOf(text: string, dom: DomPref, result: GenerationResult | null): OrchGeneration['check'] {
  if (result) {
    if (result.design) return { valid: true, lines: [] };
    const errors = result.designer.kind === 'orchestrator' ? result.designer.parseErrors : [];
    const lines =
      errors.length > 0
        ? [...errors]
        : result.problem
          ? [result.problem.message]
          : ['The output is not a design.'];
    return { valid: false, lines };
  }
  const report = parseDesign(text, dom === 'auto' ? undefined : dom);
  return { valid: false, lines: formatReport(report) };
}

/** The trace a run of the generated design starts from; its designer is the worker's record. */
export function orchTraceOf(g: OrchGeneration, design: Design, createdAt: string, where: string): Trace {
  const query = orchQueryOf(g.task);
  const mb = g.task.kind === 'masbench' ? g.task.task : null;
  const what = mb ? `${mb.axis} ${mb.value} (seed ${mb.seed})` : (query.split('\n')[0] ?? '').slice(0, 48);
  const designer: Designer = g.result?.designer ?? {
    kind: 'orchestrator',
    model: g.model?.id ?? g.provider?.model ?? 'unknown',
    rawOutput: g.text,
    parseErrors: [],
  };
  const base = minimalTrace({
    query,
    createdAt,
    id: traceIdFrom(query, g.text, createdAt),
    title: ['Orchestrate', what, g.model?.id ?? g.provider?.model ?? '', where].join(' · '),
    designer,
  });
  return { ...base, task: mb ? taskOfMasbench(mb) : base.task, design };
}

const withFile = (files: FileProgress[], p: FileProgress): FileProgress[] => {
  const i = files.findIndex((f) => f.file === p.file);
  if (i < 0) return [...files, p];
  const next = files.slice();
  next[i] = p;
  return next;
};

export const createOrchestrateSlice: SliceCreator<OrchestrateSlice> = (set, get) => {
  let runAbort: AbortController | null = null;
  let loadSeq = 0;
  return {
    orchDraft: DEFAULT_ORCH_DRAFT,
    orchModels: { status: 'idle' },
    orchLoad: { status: 'idle' },
    orchGen: null,
    orchRun: { status: 'idle', target: null, problems: [], progress: null },
    orchCache: { status: 'idle' },

    async initOrchestrate() {
      const m = get().orchModels.status;
      if (m === 'loading' || m === 'ready') return;
      set({ orchModels: { status: 'loading' } });
      const answer = await call((rt) => rt.manifest());
      if (!answer.ok) {
        set({ orchModels: { status: 'error', problems: answer.errors } });
        return;
      }
      const { entries, warnings, defaultId } = answer.value;
      set({ orchModels: { status: 'ready', entries, warnings } });
      const d = get().orchDraft;
      if (d.modelId === '' || !entries.some((e) => e.id === d.modelId))
        get().setOrchDraft({ modelId: defaultId });
    },

    setOrchDraft(patch) {
      set((s) => ({ orchDraft: { ...s.orchDraft, ...patch } }));
    },

    setOrchBench(patch) {
      set((s) => ({ orchDraft: { ...s.orchDraft, bench: { ...s.orchDraft.bench, ...patch } } }));
    },

    async loadOrchModel() {
      if (get().orchLoad.status === 'loading' || get().orchGen?.status === 'running') return;
      const lr = loadRequestOf(get().orchDraft);
      if (!lr.ok) {
        set({
          orchLoad: {
            status: 'error',
            label: '',
            problems: [problemOf('E_MODEL_SPEC', lr.message)],
            files: [],
          },
        });
        return;
      }
      const seq = ++loadSeq;
      let files: FileProgress[] = [];
      let stage: string | null = null;
      set({ orchLoad: { status: 'loading', label: lr.label, files, stage } });
      const view = createThrottle(() => {
        const l = get().orchLoad;
        if (seq === loadSeq && l.status === 'loading') set({ orchLoad: { ...l, files, stage } });
      }, 100);
      const answer = await call((rt) =>
        rt.load(lr.req, {
          onProgress: (p) => {
            if (p.kind === 'file') files = withFile(files, p.file);
            else stage = p.message;
            view.request();
          },
        }),
      );
      view.cancel();
      if (seq !== loadSeq) return;
      set({
        orchLoad: answer.ok
          ? { status: 'ready', label: lr.label, model: answer.value, files }
          : { status: 'error', label: lr.label, problems: answer.errors, files },
      });
    },

    async clearOrchCache() {
      set({ orchCache: { status: 'clearing' } });
      const answer = await call((rt) => rt.clearCache());
      set({
        orchCache: answer.ok
          ? { status: 'cleared', removed: answer.value.removed }
          : { status: 'error', problems: answer.errors },
      });
    },

    async startOrchestrate() {
      const s = get();
      if (orchestrateBlockers(s).length > 0) return;
      const t = orchTaskOf(s.orchDraft);
      if (!t.ok) return;
      const d = s.orchDraft;
      const settings = { dom: d.dom, temperature: d.temperature, seed: d.seed, constrained: d.constrained };
      if (d.orchestrator === 'provider')
        return import('./orchestrate-provider-run.ts').then(({ startProviderDesign }) =>
          startProviderDesign(get, set, t.task, orchQueryOf(t.task), {
            ...settings,
            constrained: false,
          }),
        );
      if (s.orchLoad.status !== 'ready') return;
      let gen = runningGeneration(t.task, s.orchLoad.model, settings);
      const startedAt = gen.startedAt;
      set({ orchGen: gen, orchRun: { status: 'idle', target: null, problems: [], progress: null } });
      const mine = (): boolean => get().orchGen?.startedAt === startedAt;
      // The page redraws at most ~20 times a second however fast tokens come.
      const view = createThrottle(() => {
        if (mine()) set({ orchGen: gen });
      }, 50);
      const answer = await call((rt) =>
        rt.generate(
          { query: orchQueryOf(t.task), ...settings },
          {
            onProgress: (p) => {
              gen = {
                ...gen,
                text: gen.text + p.delta,
                tokens: p.tokens,
                firstTokenAt: gen.firstTokenAt ?? (p.tokens > 0 ? Date.now() : null),
              };
              view.request();
            },
          },
        ),
      );
      view.cancel();
      const endedAt = Date.now();
      if (answer.ok) {
        const res = answer.value;
        gen = {
          ...gen,
          // The answer's text is the whole output; the streamed text is what arrived of it.
          text: res.rawOutput,
          tokens: res.timings.tokens,
          result: res,
          endedAt,
          status: res.stopReason === 'interrupted' ? 'interrupted' : 'done',
          check: checkOf(res.rawOutput, d.dom, res),
        };
      } else {
        // The worker failed or crashed: what streamed in is kept and checked all the same.
        gen = {
          ...gen,
          endedAt,
          status: 'error',
          problems: answer.errors,
          check: gen.text === '' ? null : checkOf(gen.text, d.dom, null),
        };
      }
      if (mine()) set({ orchGen: gen });
    },

    interruptOrchestrate() {
      if (get().orchGen?.status === 'running' && interruptProviderDesign()) return;
      if (get().orchGen?.status === 'running')
        void runtime()
          .then((rt) => rt.interrupt())
          .catch(() => undefined);
    },

    async runOrchestrated(target) {
      const s = get();
      const g = s.orchGen;
      const design = orchDesignOf(g);
      const code = target === 'provider' ? 'E_PROVIDER' : 'E_SIMULATOR';
      const failRun = (problems: Problem[]): null => {
        set({ orchRun: { status: 'error', target, problems, progress: null } });
        return null;
      };
      const blockers = orchRunBlockers(s, target);
      if (blockers.length > 0 || !g || !design) return failRun(blockers.map((b) => problemOf(code, b)));
      const createdAt = new Date().toISOString();
      const save = (t: Trace): Promise<void> =>
        get().rememberTraces([{ trace: t, source: 'app', sourceLabel: 'Orchestrate page' }]);
      const idle: OrchRun = { status: 'idle', target, problems: [], progress: null };
      set({ orchRun: { status: 'running', target, problems: [], progress: null } });
      try {
        if (g.task.kind === 'masbench' && target === 'simulator') {
          const trace = orchTraceOf(g, design, createdAt, 'simulated');
          const r = await runOnSimulator(trace, g.task.task, g.task.task.seed);
          if (!r.ok) return failRun(r.errors);
          await save(r.value);
          set({ orchRun: idle });
          return r.value.id;
        }
        const remote = remoteSpecOf(s);
        if (!remote) return failRun([problemOf(code, 'set up a provider in Settings')]);
        const trace = orchTraceOf(g, design, createdAt, remote.model);
        runAbort = new AbortController();
        const total = design.agents.length;
        let finished = 0;
        set({ orchRun: { status: 'running', target, problems: [], progress: { done: 0, total } } });
        const final = await executeRun({
          trace: { ...trace, execution: { ...trace.execution, status: 'running', startedAt: createdAt } },
          backend: remote,
          budget: budgetAfterDesign(runBudgetOf(s), g),
          concurrency: s.concurrency,
          signal: runAbort.signal,
          save,
          onEvent: (e) => {
            if (e.type === 'agent.end' || e.type === 'agent.error')
              set({
                orchRun: { status: 'running', target, problems: [], progress: { done: ++finished, total } },
              });
          },
        });
        set({ orchRun: idle });
        return final.id;
      } catch (e) {
        return failRun([problemOf(code, errorText(e))]);
      } finally {
        runAbort = null;
      }
    },

    stopOrchRun() {
      runAbort?.abort();
    },
  };
};
