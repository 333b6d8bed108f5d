/**
 * The Build page's state: one construction episode (src/policy/episode.ts) stepped one action at a
 * time, with the page's own fields around it (the preview, the user's pick, auto-play, the run of
 * the finished design). The episode's pure functions take every step, undo, redo and result; the
 * slice only wires them to the compiled policy (services/policy-runtime.ts) and to the executor of
 * partial designs (services/runner.ts), and drops late answers of an earlier session.
 */
import type { Problem } from '../../core/result.ts';
import {
  deleteIndex,
  exitIndex,
  currentState,
  episodeDone,
  recordResult,
  redoStep,
  runFrame,
  startEpisode,
  stepSettings,
  takeStep,
  undoStep,
  DEFAULT_ACTION_REWARD,
} from '../../policy/index.ts';
import type { StepChoice, StepPreview } from '../../policy/index.ts';
import {
  COMPUTE_CHOICES,
  planOf,
  type BuildForm,
  type BuildPick,
  type BuildSession,
  type ComputeChoice,
} from '../construction.ts';
import { loadPref, savePref } from '../services/keys.ts';
import { policyProblem } from '../services/policy-checkpoints.ts';
import { loadPolicy, type PolicyRuntime } from '../services/policy-runtime.ts';
import { errorText } from '../services/problems.ts';
import { intermediateExecutorFor, type ConstructionExecution } from '../services/runner.ts';
import type { SliceCreator } from '../store.ts';
import { buildEnv } from './build-env.ts';
import { providerBlockers, remoteSpecOf, runBudgetOf } from './settings.ts';

export { configureBuild, type BuildEnv } from './build-env.ts';

/** Preference key: the compute backend the policy runs on (`auto`, `cpu`, `webgpu`). */
const COMPUTE_PREF = 'baton.build.compute';

const isCompute = (v: unknown): v is ComputeChoice => COMPUTE_CHOICES.includes(v as ComputeChoice);

const NO_PICK: BuildPick = { action: null, links: null };

/** How a step was drawn: from π^(1/τ), or the argmax with links p ≥ 0.5. */
export type BuildDecoding = 'sampled' | 'greedy';

export interface BuildSlice {
  buildForm: BuildForm;
  buildSession: BuildSession | null;
  /** Distributions for the next step of the current frame. */
  buildPreview: StepPreview | null;
  buildPick: BuildPick;
  /** How the policy drew each step of the session (index k = step k, frame k + 1): sampled or greedy. */
  buildDecodings: BuildDecoding[];
  /** True while a policy call or a step is in flight (controls are disabled). */
  buildBusy: boolean;
  buildLoading: boolean;
  buildProblems: Problem[];
  /** Wall time of recent policy steps, ms (newest last, at most 50). */
  buildStepMs: number[];

  setBuildForm(patch: Partial<BuildForm>): void;
  /** Reads the stored checkpoints and role pools and the kept compute choice. */
  initBuild(): Promise<void>;
  /** Generates or takes the task, compiles the policy, and opens an empty construction. */
  startBuild(): Promise<void>;
  /** One step: sampled (or greedy), with the current pick as the user's override. */
  buildStep(options?: { greedy?: boolean }): Promise<void>;
  /** Picks the next action (a bar of the distribution); picking it again clears the pick. */
  pickBuildAction(column: number | null): Promise<void>;
  /** Adds or removes a link of the next ADD (pins the previewed role when no role is picked). */
  toggleBuildLink(agentId: string): void;
  buildDelete(): Promise<void>;
  buildExit(): Promise<void>;
  undoBuild(): Promise<void>;
  redoBuild(): Promise<void>;
  /** Stops executing partial designs for the rest of this construction (cancels a run in flight). */
  stopBuildExecution(): void;
  dismissBuildProblems(): void;
}

const allowed = (p: StepPreview | null, col: number): boolean => p?.mask[col] === 1;

const choiceOf = (pick: BuildPick): StepChoice => ({
  ...(pick.action !== null ? { action: pick.action } : {}),
  ...(pick.links !== null ? { links: pick.links } : {}),
});

export const createBuildSlice: SliceCreator<BuildSlice> = (set, get) => {
  let runtime: PolicyRuntime | null = null;
  let runtimeKey = '';
  let encoding: ReturnType<PolicyRuntime['encode']> | null = null;
  let sessionCounter = 0;
  /** Runs the session's partial designs; replaced on every start, dropped when execution stops. */
  let execution: ConstructionExecution | null = null;
  let executionAbort: AbortController | null = null;

  const problem = (p: Problem[]): void => set({ buildProblems: p });

  /** The next step of the session's current frame under a pick (null after EXIT). */
  const previewOf = async (s: BuildSession, pick: BuildPick): Promise<StepPreview | null> => {
    const state = currentState(s);
    if (!runtime || !encoding || state.exited) return null;
    const role = pick.action !== null && pick.action < state.pool.roles.length ? pick.action : null;
    return runtime.preview(encoding, state, { ...stepSettings(s), role });
  };

  /** Re-evaluates the next step of the current frame (bars, candidate edges). */
  const refreshPreview = async (): Promise<void> => {
    const s = get().buildSession;
    if (!s) return;
    try {
      const p = await previewOf(s, get().buildPick);
      if (get().buildSession === s) set({ buildPreview: p });
    } catch (e) {
      problem([policyProblem('E_POLICY_STEP', errorText(e))]);
    }
  };

  /** Runs frame `index`'s partial MAS and records its answer, correctness, run and r_t. */
  const evaluateFrame = async (session: BuildSession, index: number): Promise<void> => {
    const frame = session.frames[index];
    if (!frame?.pending || !execution) return;
    const { executor, runner } = execution;
    const r = await runFrame(session, index, runner);
    if (r.run && (r.run.status === 'failed' || r.run.status === 'skipped'))
      problem([
        policyProblem(
          'E_INTERMEDIATE',
          `step ${(frame.step?.index ?? 0) + 1}: ${r.run.problem ?? 'the partial MAS gave no answer'}`,
        ),
      ]);
    const s = get().buildSession;
    if (!s || s.id !== session.id || s.frames[index] !== frame) return;
    set({
      buildSession: {
        ...recordResult(s, index, r),
        spend: s.execute === 'provider' ? executor.usage() : s.spend,
      },
    });
  };

  const commit = async (choice: StepChoice, greedy: boolean): Promise<void> => {
    const s = get().buildSession;
    if (!s || !runtime || !encoding || get().buildBusy || episodeDone(s)) return;
    set({ buildBusy: true });
    try {
      const out = await runtime.step(encoding, currentState(s), stepSettings(s, greedy), choice);
      const cur = get().buildSession;
      if (!cur || cur.id !== s.id) return;
      const session = takeStep(cur, out);
      // The history tells sampled and greedy steps apart (a user's pick is `chooser: 'user'`); the
      // trace keeps the same steps as `baton construct`, so the page holds this beside the frames.
      const decodings: BuildDecoding[] = [
        ...get().buildDecodings.slice(0, session.cursor - 1),
        greedy ? 'greedy' : 'sampled',
      ];
      // The new frame and its preview land in one update, so the graph re-renders once per step.
      const preview = await previewOf(session, NO_PICK);
      set({
        buildSession: session,
        buildDecodings: decodings,
        buildPick: NO_PICK,
        buildPreview: preview,
        buildStepMs: [...get().buildStepMs, out.ms].slice(-50),
        buildProblems: [],
      });
      await evaluateFrame(session, session.cursor);
      // The state now holds the intermediate answer, which the policy reads: preview afresh.
      const after = get().buildSession;
      if (session.executes && after?.id === session.id && after.cursor === session.cursor)
        await refreshPreview();
    } catch (e) {
      problem([policyProblem('E_POLICY_STEP', errorText(e))]);
    } finally {
      set({ buildBusy: false });
    }
  };

  /** The compiled policy for the form, compiled again only when the checkpoint, pool or backend changed. */
  const policyFor = async (f: BuildForm): Promise<PolicyRuntime | null> => {
    const pool = get().buildPool;
    const prefer = buildEnv().prefer ?? f.compute;
    const key = JSON.stringify([f.policy, pool.version, prefer, get().buildCheckpointRevision]);
    if (runtime && runtimeKey === key) return runtime;
    const loaded = await loadPolicy(f.policy, { storage: buildEnv().storage, prefer, pool });
    if (!loaded.ok) {
      problem(loaded.errors);
      return null;
    }
    runtime?.dispose();
    runtime = loaded.value;
    runtimeKey = key;
    return runtime;
  };

  return {
    buildForm: {
      source: 'masbench',
      query: '',
      groundTruth: '',
      execute: 'simulator',
      rewards: { ...DEFAULT_ACTION_REWARD },
      axis: 'depth',
      value: 4,
      taskSeed: 1,
      policy: { kind: 'prior' },
      temperature: 1,
      seed: 0,
      compute: 'auto',
    },
    buildSession: null,
    buildPreview: null,
    buildPick: NO_PICK,
    buildDecodings: [],
    buildBusy: false,
    buildLoading: false,
    buildProblems: [],
    buildStepMs: [],

    setBuildForm(patch) {
      const next = { ...get().buildForm, ...patch };
      // The simulator runs generated tasks only: an own query switches it off unless asked for.
      if (patch.source === 'custom' && patch.execute === undefined && next.execute === 'simulator')
        next.execute = 'off';
      if (patch.compute !== undefined) savePref(COMPUTE_PREF, patch.compute);
      set({ buildForm: next });
    },

    async initBuild() {
      await get().initBuildCheckpoints();
      await get().initBuildPools();
      const compute = loadPref(COMPUTE_PREF);
      if (isCompute(compute)) set({ buildForm: { ...get().buildForm, compute } });
    },

    async startBuild() {
      get().setBuildAutoPlay(false);
      const f = get().buildForm;
      set({ buildLoading: true, buildProblems: [], buildPick: NO_PICK });
      try {
        const st = get();
        const remote = f.execute === 'provider' ? remoteSpecOf(st) : null;
        const checked = planOf(f, f.execute === 'provider' ? providerBlockers(st) : null);
        if (!checked.ok) {
          problem(checked.problems);
          return;
        }
        const { task, masbench, rewards } = checked.plan;
        if (f.execute === 'provider' && !remote) return;
        const policy = await policyFor(f);
        if (!policy) return;
        encoding = policy.encode(task.query);
        executionAbort?.abort();
        executionAbort = new AbortController();
        execution =
          f.execute === 'simulator' && masbench
            ? intermediateExecutorFor({ kind: 'simulated', task: masbench, seed: f.seed >>> 0 })
            : f.execute === 'provider' && remote
              ? intermediateExecutorFor(
                  { kind: 'remote', backend: remote, budget: runBudgetOf(st), concurrency: st.concurrency },
                  executionAbort.signal,
                )
              : null;
        const episode = startEpisode({
          task,
          policyName: policy.name,
          backend: policy.backend,
          seed: f.seed,
          temperature: f.temperature,
          executes: execution !== null,
          rewards,
          createdAt: buildEnv().now().toISOString(),
          pool: policy.pool,
          limits: { maxAgents: policy.maxAgents, maxSteps: policy.maxSteps },
        });
        set({
          buildSession: {
            ...episode,
            id: ++sessionCounter,
            masbench,
            backendReason: policy.reason,
            execute: execution ? f.execute : 'off',
            spend: null,
          },
          buildPreview: null,
          buildDecodings: [],
          buildStepMs: [],
        });
        await refreshPreview();
      } finally {
        set({ buildLoading: false });
      }
    },

    async buildStep(options = {}) {
      const pick = get().buildPick;
      if (pick.action !== null && !allowed(get().buildPreview, pick.action)) set({ buildPick: NO_PICK });
      await commit(choiceOf(get().buildPick), options.greedy === true);
    },

    async pickBuildAction(column) {
      const s = get().buildSession;
      if (!s || get().buildBusy || episodeDone(s)) return;
      if (column !== null && !allowed(get().buildPreview, column)) return;
      const { action, links } = get().buildPick;
      // Links toggled before a bar is clicked are kept: every role's candidates are the same agents.
      // Clicking the picked bar again unpicks the action only; `null` clears the whole pick.
      set({
        buildPick:
          column === null ? NO_PICK : column === action ? { action: null, links } : { action: column, links },
      });
      await refreshPreview();
    },

    toggleBuildLink(agentId) {
      const p = get().buildPreview;
      const s = get().buildSession;
      if (!p || !s || p.role === null || !p.edges.some((e) => e.from === agentId)) return;
      const pick = get().buildPick;
      const current = pick.links ?? p.sampledLinks;
      const links = current.includes(agentId) ? current.filter((l) => l !== agentId) : [...current, agentId];
      // Keep the state's agent order, so the recorded links read the same whichever order they were clicked.
      const state = currentState(s);
      const order = state.agents.map((a) => a.id);
      links.sort((a, b) => order.indexOf(a) - order.indexOf(b));
      const action = pick.action !== null && pick.action < state.pool.roles.length ? pick.action : p.role;
      set({ buildPick: { action, links } });
    },

    async buildDelete() {
      const s = get().buildSession;
      const col = s ? deleteIndex(currentState(s).pool) : -1;
      if (s && allowed(get().buildPreview, col)) await commit({ action: col }, false);
    },

    async buildExit() {
      const s = get().buildSession;
      const col = s ? exitIndex(currentState(s).pool) : -1;
      if (s && allowed(get().buildPreview, col)) await commit({ action: col }, false);
    },

    async undoBuild() {
      const s = get().buildSession;
      if (!s || s.cursor === 0 || get().buildBusy) return;
      get().setBuildAutoPlay(false);
      set({ buildSession: undoStep(s), buildPick: NO_PICK });
      await refreshPreview();
    },

    async redoBuild() {
      const s = get().buildSession;
      if (!s || s.cursor >= s.frames.length - 1 || get().buildBusy) return;
      set({ buildSession: redoStep(s), buildPick: NO_PICK });
      await refreshPreview();
    },

    stopBuildExecution() {
      const s = get().buildSession;
      if (!s || s.execute === 'off') return;
      executionAbort?.abort();
      execution = null;
      set({ buildSession: { ...s, execute: 'off', executes: false } });
    },

    dismissBuildProblems() {
      set({ buildProblems: [] });
    },
  };
};
