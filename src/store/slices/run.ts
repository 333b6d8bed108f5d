import {
  AXES,
  MAX_AXIS_VALUE,
  MIN_AXIS_VALUE,
  generateTask,
  type Axis,
  type MasBenchTask,
} from '../../masbench/index.ts';
import { AGENT_TYPE_INFO, type AgentType } from '../../core/agents.ts';
import { minimalTrace, traceIdFrom } from '../../core/trace-builders.ts';
import type { Design, Designer, Task, Trace } from '../../core/trace.ts';
import { parseDesign } from '../../design/parse.ts';
import type { RawAgent, RawDesign } from '../../design/raw.ts';
import { referencesIn } from '../../design/references.ts';
import { fromDesign, toDesign, validateDesign, type Violation } from '../../design/validate.ts';
import {
  activeRunMarker,
  createThrottle,
  executeRun,
  markActiveRun,
  type BackendSpec,
} from '../services/runner.ts';
import type { BatonState, SliceCreator } from '../store.ts';
import { providerBlockers, remoteSpecOf, runBudgetOf } from './settings.ts';

export { AXES, MAX_AXIS_VALUE, MIN_AXIS_VALUE };
export type { Axis, MasBenchTask, Violation };

export type TaskMode = 'custom' | 'masbench';
export type DesignMode = 'trace' | 'paste' | 'draw';
export type BackendMode = 'provider' | 'simulator';

export interface BenchChoice {
  axis: Axis;
  /** MIN_AXIS_VALUE..MAX_AXIS_VALUE. */
  value: number;
  /** Unsigned 32-bit integer. */
  seed: number;
}

/** A design drawn by hand: raw agents (validated live), edges, and where each node sits. */
export interface Draft {
  agents: RawAgent[];
  edges: { from: string; to: string }[];
  positions: Record<string, { x: number; y: number }>;
}

export type DesignTraceLoad =
  | { status: 'idle' }
  | { status: 'loading'; id: string }
  | { status: 'ready'; trace: Trace }
  | { status: 'error'; id: string; message: string };

/** What the chosen design amounts to now: the design when valid, else everything wrong with it. */
export interface DesignCheck {
  design: Design | null;
  /** Reading problems (XML/JSON) and "nothing chosen yet". */
  problems: string[];
  violations: Violation[];
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
  backendMode: BackendMode;
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

/** The draft as a raw design: low Degree of MAS for a lone agent, high otherwise. */
export function draftDesign(draft: Draft): RawDesign {
  return {
    dom: draft.agents.length <= 1 && draft.edges.length === 0 ? 'low' : 'high',
    agents: draft.agents,
    edges: draft.edges,
  };
}

export function checkRaw(raw: RawDesign): DesignCheck {
  const violations = validateDesign(raw);
  return { design: violations.length === 0 ? toDesign(raw) : null, problems: [], violations };
}

/** Validates whichever design the page has chosen, with the same validator as files and the CLI. */
export function checkDesign(
  s: Pick<RunSlice, 'designMode' | 'designTrace' | 'designText' | 'draft'>,
): DesignCheck {
  switch (s.designMode) {
    case 'trace':
      if (s.designTrace.status !== 'ready')
        return { design: null, problems: ['Choose a trace whose design to run.'], violations: [] };
      return checkRaw(fromDesign(s.designTrace.trace.design));
    case 'paste': {
      if (s.designText.trim() === '')
        return { design: null, problems: ['Paste a design (XML or JSON).'], violations: [] };
      const report = parseDesign(s.designText);
      // Text the reader skips over entirely (e.g. a broken tag) can come back as an empty design:
      // there is nothing to run, so say so instead of showing an empty problem list.
      if (report.design && report.design.agents.length === 0 && report.design.directAnswer === undefined)
        return { design: null, problems: ['No agent could be read from this text.'], violations: [] };
      return { design: report.design, problems: report.problems, violations: report.violations };
    }
    case 'draw':
      if (s.draft.agents.length === 0)
        return { design: null, problems: ['Add at least one agent.'], violations: [] };
      return checkRaw(draftDesign(s.draft));
  }
}

/** The run's events so far when `trace` was saved mid-run and no live run owns it; else null. */
export function interruptedAt(trace: Trace, liveRunId: string | null): number | null {
  return trace.execution.status === 'running' && trace.id !== liveRunId
    ? trace.execution.events.length
    : null;
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
    out.push(n === 1 ? 'The design has a problem (see below).' : `The design has ${n} problems (see below).`);
  }
  if (s.backendMode === 'simulator') {
    if (s.taskMode !== 'masbench') out.push('The simulator runs generated MASBench tasks only.');
  } else out.push(...providerBlockers(s));
  return out;
}

const TYPE_PREFIX: Record<AgentType, string> = {
  CoTAgent: 'cot',
  SCAgent: 'sc',
  DebateAgent: 'debate',
  ReflexionAgent: 'reflexion',
  WebSearchAgent: 'search',
  ExtractAgent: 'extract',
  CEOAgent: 'ceo',
  SummarizerAgent: 'summary',
};

const refToken = (id: string): string => `\${${id}}`;

function withoutRef(input: string, id: string): string {
  return input
    .split(refToken(id))
    .join('')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Where the k-th drawn agent first appears: three per row, in the editor's coordinates. */
function gridPosition(k: number): { x: number; y: number } {
  return { x: 20 + (k % 3) * 230, y: 20 + Math.floor(k / 3) * 100 };
}

const EMPTY_DRAFT: Draft = { agents: [], edges: [], positions: {} };

export const createRunSlice: SliceCreator<RunSlice> = (set, get) => {
  let controller: AbortController | null = null;

  const setDraft = (fn: (d: Draft) => Draft): void => set((s) => ({ draft: fn(s.draft) }));

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
    backendMode: 'provider',
    liveTrace: null,
    liveStreams: {},
    liveRunId: null,
    runProblem: null,
    interrupted: null,

    async initRun() {
      if (get().runReady) return;
      set({ runReady: true });
      get().initSettings();
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
      set({ designMode: mode });
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

    draftAddAgent(type) {
      const { draft } = get();
      const prefix = TYPE_PREFIX[type];
      let n = 1;
      while (draft.agents.some((a) => a.id === `${prefix}${n}`)) n += 1;
      const id = `${prefix}${n}`;
      const agent: RawAgent = {
        id,
        type,
        description: AGENT_TYPE_INFO[type].summary,
        input: '',
        ...(type === 'DebateAgent' ? { debateRoles: ['Proponent', 'Skeptic'] } : {}),
        params: {},
      };
      const k = draft.agents.length;
      setDraft((d) => ({
        agents: [...d.agents, agent],
        edges: d.edges,
        positions: { ...d.positions, [id]: gridPosition(k) },
      }));
      set({ draftSelected: id });
      return id;
    },

    draftUpdateAgent(id, patch) {
      const next = patch.id !== undefined ? patch.id.trim() : id;
      setDraft((d) => {
        if (next !== id && (next === '' || d.agents.some((a) => a.id === next))) return d;
        const rename = (x: string): string => (x === id ? next : x);
        const agents = d.agents.map((a) => {
          const updated = a.id === id ? { ...a, ...patch, id: next } : a;
          return next === id
            ? updated
            : { ...updated, input: updated.input.split(refToken(id)).join(refToken(next)) };
        });
        const positions = { ...d.positions };
        if (next !== id && positions[id]) {
          positions[next] = positions[id];
          delete positions[id];
        }
        return {
          agents,
          edges: d.edges.map((e) => ({ from: rename(e.from), to: rename(e.to) })),
          positions,
        };
      });
      if (next !== id && get().draftSelected === id && get().draft.agents.some((a) => a.id === next))
        set({ draftSelected: next });
    },

    draftRemoveAgent(id) {
      setDraft((d) => {
        const positions = { ...d.positions };
        delete positions[id];
        return {
          agents: d.agents.filter((a) => a.id !== id).map((a) => ({ ...a, input: withoutRef(a.input, id) })),
          edges: d.edges.filter((e) => e.from !== id && e.to !== id),
          positions,
        };
      });
      if (get().draftSelected === id) set({ draftSelected: null });
    },

    draftConnect(from, to) {
      setDraft((d) => {
        if (from === to || d.edges.some((e) => e.from === from && e.to === to)) return d;
        if (!d.agents.some((a) => a.id === from) || !d.agents.some((a) => a.id === to)) return d;
        return {
          ...d,
          edges: [...d.edges, { from, to }],
          agents: d.agents.map((a) =>
            a.id !== to || referencesIn(a.input).includes(from)
              ? a
              : {
                  ...a,
                  input: a.input.trim() === '' ? refToken(from) : `${a.input.trimEnd()}\n${refToken(from)}`,
                },
          ),
        };
      });
    },

    draftRemoveEdge(from, to) {
      setDraft((d) => ({
        ...d,
        edges: d.edges.filter((e) => !(e.from === from && e.to === to)),
        agents: d.agents.map((a) => (a.id === to ? { ...a, input: withoutRef(a.input, from) } : a)),
      }));
    },

    draftMoveAgent(id, position) {
      setDraft((d) => ({ ...d, positions: { ...d.positions, [id]: position } }));
    },

    draftSelect(id) {
      set({ draftSelected: id });
    },

    draftFromDesign(design) {
      const raw = fromDesign(design);
      const positions: Draft['positions'] = {};
      raw.agents.forEach((a, k) => {
        positions[a.id] = gridPosition(k);
      });
      set({
        draft: { agents: raw.agents, edges: raw.edges, positions },
        designMode: 'draw',
        draftSelected: null,
      });
    },

    setBackendMode(mode) {
      set({ backendMode: mode });
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
      const query = mb ? mb.question : s.customQuery;
      const groundTruth = mb ? mb.answers.join(', ') : s.customTruth.trim() || null;
      const createdAt = new Date().toISOString();
      const source: Task['source'] = mb
        ? { kind: 'masbench', axis: mb.axis, value: mb.value, taskId: mb.id }
        : { kind: 'custom' };
      const designer: Designer =
        s.designMode === 'trace' && s.designTrace.status === 'ready'
          ? s.designTrace.trace.designer
          : { kind: 'manual' };
      const base = minimalTrace({
        query,
        groundTruth,
        createdAt,
        id: traceIdFrom(query, JSON.stringify(design), createdAt),
        source,
        designer,
      });
      const trace: Trace = {
        ...base,
        task: { ...base.task, ...(mb ? { groundTruths: mb.answers.map(String), seed: mb.seed } : {}) },
        design,
        execution: { ...base.execution, status: 'running', startedAt: createdAt },
      };
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
