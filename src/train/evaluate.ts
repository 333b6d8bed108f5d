/**
 * Scoring a policy on held-out MASBench tasks: `test`-split seeds only (presets.ts), greedy or
 * sampled constructions, each run by the injected final runner. Accuracy carries a 95% Wilson
 * score interval (src/core/stats.ts).
 */
import { mix32 } from '../core/rng.ts';
import { wilson } from '../core/stats.ts';
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

export async function evaluatePolicy(o: EvalOptions): Promise<EvalResult> {
  const tasks = drawTasks(PRESET_TABLE[o.config.preset], o.seed, o.n, 'test');
  const rows: { axis: string; ok: number; r: Rollout; reward: number }[] = [];
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
    rows.push({ axis: task.axis, ok: r.correct === true ? 1 : 0, r, reward: rewardOf(o.config, r) });
  }
  const score = (xs: typeof rows): AxisScore => {
    const k = xs.reduce((a, x) => a + x.ok, 0);
    return {
      n: xs.length,
      accuracy: xs.length ? k / xs.length : 0,
      interval: wilson(k, xs.length),
      tokens: mean(xs.map((x) => x.r.tokens)),
    };
  };
  const perAxis: Record<string, AxisScore> = {};
  for (const axis of new Set(rows.map((x) => x.axis)))
    perAxis[axis] = score(rows.filter((x) => x.axis === axis));
  return {
    ...score(rows),
    agents: mean(rows.map((x) => x.r.agents)),
    edges: mean(rows.map((x) => x.r.edges)),
    reward: mean(rows.map((x) => x.reward)),
    perAxis,
  };
}
