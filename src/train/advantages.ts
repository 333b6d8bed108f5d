/**
 * Per-step advantages of one iteration's constructions (docs/train.md, "Advantages"). The reward
 * terms are src/policy/rewards.ts; this file only combines them per algorithm:
 *   R_i      = correct_i − λ·min(1, tokens_i / costScale)                       (groupReward)
 *   HRPO     A_{i,t} = (R_i − mean_g R)/(std_g R + ε) + Σ_{k ≥ t} γ^{k−t} r_{i,k}  (stepAdvantages)
 *   GRPO     A_{i,t} = (R_i − mean_g R)/(std_g R + ε)
 *   REINFORCE A_{i,t} = R_i − b, b a moving average of the iteration means of R
 * where g is the group of constructions of one task and r_{i,k} the action-wise reward of step k.
 */
import { actionRewards, groupAdvantages, groupReward, stepAdvantages } from '../policy/index.ts';
import type { TrainConfig } from './config.ts';

/** What the advantages need of one construction. */
export interface Scored {
  /** Final answer graded correct (null = ungraded, counted as wrong). */
  correct: boolean | null;
  /** Prompt + completion tokens of the final run. */
  tokens: number;
  /** Intermediate correctness after each step (null = unknown). */
  intermediate: readonly (boolean | null)[];
}

/** R of one construction. */
export function rewardOf(c: TrainConfig, s: Scored): number {
  return groupReward(s.correct === true, s.tokens, { lambda: c.lambda, costScale: c.costScale });
}

/** The action-wise rewards r_t of a construction under the config's ablations (all 0 when off). */
export function actionRewardsOf(c: TrainConfig, s: Scored): (number | null)[] {
  if (!c.actionRewards || !c.intermediate) return s.intermediate.map(() => 0);
  const rc = c.exemption ? c.actionReward : { ...c.actionReward, exemption: 0 };
  return actionRewards(s.intermediate, rc);
}

export interface Advantages {
  /** Per group, per construction, per step. */
  steps: number[][][];
  /** R per group and construction. */
  rewards: number[][];
  /** REINFORCE baseline after this iteration (unchanged for the group methods). */
  baseline: number | null;
}

/**
 * Advantages for groups of constructions (one group per task). `baseline` is the REINFORCE moving
 * average so far (null before the first iteration: the first iteration's mean is used).
 */
export function advantages(
  c: TrainConfig,
  groups: readonly (readonly Scored[])[],
  baseline: number | null,
): Advantages {
  const rewards = groups.map((g) => g.map((s) => rewardOf(c, s)));
  if (c.algo === 'reinforce') {
    const all = rewards.flat();
    const mean = all.length > 0 ? all.reduce((a, b) => a + b, 0) / all.length : 0;
    const b = baseline ?? mean;
    const steps = groups.map((g, gi) =>
      g.map((s, i) => s.intermediate.map(() => (rewards[gi]?.[i] ?? 0) - b)),
    );
    return { steps, rewards, baseline: c.baselineDecay * b + (1 - c.baselineDecay) * mean };
  }
  const steps = groups.map((g, gi) => {
    const ga = groupAdvantages(rewards[gi] ?? [], undefined, c.advantageNorm);
    return g.map((s, i) => {
      const a = ga[i] ?? 0;
      if (c.algo === 'grpo') return s.intermediate.map(() => a);
      return stepAdvantages(a, actionRewardsOf(c, s), c.gamma);
    });
  });
  return { steps, rewards, baseline };
}
