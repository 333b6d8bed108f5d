/**
 * Sampling constructions from the current policy with the episode code (`construct`), each
 * executed for intermediate answers and a final answer by injected runners: this layer imports
 * no executor, the CLI passes the simulator.
 */
import type { ConstructionStep, Design, Trace } from '../core/trace.ts';
import { taskOfMasbench, type MasBenchTask } from '../masbench/index.ts';
import {
  construct,
  type ActionRewardConfig,
  type ConstructionState,
  type Episode,
  type IntermediateRunner,
  type PolicyNetwork,
  type RolePool,
} from '../policy/index.ts';
import type { Scored } from './advantages.ts';

/** What the final run of a construction's design gave. */
export interface FinalOutcome {
  /** Final answer graded against the task (null = ungraded or failed). */
  correct: boolean | null;
  /** Prompt + completion tokens of the final run. */
  tokens: number;
}

export interface TaskRunners {
  /** Runs a partial design for its intermediate answer. */
  intermediate: IntermediateRunner;
  /** Runs the finished construction's design. */
  final: (trace: Trace) => Promise<FinalOutcome>;
}

/** Runners for one task and sampling seed (the simulator draws its slips from the seed). */
export type RunnersFor = (task: MasBenchTask, seed: number) => TaskRunners;

export interface Rollout extends Scored {
  task: MasBenchTask;
  steps: ConstructionStep[];
  /** The finished design (summariser included). */
  design: Design;
  agents: number;
  edges: number;
  /** The state before each step (the episode's frames): the learner packs these without a replay. */
  states?: readonly ConstructionState[];
}

export interface RolloutOptions {
  net: PolicyNetwork;
  pool: RolePool;
  task: MasBenchTask;
  seed: number;
  runners: RunnersFor;
  maxSteps: number;
  temperature: number;
  greedy: boolean;
  /** Run each partial MAS for its intermediate answer. */
  intermediate: boolean;
  rewards: ActionRewardConfig;
}

export async function rollout(o: RolloutOptions): Promise<Rollout> {
  const runners = o.runners(o.task, o.seed);
  const c = await construct({
    policy: o.net,
    pool: o.pool,
    task: taskOfMasbench(o.task),
    seed: o.seed,
    greedy: o.greedy,
    temperature: o.temperature,
    maxSteps: Math.min(o.maxSteps, o.net.checkpoint.config.maxSteps),
    rewards: o.rewards,
    ...(o.intermediate ? { runner: runners.intermediate } : {}),
  });
  const final = await runners.final(c.trace);
  return {
    task: o.task,
    steps: c.steps,
    correct: final.correct,
    tokens: final.tokens,
    intermediate: c.steps.map((s) => s.intermediateCorrect ?? null),
    design: c.design,
    agents: c.design.agents.length,
    edges: c.design.edges.length,
    states: statesBefore(c.episode),
  };
}

/** The states before each step taken: frames 0 … cursor − 1 of the episode. */
export function statesBefore(ep: Episode): ConstructionState[] {
  const out: ConstructionState[] = [];
  for (let i = 0; i < ep.cursor; i++) out.push((ep.frames[i] as Episode['frames'][number]).state);
  return out;
}
