/**
 * One construction episode, step by step, as plain data and pure functions: start → preview →
 * step (sampled, greedy or overridden) / undo / redo → record the intermediate result of the
 * partial MAS (answer, correctness, action-wise reward) → trace. The Build page (src/store),
 * `baton construct` (src/cli, through `construct` below) and the trainer drive the same functions,
 * so the same task, seed and choices give the same trace wherever they run.
 *
 * The episode never calls a network or an executor itself: a step's outcome comes from a
 * `StepPolicy` (sample.ts) and a result from an `IntermediateRunner`, both injected. Randomness
 * comes only from `stepRng(seed, t)`, one stream per step, so overrides, undo and the time a
 * result takes never shift later draws.
 *
 * History is a plain array of frames with a cursor: undo and redo move the cursor, a new step after
 * an undo drops the frames after it. Functions that change an episode return a new one and keep
 * every other field of their argument, so a caller may extend `Episode` with its own fields (the
 * Build page's session does).
 */
import { minimalTrace, traceIdFrom } from '../core/trace-builders.ts';
import type { ConstructionStep, Design, Task, Trace } from '../core/trace.ts';
import { incompatibility } from './checkpoint.ts';
import {
  initialState,
  toValidDesign,
  withResult,
  type ConstructionLimits,
  type ConstructionState,
} from './construction.ts';
import { encodeTask } from './encoder.ts';
import type { PolicyNetwork } from './network.ts';
import { actionReward, DEFAULT_ACTION_REWARD, type ActionRewardConfig } from './rewards.ts';
import type { RolePool } from './roles.ts';
import { stepPolicyOf } from './sample.ts';
import type {
  IntermediateRunner,
  SampleOptions,
  StepChoice,
  StepOutcome,
  StepResult,
  StepSettings,
} from './step-types.ts';

/** One position in the history: the state after `step` (the first frame has none). */
export interface EpisodeFrame {
  state: ConstructionState;
  step: ConstructionStep | null;
  /** Intermediate correctness after this frame (the empty MAS counts as wrong); null when unknown. */
  correct: boolean | null;
  /**
   * The design the state stands for (`toValidDesign`), computed once per frame: what runs for the
   * intermediate answer, the trace's design at the end, and an identity views can rely on.
   */
  design: Design | null;
  /** True from the step until its intermediate result is recorded (only while steps are executed). */
  pending: boolean;
}

export interface Episode {
  task: Task;
  /** Checkpoint name as recorded in traces. */
  policyName: string;
  backend: 'cpu' | 'wasm' | 'webgpu';
  /** Sampling seed: step t draws from `stepRng(seed, t)`. */
  seed: number;
  /** τ > 0 of every step (a greedy step uses 1). */
  temperature: number;
  /** Whether each step's partial MAS runs for an intermediate answer (and earns an action reward). */
  executes: boolean;
  /** Action-wise reward constants; the trace's designer records them while steps are executed. */
  rewards: ActionRewardConfig;
  /** ISO time the trace records (pure code takes it as input). */
  createdAt: string;
  /** frames[0] is the empty MAS; frames[1..cursor] are the steps taken; later frames are for redo. */
  frames: EpisodeFrame[];
  cursor: number;
}

export interface EpisodeStart {
  task: Task;
  policyName: string;
  backend: 'cpu' | 'wasm' | 'webgpu';
  seed: number;
  temperature?: number;
  executes?: boolean;
  rewards?: ActionRewardConfig;
  createdAt?: string;
  pool: RolePool;
  limits: ConstructionLimits;
}

/** An empty MAS: one frame, nothing taken. The empty MAS counts as wrong for the first reward. */
export function startEpisode(o: EpisodeStart): Episode {
  const temperature = o.temperature ?? 1;
  if (!(temperature > 0) || !Number.isFinite(temperature)) throw new Error('temperature must be > 0');
  return {
    task: o.task,
    policyName: o.policyName,
    backend: o.backend,
    seed: o.seed >>> 0,
    temperature,
    executes: o.executes ?? false,
    rewards: o.rewards ?? DEFAULT_ACTION_REWARD,
    createdAt: o.createdAt ?? new Date(0).toISOString(),
    frames: [
      { state: initialState(o.pool, o.limits), step: null, correct: false, design: null, pending: false },
    ],
    cursor: 0,
  };
}

export const currentFrame = (ep: Episode): EpisodeFrame => ep.frames[ep.cursor] as EpisodeFrame;

export const currentState = (ep: Episode): ConstructionState => currentFrame(ep).state;

/** The construction ended with EXIT: no further step. */
export const episodeDone = (ep: Episode): boolean => currentState(ep).exited;

/** The steps taken so far (undone steps excluded). */
export function episodeSteps(ep: Episode): ConstructionStep[] {
  return ep.frames.slice(1, ep.cursor + 1).map((f) => f.step as ConstructionStep);
}

/** The settings of the next step (greedy for this step only). */
export function stepSettings(ep: Episode, greedy = false): StepSettings {
  return { seed: ep.seed, temperature: ep.temperature, ...(greedy ? { greedy: true } : {}) };
}

/**
 * Appends the outcome of a step from the current frame (from `StepPolicy.step` on
 * `currentState(ep)`) and moves to it; frames after the cursor (undone steps) are dropped. While
 * steps are executed the new frame is pending until `recordResult`.
 */
export function takeStep<E extends Episode>(ep: E, out: StepOutcome): E {
  const from = currentState(ep);
  if (from.exited) throw new Error('the construction has ended');
  if (out.step.index !== from.step)
    throw new Error(`step ${out.step.index} does not follow step ${from.step}`);
  const frame: EpisodeFrame = {
    state: out.state,
    step: out.step,
    correct: null,
    design: toValidDesign(out.state),
    pending: ep.executes,
  };
  const frames = ep.frames.slice(0, ep.cursor + 1);
  frames.push(frame);
  return { ...ep, frames, cursor: frames.length - 1 };
}

/** Back one step (no-op on the empty MAS); the frame stays for redo. */
export function undoStep<E extends Episode>(ep: E): E {
  return ep.cursor === 0 ? ep : { ...ep, cursor: ep.cursor - 1 };
}

/** Forward one undone step (no-op when there is none). */
export function redoStep<E extends Episode>(ep: E): E {
  return ep.cursor >= ep.frames.length - 1 ? ep : { ...ep, cursor: ep.cursor + 1 };
}

/** A MAS without agents (every agent deleted) has no answer; nothing runs for it. */
export const NO_RESULT: StepResult = { answer: null, correct: null };

/** Runs frame `index`'s partial MAS with `runner` (NO_RESULT when it has no agents). */
export function runFrame(ep: Episode, index: number, runner: IntermediateRunner): Promise<StepResult> {
  const design = ep.frames[index]?.design ?? null;
  return design ? runner(design, ep.task) : Promise.resolve(NO_RESULT);
}

/**
 * Records the intermediate result of frame `index`: the answer enters its state (`withResult`, the
 * encoder's RESULT features, so later steps see it), and its step gets the answer, correctness,
 * run record and the action-wise reward r_t for the change from the previous frame's correctness.
 * Returns the episode unchanged when the frame has no step.
 */
export function recordResult<E extends Episode>(ep: E, index: number, r: StepResult): E {
  const frame = ep.frames[index];
  const prev = ep.frames[index - 1];
  if (!frame?.step || !prev) return ep;
  const reward = actionReward(prev.correct, r.correct, frame.step.index, ep.rewards);
  const frames = ep.frames.slice();
  const step = recordedStep(frame.step, r, reward);
  frames[index] = {
    state: withResult(frame.state, r.answer, r.correct),
    step,
    correct: r.correct,
    design: frame.design,
    pending: false,
  };
  return { ...ep, frames };
}

/** The fields of a step as `finishStep` writes them, in its order. */
const SAMPLED_STEP_KEYS = ['index', 'action', 'roleDistribution', 'edgeProbabilities', 'logProb', 'chooser'];

/**
 * `{ ...step, intermediateAnswer, intermediateCorrect, ...(run ? { intermediateRun } : {}),
 * actionReward }`: the same fields in the same order. A step as `finishStep` writes it is copied
 * field by field, because V8 copies an object spread that then gains fields slowly (microseconds
 * per step, every step of every rollout); any other step takes the spread.
 */
function recordedStep(s: ConstructionStep, r: StepResult, reward: number | null): ConstructionStep {
  const keys = Object.keys(s);
  if (keys.length !== SAMPLED_STEP_KEYS.length || keys.some((k, i) => k !== SAMPLED_STEP_KEYS[i]))
    return {
      ...s,
      intermediateAnswer: r.answer,
      intermediateCorrect: r.correct,
      ...(r.run ? { intermediateRun: r.run } : {}),
      actionReward: reward,
    };
  const { index, action, roleDistribution, edgeProbabilities, logProb, chooser } = s;
  const answer = r.answer;
  const correct = r.correct;
  return r.run
    ? {
        index,
        action,
        roleDistribution,
        edgeProbabilities,
        logProb,
        chooser,
        intermediateAnswer: answer,
        intermediateCorrect: correct,
        intermediateRun: r.run,
        actionReward: reward,
      }
    : {
        index,
        action,
        roleDistribution,
        edgeProbabilities,
        logProb,
        chooser,
        intermediateAnswer: answer,
        intermediateCorrect: correct,
        actionReward: reward,
      };
}

/** `MASBench depth 4 (seed 3) · prior construction`, or the query's first line for other tasks. */
export function episodeTitle(ep: Episode): string {
  const src = ep.task.source;
  const what =
    src.kind === 'masbench'
      ? `MASBench ${src.axis} ${src.value}${ep.task.seed !== undefined ? ` (seed ${ep.task.seed})` : ''}`
      : (ep.task.query.trim().split('\n')[0] ?? '').slice(0, 60);
  return `${what} · ${ep.policyName} construction`;
}

/**
 * The construction so far as a trace: the steps taken, the design the current state stands for
 * (none before the first agent), not executed. The one trace builder of every construction: its id
 * is derived from the task, the time, the policy, the seed and the actions taken.
 */
export function episodeTrace(ep: Episode): Trace {
  const steps = episodeSteps(ep);
  const state = currentState(ep);
  const base = minimalTrace({
    id: traceIdFrom(
      'construction',
      ep.task.query,
      ep.createdAt,
      ep.policyName,
      String(ep.seed),
      JSON.stringify(steps.map((s) => s.action)),
    ),
    query: ep.task.query,
    title: episodeTitle(ep),
    groundTruth: ep.task.groundTruth,
    source: ep.task.source,
    createdAt: ep.createdAt,
    designer: {
      kind: 'policy',
      checkpoint: ep.policyName,
      backend: ep.backend,
      seed: ep.seed,
      roles: state.pool.version,
      ...(ep.executes ? { rewards: { ...ep.rewards } } : {}),
    },
  });
  return {
    ...base,
    task: { ...ep.task },
    construction: steps,
    design: currentFrame(ep).design ?? base.design,
    tags: ['construction'],
  };
}

// ---------------------------------------------------------------- a whole construction

export interface ConstructOptions extends SampleOptions {
  policy: PolicyNetwork;
  pool: RolePool;
  task: Task;
  seed: number;
  /** Step budget (≤ the checkpoint's maxSteps is typical; default the checkpoint's). */
  maxSteps?: number;
  /** Executes each intermediate MAS for its answer and correctness (and the action rewards). */
  runner?: IntermediateRunner;
  rewards?: ActionRewardConfig;
  /** Per-step overrides (a user's choices). */
  choose?: (index: number, state: ConstructionState) => StepChoice | undefined;
  /** Called after every step, with its result when executed (progress for the CLI). */
  onStep?: (o: StepOutcome) => void;
  /** ISO time written to the trace. */
  createdAt?: string;
}

export interface Construction {
  steps: ConstructionStep[];
  state: ConstructionState;
  design: Design;
  trace: Trace;
  episode: Episode;
}

/** Drives an episode with the policy until EXIT: step, run the partial MAS (with a runner), record. */
export async function construct(o: ConstructOptions): Promise<Construction> {
  const cfg = o.policy.checkpoint.config;
  const why = incompatibility(
    o.policy.checkpoint,
    o.pool.roles.map((r) => r.name),
  );
  if (why) throw new Error(why);
  const policy = stepPolicyOf(o.policy);
  const enc = encodeTask(o.task.query, cfg.hashDim);
  let ep = startEpisode({
    task: o.task,
    policyName: o.policy.name,
    backend: o.policy.backend,
    seed: o.seed,
    ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
    executes: o.runner !== undefined,
    ...(o.rewards ? { rewards: o.rewards } : {}),
    ...(o.createdAt !== undefined ? { createdAt: o.createdAt } : {}),
    pool: o.pool,
    limits: { maxAgents: cfg.maxAgents, maxSteps: o.maxSteps ?? cfg.maxSteps },
  });
  while (!episodeDone(ep)) {
    const state = currentState(ep);
    const out = await policy.step(
      enc,
      state,
      stepSettings(ep, o.greedy === true),
      o.choose?.(state.step, state) ?? {},
    );
    ep = takeStep(ep, out);
    if (o.runner) ep = recordResult(ep, ep.cursor, await runFrame(ep, ep.cursor, o.runner));
    const now = currentFrame(ep);
    o.onStep?.({ ...out, state: now.state, step: now.step as ConstructionStep });
  }
  const trace = episodeTrace(ep);
  const design = currentFrame(ep).design;
  if (!design) throw new Error('construction ended without agents');
  return { steps: trace.construction, state: currentState(ep), design, trace, episode: ep };
}
