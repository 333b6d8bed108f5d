/**
 * The Build page's state: a MasHost construction stepped one action at a time. The history is a
 * plain array of immutable construction states (`frames`) with a cursor, so undo and redo only move
 * the cursor; a new step after an undo drops the frames after it. Policy calls and simulator runs go
 * through `services/policy.ts`.
 */
import {
  AXES,
  MAX_AXIS_VALUE,
  MIN_AXIS_VALUE,
  generateTask,
  taskOfMasbench,
  type Axis,
  type MasBenchTask,
} from '../../masbench/index.ts';
import type { Problem } from '../../core/result.ts';
import type { ConstructionStep, Design, Task, Trace } from '../../core/trace.ts';
import { minimalTrace, traceIdFrom } from '../../core/trace-builders.ts';
import { actionCount, deleteIndex, exitIndex } from '../../policy/actions.ts';
import {
  SUMMARIZER_ID,
  initialState,
  toValidDesign,
  withResult,
  type ConstructionState,
} from '../../policy/construction.ts';
import type { TaskEncoding } from '../../policy/encoder.ts';
import {
  actionReward,
  ActionRewardConfigSchema,
  DEFAULT_ACTION_REWARD,
  type ActionRewardConfig,
} from '../../policy/rewards.ts';
import type { IntermediateExecutor, IntermediateUsage } from '../../executor/intermediate.ts';
import type { StepChoice } from '../../policy/step-types.ts';
import {
  DEFAULT_POOL,
  ROLE_POOL_VERSION,
  headChange,
  withContentVersion,
  type RolePool,
} from '../../policy/roles.ts';
import { loadPref, savePref } from '../services/keys.ts';
import { idbRolePools, type RolePoolStorage, type RolePoolSummary } from '../services/roles.ts';
import type { SliceCreator } from '../store.ts';
import { readFileText, type TextSource } from '../services/files.ts';
import {
  checkpointFromText,
  idbCheckpoints,
  loadPolicy,
  intermediateExecutorFor,
  policyProblem,
  runOnSimulator,
  serializeCheckpointFor,
  type CheckpointStorage,
  type PolicyRuntime,
  type PolicySpec,
  type StepPreview,
} from '../services/policy.ts';
import { errorText } from '../services/problems.ts';
import { executeRun } from '../services/runner.ts';
import { providerBlockers, remoteSpecOf, runBudgetOf } from './settings.ts';
import type { BackendPreference } from '../../gpu/select.ts';

export type { PolicySpec, StepPreview } from '../services/policy.ts';
export type { RolePoolSummary } from '../services/roles.ts';
export type { IntermediateUsage } from '../../executor/intermediate.ts';
export type { Axis } from '../../masbench/index.ts';
export type { BackendPreference } from '../../gpu/select.ts';
export { actionNames } from '../../policy/actions.ts';
export { AXES, MAX_AXIS_VALUE, MIN_AXIS_VALUE };

/** The generated task the form describes (for showing its question and ground truth), or why not. */
export function formTask(f: Pick<BuildForm, 'axis' | 'value' | 'taskSeed'>): MasBenchTask | string {
  try {
    return generateTask({ axis: f.axis, value: f.value, seed: f.taskSeed });
  } catch (e) {
    return errorText(e);
  }
}

/** Preference key: the version of the role pool in use. */
const POOL_PREF = 'baton.build.roles';
/** Preference key: the compute backend the policy runs on (`auto`, `cpu`, `webgpu`). */
const COMPUTE_PREF = 'baton.build.compute';

const COMPUTE_CHOICES: readonly BackendPreference[] = ['auto', 'cpu', 'webgpu'];
const isCompute = (v: unknown): v is BackendPreference => COMPUTE_CHOICES.includes(v as BackendPreference);

/** Auto-play delays between steps, ms (the speed control). */
export const BUILD_SPEEDS = [1200, 600, 250, 60] as const;

/**
 * Where each step's partial MAS runs for its intermediate answer: nowhere, on the simulator
 * (generated tasks only), or on the provider configured in Settings.
 */
export type BuildExecute = 'off' | 'simulator' | 'provider';

/** What the user sets up before building. */
export interface BuildForm {
  source: 'custom' | 'masbench';
  query: string;
  /** Expected answer of an own query (empty = unknown: answers are not graded, no rewards). */
  groundTruth: string;
  execute: BuildExecute;
  /** Action-wise reward constants (DESIGN.md "Rewards"). */
  rewards: ActionRewardConfig;
  axis: Axis;
  value: number;
  taskSeed: number;
  policy: PolicySpec;
  temperature: number;
  /** Sampling seed: step t draws from `stepRng(seed, t)`, so overrides never shift later draws. */
  seed: number;
  /**
   * Where the policy's network runs: `auto` takes WebGPU on a hardware adapter and the CPU
   * otherwise (src/gpu/select.ts); `cpu` or `webgpu` force one. Kept on this device.
   */
  compute: BackendPreference;
}

/** One position in the construction history: the state after `step` (the first frame has none). */
export interface BuildFrame {
  state: ConstructionState;
  step: ConstructionStep | null;
  /** Intermediate correctness after this frame (the empty MAS counts as wrong); null when unknown. */
  correct: boolean | null;
  /** True while this frame's partial MAS runs for its intermediate answer. */
  evaluating: boolean;
  /** What the graph shows (`visibleDesign`), computed once per frame so views can rely on its identity. */
  design: Design | null;
}

export interface BuildSession {
  /** Changes on every start, so late results of an earlier session are dropped. */
  id: number;
  task: Task;
  /** The generated task (ground truth per sub-task, the simulator's input); null for a custom query. */
  masbench: MasBenchTask | null;
  policyName: string;
  backend: 'cpu' | 'webgpu';
  backendReason: string;
  seed: number;
  temperature: number;
  execute: BuildExecute;
  rewards: ActionRewardConfig;
  /** Fresh spend of the intermediate runs so far (provider only; the simulator is free). */
  spend: IntermediateUsage | null;
  /** frames[0] is the empty MAS; frames[1..cursor] are the steps taken; later frames are for redo. */
  frames: BuildFrame[];
  cursor: number;
  createdAt: string;
}

/** The user's override for the next step (recorded with chooser `user`). */
export interface BuildPick {
  /** Node-head column, or null to let the policy choose. */
  action: number | null;
  /** Links of an ADD, or null to let the policy choose. */
  links: string[] | null;
}

const NO_PICK: BuildPick = { action: null, links: null };

export interface BuildSlice {
  buildForm: BuildForm;
  /** Names of the checkpoints kept in this browser. */
  buildCheckpoints: string[];
  buildSession: BuildSession | null;
  /** Distributions for the next step of the current frame. */
  buildPreview: StepPreview | null;
  buildPick: BuildPick;
  /** True while a policy call or a step is in flight (controls are disabled). */
  buildBusy: boolean;
  buildLoading: boolean;
  buildProblems: Problem[];
  buildAutoPlay: boolean;
  /** Delay between auto-play steps, ms (one of BUILD_SPEEDS). */
  buildSpeed: number;
  /** Wall time of recent policy steps, ms (newest last, at most 50). */
  buildStepMs: number[];
  buildRunning: boolean;
  /** Agents finished / in the design, while the finished design runs on a provider. */
  buildRunProgress: { done: number; total: number } | null;
  /** The role pool the next construction chooses from (its version is content-derived). */
  buildPool: RolePool;
  /** Role pools kept in this browser. */
  buildPools: RolePoolSummary[];

  setBuildForm(patch: Partial<BuildForm>): void;
  /** Reads the stored checkpoint names. */
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
  setBuildAutoPlay(on: boolean): void;
  setBuildSpeed(ms: number): void;
  /** Loads a checkpoint file, keeps it in storage and selects it. */
  loadCheckpointFile(file: TextSource): Promise<void>;
  /**
   * Stores the construction as a trace, executed on `target` (`simulator`: generated tasks;
   * `provider`: the Settings provider; `none`: the construction alone); returns its id.
   */
  runBuild(target?: 'simulator' | 'provider' | 'none'): Promise<string | null>;
  /** Stops the provider run of the finished design (the trace keeps what finished). */
  stopBuildRun(): void;
  /** Stops executing partial designs for the rest of this construction (cancels a run in flight). */
  stopBuildExecution(): void;
  /** The selected checkpoint as a `baton.policy/1` file: name and text, or null with a problem. */
  exportBuildCheckpoint(): Promise<{ name: string; text: string } | null>;
  /** Forgets a checkpoint kept in this browser. */
  removeCheckpoint(name: string): Promise<void>;
  /** Uses an edited role pool from the next start on, and keeps it in this browser. */
  applyBuildPool(pool: RolePool): Promise<void>;
  /** Uses a kept role pool (or the built-in one, `baton.roles/1`). */
  loadBuildPool(version: string): Promise<void>;
  dismissBuildProblems(): void;
}

/** Effects the build slice uses; tests swap them through `configureBuild`. */
export interface BuildEnv {
  storage: CheckpointStorage;
  pools: RolePoolStorage;
  /** Overrides the form's `compute` choice when set (tests pin the CPU). */
  prefer: BackendPreference | null;
  now: () => Date;
  /** Schedules the next auto-play step. */
  schedule: (fn: () => void, ms: number) => () => void;
}

let env: BuildEnv = {
  storage: idbCheckpoints(),
  pools: idbRolePools(),
  prefer: null,
  now: () => new Date(),
  schedule: (fn, ms) => {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
};

export function configureBuild(next: Partial<BuildEnv>): BuildEnv {
  const previous = env;
  env = { ...env, ...next };
  return previous;
}

// ---------------------------------------------------------------- pure functions

export const currentFrame = (s: BuildSession): BuildFrame => s.frames[s.cursor] as BuildFrame;

/** The steps taken so far (undone steps excluded). */
export function stepsOf(s: BuildSession): ConstructionStep[] {
  return s.frames.slice(1, s.cursor + 1).map((f) => f.step as ConstructionStep);
}

/** The construction so far as a trace (construction steps + the design the state stands for). */
export function sessionTrace(s: BuildSession): Trace {
  const state = currentFrame(s).state;
  const title = s.masbench
    ? `Build · ${s.masbench.axis} ${s.masbench.value} (seed ${s.masbench.seed}) · ${s.policyName}`
    : `Build · ${(s.task.query.trim().split('\n')[0] ?? '').slice(0, 60)}`;
  const steps = stepsOf(s);
  const base = minimalTrace({
    id: traceIdFrom('build', s.task.query, s.createdAt, s.policyName, String(s.seed), String(steps.length)),
    query: s.task.query,
    groundTruth: s.task.groundTruth,
    source: s.task.source,
    createdAt: s.createdAt,
    title,
    designer: {
      kind: 'policy',
      checkpoint: s.policyName,
      backend: s.backend,
      seed: s.seed,
      roles: state.pool.version,
      ...(s.execute !== 'off' ? { rewards: { ...s.rewards } } : {}),
    },
  });
  return {
    ...base,
    task: { ...s.task },
    construction: steps,
    design: toValidDesign(state) ?? base.design,
    tags: ['construction', 'build'],
  };
}

const allowed = (p: StepPreview | null, col: number): boolean => p?.mask[col] === 1;

// ---------------------------------------------------------------- slice

export const createBuildSlice: SliceCreator<BuildSlice> = (set, get) => {
  let runtime: PolicyRuntime | null = null;
  let runtimeKey = '';
  let encoding: TaskEncoding | null = null;
  let sessionCounter = 0;
  let cancelAuto: (() => void) | null = null;
  /** Runs the session's partial designs; replaced on every start. */
  let executor: IntermediateExecutor | null = null;
  let executionAbort: AbortController | null = null;
  let runAbort: AbortController | null = null;

  const problem = (p: Problem[]): void => set({ buildProblems: p });

  /** The next step of the session's current frame under a pick (null after EXIT). */
  const previewOf = async (s: BuildSession, pick: BuildPick): Promise<StepPreview | null> => {
    const frame = currentFrame(s);
    if (!runtime || !encoding || frame.state.exited) return null;
    const cols = actionCount(frame.state.pool);
    const role = pick.action !== null && pick.action < cols - 2 ? pick.action : null;
    return runtime.preview(encoding, frame.state, { seed: s.seed, temperature: s.temperature, role });
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

  /** Runs the new frame's partial MAS and records its answer, correctness, cost and r_t. */
  const evaluateFrame = async (session: BuildSession, index: number): Promise<void> => {
    const frame = session.frames[index];
    const prev = session.frames[index - 1];
    if (!frame?.step || !prev || session.execute === 'off' || !executor) return;
    const design = toValidDesign(frame.state);
    let answer: string | null = null;
    let correct: boolean | null = null;
    let run: NonNullable<ConstructionStep['intermediateRun']> | undefined;
    if (design) {
      const r = await executor.run(design, session.task);
      ({ answer, correct } = r);
      const { runs: _runs, ...usage } = r.usage;
      run = {
        backend: session.execute === 'provider' ? 'remote' : 'simulated',
        status: r.status,
        ...usage,
        ...(r.problem !== undefined ? { problem: r.problem } : {}),
      };
      if (r.status === 'failed' || r.status === 'skipped')
        problem([
          policyProblem(
            'E_INTERMEDIATE',
            `step ${frame.step.index + 1}: ${r.problem ?? 'the partial MAS gave no answer'}`,
          ),
        ]);
    }
    const reward = actionReward(prev.correct, correct, frame.step.index, session.rewards);
    const s = get().buildSession;
    if (!s || s.id !== session.id || s.frames[index] !== frame) return;
    const frames = [...s.frames];
    frames[index] = {
      state: withResult(frame.state, answer, correct),
      step: {
        ...frame.step,
        intermediateAnswer: answer,
        intermediateCorrect: correct,
        ...(run ? { intermediateRun: run } : {}),
        actionReward: reward,
      },
      correct,
      evaluating: false,
      design: frame.design,
    };
    set({
      buildSession: { ...s, frames, spend: s.execute === 'provider' ? executor.usage() : s.spend },
    });
  };

  const commit = async (choice: StepChoice, greedy: boolean): Promise<void> => {
    const s = get().buildSession;
    if (!s || !runtime || !encoding || get().buildBusy) return;
    const frame = currentFrame(s);
    if (frame.state.exited) return;
    set({ buildBusy: true });
    try {
      const out = await runtime.step(
        encoding,
        frame.state,
        { seed: s.seed, temperature: s.temperature, greedy },
        choice,
      );
      const cur = get().buildSession;
      if (!cur || cur.id !== s.id) return;
      const next: BuildFrame = {
        state: out.state,
        step: out.step,
        correct: null,
        evaluating: s.execute !== 'off',
        design: visibleDesign(out.state),
      };
      const frames = [...cur.frames.slice(0, cur.cursor + 1), next];
      const session = { ...cur, frames, cursor: frames.length - 1 };
      // The new frame and its preview land in one update, so the graph re-renders once per step.
      const preview = await previewOf(session, NO_PICK);
      set({
        buildSession: session,
        buildPick: NO_PICK,
        buildPreview: preview,
        buildStepMs: [...get().buildStepMs, out.ms].slice(-50),
        buildProblems: [],
      });
      await evaluateFrame(session, frames.length - 1);
      // The state now holds the intermediate answer, which the policy reads: preview afresh.
      const after = get().buildSession;
      if (session.execute !== 'off' && after?.id === session.id && after.cursor === frames.length - 1)
        await refreshPreview();
    } catch (e) {
      problem([policyProblem('E_POLICY_STEP', errorText(e))]);
    } finally {
      set({ buildBusy: false });
    }
  };

  const stopAuto = (): void => {
    cancelAuto?.();
    cancelAuto = null;
  };

  const autoTick = (): void => {
    cancelAuto = null;
    const st = get();
    const s = st.buildSession;
    if (!st.buildAutoPlay || !s || currentFrame(s).state.exited) {
      set({ buildAutoPlay: false });
      return;
    }
    void st.buildStep().then(() => {
      const after = get().buildSession;
      if (!get().buildAutoPlay) return;
      if (!after || currentFrame(after).state.exited) {
        set({ buildAutoPlay: false });
        return;
      }
      cancelAuto = env.schedule(autoTick, get().buildSpeed);
    });
  };

  /** Makes `pool` the pool of the next start; a checkpoint made for other roles is deselected. */
  const adoptPool = (pool: RolePool): void => {
    const f = get().buildForm;
    const changed = headChange(get().buildPool, pool) !== null;
    savePref(POOL_PREF, pool.version);
    set({
      buildPool: pool,
      buildProblems: [],
      ...(changed && f.policy.kind === 'checkpoint'
        ? { buildForm: { ...f, policy: { kind: 'prior' } } }
        : {}),
    });
  };

  const choiceOf = (pick: BuildPick): StepChoice => ({
    ...(pick.action !== null ? { action: pick.action } : {}),
    ...(pick.links !== null ? { links: pick.links } : {}),
  });

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
    buildCheckpoints: [],
    buildSession: null,
    buildPreview: null,
    buildPick: NO_PICK,
    buildBusy: false,
    buildLoading: false,
    buildProblems: [],
    buildAutoPlay: false,
    buildSpeed: BUILD_SPEEDS[1],
    buildStepMs: [],
    buildRunning: false,
    buildRunProgress: null,
    buildPool: DEFAULT_POOL,
    buildPools: [],

    setBuildForm(patch) {
      const next = { ...get().buildForm, ...patch };
      // The simulator runs generated tasks only: an own query switches it off unless asked for.
      if (patch.source === 'custom' && patch.execute === undefined && next.execute === 'simulator')
        next.execute = 'off';
      if (patch.compute !== undefined) savePref(COMPUTE_PREF, patch.compute);
      set({ buildForm: next });
    },

    async initBuild() {
      const r = await env.storage.list();
      if (r.ok) set({ buildCheckpoints: r.value });
      else problem(r.errors);
      const pools = await env.pools.list();
      if (pools.ok) set({ buildPools: pools.value });
      else problem(pools.errors);
      const compute = loadPref(COMPUTE_PREF);
      if (isCompute(compute)) set({ buildForm: { ...get().buildForm, compute } });
      const kept = loadPref(POOL_PREF);
      if (typeof kept === 'string' && kept !== get().buildPool.version) await get().loadBuildPool(kept);
    },

    async startBuild() {
      stopAuto();
      const f = get().buildForm;
      set({ buildLoading: true, buildProblems: [], buildAutoPlay: false, buildPick: NO_PICK });
      try {
        let task: Task;
        let masbench: MasBenchTask | null = null;
        if (f.source === 'masbench') {
          try {
            masbench = generateTask({ axis: f.axis, value: f.value, seed: f.taskSeed });
          } catch (e) {
            problem([{ code: 'E_TASK', message: `The task could not be generated: ${errorText(e)}` }]);
            return;
          }
          task = taskOfMasbench(masbench);
        } else {
          const query = f.query.trim();
          if (query === '') {
            problem([{ code: 'E_TASK', message: 'Enter a query, or pick a generated MASBench task.' }]);
            return;
          }
          const truth = f.groundTruth.trim();
          task = { query, groundTruth: truth === '' ? null : truth, source: { kind: 'custom' } };
        }
        const rewards = ActionRewardConfigSchema.safeParse(f.rewards);
        if (!rewards.success) {
          const i = rewards.error.issues[0];
          problem([
            {
              code: 'E_TASK',
              message: `Reward constant ${String(i?.path[0] ?? '')}: ${i?.message ?? 'invalid'}.`,
            },
          ]);
          return;
        }
        if (f.execute === 'simulator' && !masbench) {
          problem([
            {
              code: 'E_TASK',
              message:
                'The simulator runs generated MASBench tasks only: pick one, or execute steps on the provider (or not at all).',
            },
          ]);
          return;
        }
        const st = get();
        const remote = f.execute === 'provider' ? remoteSpecOf(st) : null;
        if (f.execute === 'provider') {
          const blockers = providerBlockers(st);
          if (blockers.length > 0 || !remote) {
            problem(blockers.map((b) => policyProblem('E_PROVIDER', b)));
            return;
          }
        }
        if (!(f.temperature > 0) || !Number.isFinite(f.temperature)) {
          problem([{ code: 'E_TASK', message: 'The temperature must be a number above 0.' }]);
          return;
        }
        const pool = get().buildPool;
        const prefer = env.prefer ?? f.compute;
        const key = JSON.stringify([f.policy, pool.version, prefer]);
        if (!runtime || runtimeKey !== key) {
          const loaded = await loadPolicy(f.policy, { storage: env.storage, prefer, pool });
          if (!loaded.ok) {
            problem(loaded.errors);
            return;
          }
          runtime?.dispose();
          runtime = loaded.value;
          runtimeKey = key;
        }
        encoding = runtime.encode(task.query);
        executionAbort?.abort();
        executionAbort = new AbortController();
        executor =
          f.execute === 'simulator' && masbench
            ? intermediateExecutorFor({ kind: 'simulated', task: masbench, seed: f.seed >>> 0 })
            : f.execute === 'provider' && remote
              ? intermediateExecutorFor(
                  { kind: 'remote', backend: remote, budget: runBudgetOf(st), concurrency: st.concurrency },
                  executionAbort.signal,
                )
              : null;
        const state = initialState(runtime.pool, {
          maxAgents: runtime.maxAgents,
          maxSteps: runtime.maxSteps,
        });
        set({
          buildSession: {
            id: ++sessionCounter,
            task,
            masbench,
            policyName: runtime.name,
            backend: runtime.backend,
            backendReason: runtime.reason,
            seed: f.seed >>> 0,
            temperature: f.temperature,
            execute: executor ? f.execute : 'off',
            rewards: rewards.data,
            spend: null,
            frames: [{ state, step: null, correct: false, evaluating: false, design: null }],
            cursor: 0,
            createdAt: env.now().toISOString(),
          },
          buildPreview: null,
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
      if (!s || get().buildBusy || currentFrame(s).state.exited) return;
      if (column !== null && !allowed(get().buildPreview, column)) return;
      const same = column === get().buildPick.action;
      set({ buildPick: same || column === null ? NO_PICK : { action: column, links: null } });
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
      const order = currentFrame(s).state.agents.map((a) => a.id);
      links.sort((a, b) => order.indexOf(a) - order.indexOf(b));
      const roles = currentFrame(s).state.pool.roles.length;
      const action = pick.action !== null && pick.action < roles ? pick.action : p.role;
      set({ buildPick: { action, links } });
    },

    async buildDelete() {
      const s = get().buildSession;
      if (!s || !allowed(get().buildPreview, deleteIndex(currentFrame(s).state.pool))) return;
      await commit({ action: deleteIndex(currentFrame(s).state.pool) }, false);
    },

    async buildExit() {
      const s = get().buildSession;
      if (!s || !allowed(get().buildPreview, exitIndex(currentFrame(s).state.pool))) return;
      await commit({ action: exitIndex(currentFrame(s).state.pool) }, false);
    },

    async undoBuild() {
      const s = get().buildSession;
      if (!s || s.cursor === 0 || get().buildBusy) return;
      stopAuto();
      set({ buildSession: { ...s, cursor: s.cursor - 1 }, buildPick: NO_PICK, buildAutoPlay: false });
      await refreshPreview();
    },

    async redoBuild() {
      const s = get().buildSession;
      if (!s || s.cursor >= s.frames.length - 1 || get().buildBusy) return;
      set({ buildSession: { ...s, cursor: s.cursor + 1 }, buildPick: NO_PICK });
      await refreshPreview();
    },

    setBuildAutoPlay(on) {
      stopAuto();
      const s = get().buildSession;
      if (on && (!s || currentFrame(s).state.exited)) return;
      set({ buildAutoPlay: on });
      if (on) autoTick();
    },

    setBuildSpeed(ms) {
      if (Number.isFinite(ms) && ms >= 0) set({ buildSpeed: ms });
    },

    async loadCheckpointFile(file) {
      const text = await readFileText(file);
      if (!text.ok) {
        problem(text.errors);
        return;
      }
      const cp = checkpointFromText(text.value, get().buildPool);
      if (!cp.ok) {
        problem(cp.errors);
        return;
      }
      const saved = await env.storage.save(cp.value);
      // A file may replace a stored checkpoint of the same name: compile it afresh on the next start.
      runtimeKey = '';
      if (!saved.ok) problem(saved.errors);
      const names = [...new Set([...get().buildCheckpoints, cp.value.name])].sort();
      set({
        buildCheckpoints: names,
        buildForm: { ...get().buildForm, policy: { kind: 'checkpoint', name: cp.value.name } },
        ...(saved.ok ? { buildProblems: [] } : {}),
      });
    },

    async runBuild(target) {
      const s = get().buildSession;
      if (!s || get().buildRunning) return null;
      stopAuto();
      const to = target ?? (s.masbench && currentFrame(s).state.exited ? 'simulator' : 'none');
      let trace = sessionTrace(s);
      if (trace.design.agents.length === 0) {
        problem([{ code: 'E_TASK', message: 'Add at least one agent before running the design.' }]);
        return null;
      }
      if (to !== 'none' && !currentFrame(s).state.exited) {
        problem([{ code: 'E_TASK', message: 'EXIT first: only a finished design is run.' }]);
        return null;
      }
      const st = get();
      const remote = to === 'provider' ? remoteSpecOf(st) : null;
      if (to === 'provider') {
        const blockers = providerBlockers(st);
        if (blockers.length > 0 || !remote) {
          problem(blockers.map((b) => policyProblem('E_PROVIDER', b)));
          return null;
        }
      }
      if (to === 'simulator' && !s.masbench) {
        problem([{ code: 'E_TASK', message: 'The simulator runs generated MASBench tasks only.' }]);
        return null;
      }
      set({ buildRunning: true, buildAutoPlay: false, buildProblems: [] });
      try {
        if (to === 'simulator' && s.masbench) {
          const r = await runOnSimulator(trace, s.masbench, s.seed);
          if (!r.ok) {
            problem(r.errors);
            return null;
          }
          trace = r.value;
        } else if (remote) {
          runAbort = new AbortController();
          const total = trace.design.agents.length;
          set({ buildRunProgress: { done: 0, total } });
          let done = 0;
          trace = await executeRun({
            trace: {
              ...trace,
              execution: { ...trace.execution, status: 'running', startedAt: trace.createdAt },
            },
            backend: remote,
            budget: runBudgetOf(st),
            concurrency: st.concurrency,
            signal: runAbort.signal,
            save: (t) => get().rememberTraces([{ trace: t, source: 'app', sourceLabel: 'Build page' }]),
            onEvent: (e) => {
              if (e.type === 'agent.end' || e.type === 'agent.error')
                set({ buildRunProgress: { done: ++done, total } });
            },
          });
        }
        if (!remote) await get().rememberTraces([{ trace, source: 'app', sourceLabel: 'Build page' }]);
        return trace.id;
      } catch (e) {
        problem([policyProblem('E_POLICY_STEP', errorText(e))]);
        return null;
      } finally {
        runAbort = null;
        set({ buildRunning: false, buildRunProgress: null });
      }
    },

    stopBuildRun() {
      runAbort?.abort();
    },

    stopBuildExecution() {
      const s = get().buildSession;
      if (!s || s.execute === 'off') return;
      executionAbort?.abort();
      executor = null;
      set({ buildSession: { ...s, execute: 'off' } });
    },

    async exportBuildCheckpoint() {
      const r = await serializeCheckpointFor(get().buildForm.policy, env.storage, get().buildPool);
      if (!r.ok) {
        problem(r.errors);
        return null;
      }
      return r.value;
    },

    async removeCheckpoint(name) {
      const r = await env.storage.remove(name);
      if (!r.ok) {
        problem(r.errors);
        return;
      }
      runtimeKey = '';
      const f = get().buildForm;
      set({
        buildCheckpoints: get().buildCheckpoints.filter((n) => n !== name),
        ...(f.policy.kind === 'checkpoint' && f.policy.name === name
          ? { buildForm: { ...f, policy: { kind: 'prior' } } }
          : {}),
      });
    },

    async applyBuildPool(next) {
      const pool = withContentVersion(next);
      if (pool.version !== ROLE_POOL_VERSION) {
        const saved = await env.pools.save(pool);
        if (!saved.ok) problem(saved.errors);
        const list = await env.pools.list();
        if (list.ok) set({ buildPools: list.value });
      }
      adoptPool(pool);
    },

    async loadBuildPool(version) {
      if (version === ROLE_POOL_VERSION) {
        adoptPool(DEFAULT_POOL);
        return;
      }
      const r = await env.pools.load(version);
      if (!r.ok) {
        problem(r.errors);
        return;
      }
      adoptPool(r.value);
    },

    dismissBuildProblems() {
      set({ buildProblems: [] });
    },
  };
};

/** Agent ids shown in the graph: the built agents, plus the summariser once EXIT added it. */
export function visibleDesign(state: ConstructionState): Design | null {
  const d = toValidDesign(state);
  if (!d || state.exited) return d;
  return {
    ...d,
    agents: d.agents.filter((a) => a.id !== SUMMARIZER_ID),
    edges: d.edges.filter((e) => e.to !== SUMMARIZER_ID),
  };
}
