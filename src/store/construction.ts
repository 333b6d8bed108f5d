/**
 * What the Build page works with, as plain types and pure helpers: the setup form and its checks,
 * the episode accessors (`currentFrame`, `stepsOf`, `sessionTrace`), the design the graph shows,
 * and the role-pool draft of the editor. The UI reaches construction domain code only through
 * this module and the slices; the functions themselves live in src/policy and src/masbench.
 */
import { describe } from '../core/errors.ts';
import type { Problem } from '../core/result.ts';
import type { Design, Task, Trace } from '../core/trace.ts';
import {
  AXES,
  MAX_AXIS_VALUE,
  MIN_AXIS_VALUE,
  generateTask,
  taskOfMasbench,
  type Axis,
  type MasBenchTask,
} from '../masbench/index.ts';
import {
  SUMMARIZER_ID,
  currentFrame,
  episodeSteps,
  episodeTrace,
  type Episode,
  ActionRewardConfigSchema,
  DEFAULT_ACTION_REWARD,
  type ActionRewardConfig,
} from '../policy/index.ts';
import type { PolicySpec } from './services/policy-checkpoints.ts';
import { errorText } from './services/problems.ts';

export { AXES, MAX_AXIS_VALUE, MIN_AXIS_VALUE, DEFAULT_ACTION_REWARD, currentFrame };
export type { ActionRewardConfig, Axis, PolicySpec };
export type { EpisodeFrame as BuildFrame } from '../policy/index.ts';
export type { StepPreview } from '../policy/index.ts';
export { actionNames } from '../policy/index.ts';
export {
  DEFAULT_POOL,
  ROLE_AGENT_TYPES,
  ROLE_POOL_VERSION,
  headChange,
  serializeRolePool,
  withContentVersion,
  type HeadChange,
  type Role,
  type RolePool,
} from '../policy/index.ts';
export {
  MAX_ROLES,
  checkDraft,
  draftOf,
  editDraft,
  fieldKey,
  poolOfDraft,
  type DraftCheck,
  type PoolDraft,
  type PoolEdit,
  type RoleAgentType,
  type RoleDraft,
  type RoleField,
} from '../policy/index.ts';

/** Where the policy network runs: `auto` takes WebGPU on a hardware adapter, else the CPU. */
export type ComputeChoice = 'auto' | 'cpu' | 'webgpu';

export const COMPUTE_CHOICES: readonly ComputeChoice[] = ['auto', 'cpu', 'webgpu'];

/**
 * Where each step's partial MAS runs for its intermediate answer: nowhere, on the simulator
 * (generated tasks only), or on the provider configured in Settings.
 */
export type BuildExecute = 'off' | 'simulator' | 'provider';

/** Fresh spend of a construction's intermediate runs (provider only; the simulator is free). */
export interface BuildSpend {
  /** Partial designs run (skipped ones excluded). */
  runs: number;
  /** Calls sent to the provider. */
  calls: number;
  /** Calls answered from the cache. */
  cachedCalls: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
}

/** Auto-play delays between steps, ms (the speed control). */
export const BUILD_SPEEDS = [1200, 600, 250, 60] as const;

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
  /** Where the policy's network runs; kept on this device. */
  compute: ComputeChoice;
}

/** The generated task the form describes (for showing its question and ground truth), or why not. */
export function formTask(f: Pick<BuildForm, 'axis' | 'value' | 'taskSeed'>): MasBenchTask | string {
  try {
    return generateTask({ axis: f.axis, value: f.value, seed: f.taskSeed });
  } catch (e) {
    return errorText(e);
  }
}

/** Why the reward constants are refused (`bonusDecay: …`), or null when they are valid. */
export function rewardProblem(r: ActionRewardConfig): string | null {
  const p = ActionRewardConfigSchema.safeParse(r);
  if (p.success) return null;
  const i = p.error.issues[0];
  return `${String(i?.path[0] ?? '')}: ${i?.message ?? 'invalid'}`;
}

/** A construction the form describes, checked. */
export interface BuildPlan {
  task: Task;
  /** The generated task (the simulator's input); null for an own query. */
  masbench: MasBenchTask | null;
  rewards: ActionRewardConfig;
}

const taskProblem = (message: string): Problem[] => [{ code: 'E_TASK', message }];

/**
 * The task, generated or typed, and the checked settings of a construction, or what stops it, in
 * the order the form reads. `providerBlockers` are the Settings problems when steps run on the
 * provider (null otherwise).
 */
export function planOf(
  f: BuildForm,
  providerBlockers: readonly string[] | null,
): { ok: true; plan: BuildPlan } | { ok: false; problems: Problem[] } {
  let task: Task;
  let masbench: MasBenchTask | null = null;
  if (f.source === 'masbench') {
    const generated = formTask(f);
    if (typeof generated === 'string')
      return { ok: false, problems: taskProblem(`The task could not be generated: ${generated}`) };
    masbench = generated;
    task = taskOfMasbench(masbench);
  } else {
    const query = f.query.trim();
    if (query === '')
      return { ok: false, problems: taskProblem('Enter a query, or pick a generated MASBench task.') };
    const truth = f.groundTruth.trim();
    task = { query, groundTruth: truth === '' ? null : truth, source: { kind: 'custom' } };
  }
  const rewards = ActionRewardConfigSchema.safeParse(f.rewards);
  if (!rewards.success)
    return { ok: false, problems: taskProblem(`Reward constant ${rewardProblem(f.rewards) ?? ''}.`) };
  if (f.execute === 'simulator' && !masbench)
    return {
      ok: false,
      problems: taskProblem(
        'The simulator runs generated MASBench tasks only: pick one, or execute steps on the provider (or not at all).',
      ),
    };
  if (providerBlockers && providerBlockers.length > 0)
    return {
      ok: false,
      problems: providerBlockers.map((b) => ({ code: 'E_PROVIDER', message: describe('E_PROVIDER', b) })),
    };
  if (!(f.temperature > 0) || !Number.isFinite(f.temperature))
    return { ok: false, problems: taskProblem('The temperature must be a number above 0.') };
  return { ok: true, plan: { task, masbench, rewards: rewards.data } };
}

/** A construction on the Build page: the episode and what the page keeps beside it. */
export interface BuildSession extends Episode {
  /** Changes on every start, so late results of an earlier session are dropped. */
  id: number;
  /** The generated task (ground truth per sub-task, the simulator's input); null for a custom query. */
  masbench: MasBenchTask | null;
  /** Why the policy runs on `backend`. */
  backendReason: string;
  /** Where partial designs run; `off` once execution is stopped. */
  execute: BuildExecute;
  /** Fresh spend of the intermediate runs so far (provider only; the simulator is free). */
  spend: BuildSpend | null;
}

/** The user's override for the next step (recorded with chooser `user`). */
export interface BuildPick {
  /** Node-head column, or null to let the policy choose. */
  action: number | null;
  /** Links of an ADD, or null to let the policy choose. */
  links: string[] | null;
}

/** The steps taken so far (undone steps excluded). */
export const stepsOf = (s: Episode): ReturnType<typeof episodeSteps> => episodeSteps(s);

/** The construction so far as a trace (construction steps + the design the state stands for). */
export const sessionTrace = (s: Episode): Trace => episodeTrace(s);

/**
 * The design the graph shows: the built agents, without the summariser a partial MAS with several
 * sinks gets for its intermediate run; after EXIT, the whole design.
 */
export function visibleDesign(design: Design | null, exited: boolean): Design | null {
  if (!design || exited) return design;
  return {
    ...design,
    agents: design.agents.filter((a) => a.id !== SUMMARIZER_ID),
    edges: design.edges.filter((e) => e.to !== SUMMARIZER_ID),
  };
}
