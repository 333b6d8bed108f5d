/**
 * Sampling all B·G constructions of an iteration at once (`constructMany`, src/policy): one batched
 * pass of the policy per construction step over the episodes still running, each episode executed
 * by its own injected runners. The same rollouts as `rollout` one episode at a time (rollout.ts),
 * in the same order; the trainer's default.
 */
import { taskOfMasbench, type MasBenchTask } from '../masbench/index.ts';
import {
  constructMany,
  type ActionRewardConfig,
  type BatchedPolicy,
  type RolePool,
} from '../policy/index.ts';
import { statesBefore, type Rollout, type RunnersFor, type TaskRunners } from './rollout.ts';

export interface ManyRolloutOptions {
  policy: BatchedPolicy;
  pool: RolePool;
  /** One entry per construction (a task appears G times, with G seeds). */
  episodes: readonly { task: MasBenchTask; seed: number }[];
  runners: RunnersFor;
  maxSteps: number;
  temperature: number;
  greedy: boolean;
  /** Run each partial MAS for its intermediate answer. */
  intermediate: boolean;
  rewards: ActionRewardConfig;
}

export async function rolloutMany(o: ManyRolloutOptions): Promise<Rollout[]> {
  const runners = o.episodes.map((e) => o.runners(e.task, e.seed));
  const cs = await constructMany({
    policy: o.policy,
    pool: o.pool,
    greedy: o.greedy,
    temperature: o.temperature,
    maxSteps: Math.min(o.maxSteps, o.policy.checkpoint.config.maxSteps),
    rewards: o.rewards,
    episodes: o.episodes.map((e, i) => ({
      task: taskOfMasbench(e.task),
      seed: e.seed,
      ...(o.intermediate ? { runner: (runners[i] as TaskRunners).intermediate } : {}),
    })),
  });
  const finals = await Promise.all(cs.map((c, i) => (runners[i] as TaskRunners).final(c.trace)));
  return cs.map((c, i) => {
    const final = finals[i] as (typeof finals)[number];
    const task = (o.episodes[i] as (typeof o.episodes)[number]).task;
    return {
      task,
      steps: c.steps,
      correct: final.correct,
      tokens: final.tokens,
      intermediate: c.steps.map((s) => s.intermediateCorrect ?? null),
      design: c.design,
      agents: c.design.agents.length,
      edges: c.design.edges.length,
      states: statesBefore(c.episode),
    };
  });
}
