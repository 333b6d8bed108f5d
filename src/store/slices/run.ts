import {
  AXES,
  MAX_AXIS_VALUE,
  MIN_AXIS_VALUE,
  generateTask,
  type Axis,
  type MasBenchTask,
} from '../../masbench/index.ts';
import type { AgentType } from '../../core/agents.ts';
import type { Design, Trace } from '../../core/trace.ts';
import type { RawAgent } from '../../design/raw.ts';
import type { Violation } from '../../design/validate.ts';
import {
  activeRunMarker,
  createThrottle,
  executeRun,
  markActiveRun,
  type BackendSpec,
} from '../services/runner.ts';
import type { BatonState, SliceCreator } from '../store.ts';
import {
  checkDesign,
  pasteCarry,
  type DesignMode,
  type DesignTraceLoad,
  type Draft,
  type PasteCarry,
} from './run-design.ts';
import { createDraftActions, EMPTY_DRAFT } from './run-draft.ts';
import { runTraceOf } from './run-trace.ts';
import {
  PROVIDER_PRESETS,
  providerBlockers,
  remoteSpecOf,
  runBudgetOf,
  type SettingsSlice,
} from './settings.ts';

/**
 * The Run page's slice: task, design and backend choices, the live run and interrupted runs. The
 * design check lives in `run-design.ts`, the drawing editor's actions in `run-draft.ts`.
 */

export { AXES, MAX_AXIS_VALUE, MIN_AXIS_VALUE };
export type { Axis, MasBenchTask, Violation };
export { checkDesign, checkRaw, draftDesign } from './run-design.ts';
export { pasteCarry } from './run-design.ts';
export type {
  DesignCheck,
  DesignChoice,
  DesignMode,
  DesignTraceLoad,
  Draft,
  PasteCarry,
} from './run-design.ts';

export type TaskMode = 'custom' | 'masbench';
export type BackendMode = 'provider' | 'simulator';

export interface BenchChoice {
  axis: Axis;
  /** MIN_AXIS_VALUE..MAX_AXIS_VALUE. */
  value: number;
  /** Unsigned 32-bit integer. */
  seed: number;
}

export interface RunSlice {
  runReady: boolean;
  taskMode: TaskMode;
  customQuery: string;
  /** Optional; empty = not graded. */
  customTruth: string;
  bench: BenchChoice;
  /** The MASBench task `bench` generates, or why it could not be generated. */
  benchTask: MasBenchTask | null;
  benchError: string | null;
  designMode: DesignMode;
  designTrace: DesignTraceLoad;
  designText: string;
  draft: Draft;
  draftSelected: string | null;
  /** What the last switch from Paste to Draw did with the pasted design; null = nothing to say. */
  pasteCarry: PasteCarry | null;
  backendMode: BackendMode;
  /** The user picked the backend (the page no longer picks it from the key's presence). */
  backendChosen: boolean;
  /** The trace of the run in progress, or of the last run shown on the page. */
  liveTrace: Trace | null;
  /** Output streaming in for each agent's call in flight; cleared when the call is recorded. */
  liveStreams: Record<string, { label: string; text: string }>;
  /** Non-null while this page runs a design: the trace id it owns. */
  liveRunId: string | null;
  runProblem: string | null;
  /** A run that was saved as `running` but that no live run owns (the page was reloaded mid-run). */
  interrupted: { traceId: string; events: number } | null;

  /** Marks a run left `running` by an earlier page load as interrupted; idempotent. */
  initRun(): Promise<void>;
  setTaskMode(mode: TaskMode): void;
  setCustomQuery(text: string): void;
  setCustomTruth(text: string): void;
  setBench(choice: Partial<BenchChoice>): void;
  setDesignMode(mode: DesignMode): void;
  /** Uses the design of a bundled example or a recent trace. */
  pickDesignTrace(id: string): Promise<void>;
  setDesignText(text: string): void;
  draftAddAgent(type: AgentType): string;
  /** Changes an agent; a new id is carried into edges and `${id}` references. */
  draftUpdateAgent(id: string, patch: Partial<RawAgent>): void;
  draftRemoveAgent(id: string): void;
  /** Adds the edge from→to and `${from}` to the target's input. */
  draftConnect(from: string, to: string): void;
  draftRemoveEdge(from: string, to: string): void;
  draftMoveAgent(id: string, position: { x: number; y: number }): void;
  draftSelect(id: string | null): void;
  /** Copies a design into the hand-drawn draft (to edit it in the graph). */
  draftFromDesign(design: Design): void;
  setBackendMode(mode: BackendMode): void;
  /** Replaces the drawing with the pasted design (after `pasteCarry` kept the drawing). */
  draftFromPaste(): void;
  /** Runs the chosen design; resolves with the trace id when the run ends, null if it could not start. */
  startRun(): Promise<string | null>;
  stopRun(): void;
  dismissInterrupted(): void;
}

const DEFAULT_BENCH: BenchChoice = { axis: 'depth', value: 3, seed: 1 };

export function generateBench(choice: BenchChoice): { task: MasBenchTask | null; error: string | null } {
  try {
    return { task: generateTask(choice), error: null };
  } catch (e) {
    return { task: null, error: e instanceof Error ? e.message : String(e) };
  }
}

/** The run's events so far when `trace` was saved mid-run and no live run owns it; else null. */
export function interruptedAt(trace: Trace, liveRunId: string | null): number | null {
  return trace.execution.status === 'running' && trace.id !== liveRunId
    ? trace.execution.events.length
    : null;
}

/**
 * The backend the page starts on: the simulator while the Settings provider needs a key and has
 * none (a run there could only fail), else the provider.
 */
export function defaultBackend(s: Pick<SettingsSlice, 'provider' | 'keyLocation'>): BackendMode {
  return PROVIDER_PRESETS[s.provider].needsKey && s.keyLocation === 'none' ? 'simulator' : 'provider';
}

/** Everything that keeps Run disabled, in words; empty when the run can start. */
export function runBlockers(s: BatonState): string[] {
  const out: string[] = [];
  if (s.liveRunId !== null) out.push('A run is in progress.');
  if (s.taskMode === 'custom' && s.customQuery.trim() === '') out.push('Write the task.');
  if (s.taskMode === 'masbench' && !s.benchTask) out.push(s.benchError ?? 'Generate a MASBench task.');
  const check = checkDesign(s);
  if (!check.design) {
    const n = check.problems.length + check.violations.length;
    // The problems are listed in the Design section, above the Run button.
    out.push(
      n === 1
        ? 'The design has a problem (listed under 2 · Design).'
        : `The design has ${n} problems (listed under 2 · Design).`,
    );
  }
  if (s.backendMode === 'simulator') {
    if (s.taskMode !== 'masbench') out.push('The simulator runs generated MASBench tasks only.');
  } else out.push(...providerBlockers(s));
  return out;
}

export const createRunSlice: SliceCreator<RunSlice> = (set, get) => {
  let controller: AbortController | null = null;

  return {
    runReady: false,
    taskMode: 'custom',
    customQuery: '',
    customTruth: '',
    bench: DEFAULT_BENCH,
    benchTask: null,
    benchError: null,
    designMode: 'paste',
    designTrace: { status: 'idle' },
    designText: '',
    draft: EMPTY_DRAFT,
    draftSelected: null,
    pasteCarry: null,
    backendMode: 'provider',
    backendChosen: false,
    liveTrace: null,
    liveStreams: {},
    liveRunId: null,
    runProblem: null,
    interrupted: null,

    async initRun() {
      get().initSettings();
      // Until the user picks a backend, the page picks it on every visit (a key may have been saved meanwhile).
      if (!get().backendChosen && get().liveRunId === null) {
        const mode = defaultBackend(get());
        set({ backendMode: mode });
        if (mode === 'simulator' && get().taskMode !== 'masbench') get().setTaskMode('masbench');
      }
      if (get().runReady) return;
      set({ runReady: true });
      const id = activeRunMarker();
      if (id === null || get().liveRunId !== null) return;
      markActiveRun(null);
      const trace = await get().ensureTrace(id);
      if (!trace) return;
      const events = interruptedAt(trace, get().liveRunId);
      if (events === null) return;
      const marked: Trace = trace.tags.includes('interrupted')
        ? trace
        : { ...trace, tags: [...trace.tags, 'interrupted'].slice(0, 32) };
      await get().rememberTraces([{ trace: marked, source: 'app', sourceLabel: 'run (interrupted)' }]);
      set({ interrupted: { traceId: id, events }, liveTrace: marked });
    },

    setTaskMode(mode) {
      set({ taskMode: mode });
      if (mode === 'masbench' && !get().benchTask) get().setBench({});
    },
    setCustomQuery(text) {
      set({ customQuery: text });
    },
    setCustomTruth(text) {
      set({ customTruth: text });
    },
    setBench(choice) {
      const bench = { ...get().bench, ...choice };
      const { task, error } = generateBench(bench);
      set({ bench, benchTask: task, benchError: error });
    },

    setDesignMode(mode) {
      const s = get();
      const carry = s.designMode === 'paste' && mode === 'draw' ? pasteCarry(s.designText, s.draft) : null;
      if (carry?.carry.kind === 'carried' && carry.design) get().draftFromDesign(carry.design);
      set({ designMode: mode, pasteCarry: carry?.carry ?? null });
    },
    draftFromPaste() {
      const carry = pasteCarry(get().designText, { agents: [], edges: [], positions: {} });
      if (!carry?.design) return;
      get().draftFromDesign(carry.design);
      set({ pasteCarry: carry.carry });
    },
    async pickDesignTrace(id) {
      set({ designTrace: { status: 'loading', id } });
      const trace = await get().ensureTrace(id);
      if (get().designTrace.status === 'loading' && (get().designTrace as { id: string }).id !== id) return;
      set({
        designTrace: trace
          ? { status: 'ready', trace }
          : { status: 'error', id, message: `The trace "${id}" could not be opened.` },
      });
    },
    setDesignText(text) {
      set({ designText: text });
    },

    ...createDraftActions(set, get),

    setBackendMode(mode) {
      set({ backendMode: mode, backendChosen: true });
      if (mode === 'simulator' && get().taskMode !== 'masbench') get().setTaskMode('masbench');
    },

    async startRun() {
      const s = get();
      const blockers = runBlockers(s);
      const design = checkDesign(s).design;
      if (blockers.length > 0 || !design) {
        set({ runProblem: blockers[0] ?? 'The design is not valid.' });
        return null;
      }
      const mb = s.taskMode === 'masbench' ? s.benchTask : null;
      const trace = runTraceOf(s, design, new Date().toISOString());
      let backend: BackendSpec;
      if (s.backendMode === 'simulator' && mb) {
        backend = { kind: 'simulated', task: mb, seed: s.bench.seed };
      } else {
        const remote = remoteSpecOf(s);
        if (!remote) return null;
        backend = remote;
      }

      controller = new AbortController();
      markActiveRun(trace.id);
      set({ liveRunId: trace.id, liveTrace: trace, liveStreams: {}, runProblem: null, interrupted: null });
      // The page redraws at most ~10 times a second however fast events come; agent ends show at once.
      let shown: Trace = trace;
      let streams: Record<string, { label: string; text: string }> = {};
      const view = createThrottle(() => {
        if (get().liveRunId === trace.id) set({ liveTrace: shown, liveStreams: streams });
      }, 100);
      try {
        const final = await executeRun({
          trace,
          backend,
          budget: runBudgetOf(s),
          concurrency: s.concurrency,
          signal: controller.signal,
          save: (t) => get().rememberTraces([{ trace: t, source: 'app', sourceLabel: 'run' }]),
          onDelta: (agentId, label, text) => {
            streams = { ...streams, [agentId]: { label, text } };
            view.request();
          },
          onEvent: (event, snapshot) => {
            shown = snapshot;
            if (
              'agentId' in event &&
              event.agentId in streams &&
              event.type !== 'agent.start' &&
              event.type !== 'agent.note'
            ) {
              const { [event.agentId]: _done, ...rest } = streams;
              streams = rest;
            }
            if (event.type === 'agent.end' || event.type === 'agent.error') view.flush();
            else view.request();
          },
        });
        view.cancel();
        set({ liveTrace: final, liveRunId: null, liveStreams: {} });
        return final.id;
      } catch (e) {
        view.cancel();
        set({
          liveRunId: null,
          runProblem: `The run stopped unexpectedly: ${e instanceof Error ? e.message : String(e)}`,
        });
        return null;
      } finally {
        markActiveRun(null);
        controller = null;
      }
    },

    stopRun() {
      controller?.abort();
    },

    dismissInterrupted() {
      set({ interrupted: null });
    },
  };
};
