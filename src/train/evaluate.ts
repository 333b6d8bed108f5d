/**
 * Scoring a policy on held-out MASBench tasks: `test`-split seeds only (presets.ts), greedy or
 * sampled constructions, each run by the injected final runner. Accuracy carries a 95% Wilson
 * score interval (src/core/stats.ts).
 */
import { mix32 } from '../core/rng.ts';
import { wilson } from '../core/stats.ts';
import type { MasBenchTask } from '../masbench/index.ts';
import type { PolicyNetwork, RolePool } from '../policy/index.ts';
import { rewardOf } from './advantages.ts';
import type { TrainConfig } from './config.ts';
import { PRESET_TABLE, drawTasks } from './presets.ts';
import { rollout, type Rollout, type RunnersFor } from './rollout.ts';

/** Moved to src/core/stats.ts, where the evaluation harness shares it. */
export { wilson };

export interface AxisScore {
  n: number;
  accuracy: number;
  interval: [number, number];
  tokens: number;
}

export interface EvalResult extends AxisScore {
  agents: number;
  edges: number;
  reward: number;
  perAxis: Record<string, AxisScore>;
}

export interface EvalOptions {
  net: PolicyNetwork;
  pool: RolePool;
  config: TrainConfig;
  runners: RunnersFor;
  /** Held-out tasks to score. */
  n: number;
  seed: number;
  greedy: boolean;
}

const mean = (xs: readonly number[]): number =>
  xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;

/** One held-out construction: the task, what was built and how it scored. */
export interface HeldOutRow {
  task: MasBenchTask;
  rollout: Rollout;
  /** R = correct − λ·min(1, tokens/costScale) under the options' config. */
  reward: number;
}

/**
 * The held-out constructions of a policy: the tasks and rollout seeds are exactly those of
 * `evaluatePolicy` with the same options, so two policies scored with the same `n` and `seed`
 * face the same tasks (paired comparisons).
 */
export async function heldOutRollouts(o: EvalOptions): Promise<HeldOutRow[]> {
  const tasks = drawTasks(PRESET_TABLE[o.config.preset], o.seed, o.n, 'test');
  const rows: HeldOutRow[] = [];
  for (const [i, task] of tasks.entries()) {
    const r = await rollout({
      net: o.net,
      pool: o.pool,
      task,
      seed: mix32(o.seed + i),
      runners: o.runners,
      maxSteps: o.config.maxSteps,
      temperature: o.config.temperature,
      greedy: o.greedy,
      intermediate: false,
      rewards: o.config.actionReward,
    });
    rows.push({ task, rollout: r, reward: rewardOf(o.config, r) });
  }
  return rows;
}

/** Accuracy (with its Wilson interval), tokens, structure and reward of held-out rows, overall and per axis. */
export function scoreHeldOut(rows: readonly HeldOutRow[]): EvalResult {
  const ok = (r: HeldOutRow): number => (r.rollout.correct === true ? 1 : 0);
  const score = (xs: readonly HeldOutRow[]): AxisScore => {
    const k = xs.reduce((a, x) => a + ok(x), 0);
    return {
      n: xs.length,
      accuracy: xs.length ? k / xs.length : 0,
      interval: wilson(k, xs.length),
      tokens: mean(xs.map((x) => x.rollout.tokens)),
    };
  };
  const perAxis: Record<string, AxisScore> = {};
  for (const axis of new Set(rows.map((x) => x.task.axis)))
    perAxis[axis] = score(rows.filter((x) => x.task.axis === axis));
  return {
    ...score(rows),
    agents: mean(rows.map((x) => x.rollout.agents)),
    edges: mean(rows.map((x) => x.rollout.edges)),
    reward: mean(rows.map((x) => x.reward)),
    perAxis,
  };
}

export async function evaluatePolicy(o: EvalOptions): Promise<EvalResult> {
  return scoreHeldOut(await heldOutRollouts(o));
}
