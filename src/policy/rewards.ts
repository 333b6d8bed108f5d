/**
 * MasHost rewards (DESIGN.md "Rewards"). Every constant is configurable and documented here; the
 * defaults are what the Build and Train pages show.
 *
 * Action-wise reward r_t from the intermediate correctness c_{t−1} → c_t around step t (0-based;
 * before the first step the empty MAS counts as wrong):
 *   wrong → right:  +gain
 *   right → wrong:  −loss                                   (also inside the exemption window)
 *   right → right:  +bonus · bonusDecay^t                   (decays toward 0 with t)
 *   wrong → wrong:  0 when t < T, else −min(penaltyMax, penaltyRate · (t − T + 1))
 * r_t is null when either correctness is unknown (no ground truth, failed run).
 *
 * Group reward of episode i: R_i = correct_i − λ · min(1, cost_i / costScale), with 0 ≤ λ < 1 so
 * that λ·cost < 1 and a correct answer always beats a wrong one.
 * Step advantage: A_{i,t} = (R_i − mean R)/(std R + ε) + Σ_{k ≥ t} γ^{k−t} r_{i,k}.
 */
import { z } from 'zod';

export const ActionRewardConfigSchema = z.object({
  /** Reward for wrong → right. */
  gain: z.number().min(0).max(10).default(1),
  /** Magnitude of the penalty for right → wrong (reward −loss). */
  loss: z.number().min(0).max(10).default(1),
  /** right → right bonus at t = 0. */
  bonus: z.number().min(0).max(10).default(0.5),
  /** Per-step decay factor of the right → right bonus, in (0, 1]. */
  bonusDecay: z.number().gt(0).max(1).default(0.7),
  /** Exemption time T (steps): wrong → wrong is free before it. */
  exemption: z.number().int().min(0).max(256).default(3),
  /** Growth of the wrong → wrong penalty per step after T. */
  penaltyRate: z.number().min(0).max(10).default(0.1),
  /** Cap of the wrong → wrong penalty. */
  penaltyMax: z.number().min(0).max(10).default(1),
});
export type ActionRewardConfig = z.infer<typeof ActionRewardConfigSchema>;
export const DEFAULT_ACTION_REWARD: ActionRewardConfig = ActionRewardConfigSchema.parse({});

/** r_t for the change prev → curr at step t (see the table above). */
export function actionReward(
  prev: boolean | null,
  curr: boolean | null,
  t: number,
  c: ActionRewardConfig = DEFAULT_ACTION_REWARD,
): number | null {
  if (prev === null || curr === null) return null;
  if (!prev && curr) return c.gain;
  if (prev && !curr) return -c.loss;
  if (prev && curr) return c.bonus * Math.pow(c.bonusDecay, t);
  return t < c.exemption ? 0 : -Math.min(c.penaltyMax, c.penaltyRate * (t - c.exemption + 1));
}

/** r_t for every step of an episode from its intermediate correctness (the empty MAS is wrong). */
export function actionRewards(
  correct: readonly (boolean | null)[],
  c: ActionRewardConfig = DEFAULT_ACTION_REWARD,
): (number | null)[] {
  return correct.map((curr, t) => actionReward(t === 0 ? false : (correct[t - 1] ?? null), curr, t, c));
}

export const GroupRewardConfigSchema = z.object({
  /** Cost weight λ, 0 ≤ λ < 1. */
  lambda: z.number().min(0).lt(1).default(0.1),
  /** Cost at which the normalised cost reaches 1 (same unit as the cost: USD or tokens). */
  costScale: z.number().positive().default(1),
});
export type GroupRewardConfig = z.infer<typeof GroupRewardConfigSchema>;
export const DEFAULT_GROUP_REWARD: GroupRewardConfig = GroupRewardConfigSchema.parse({});

/** R = correct − λ·min(1, cost/costScale); cost ≥ 0. */
export function groupReward(
  correct: boolean,
  cost: number,
  c: GroupRewardConfig = DEFAULT_GROUP_REWARD,
): number {
  const norm = Math.min(1, Math.max(0, cost) / c.costScale);
  return (correct ? 1 : 0) - c.lambda * norm;
}

/**
 * (R_i − mean)/(std + ε) over a group (population std; ε = 1e-8 keeps an all-equal group at 0), or
 * with `scale: 'mean'` only R_i − mean (no division by the group's spread).
 */
export function groupAdvantages(
  rewards: readonly number[],
  eps = 1e-8,
  scale: 'std' | 'mean' = 'std',
): number[] {
  if (rewards.length === 0) return [];
  const mean = rewards.reduce((a, b) => a + b, 0) / rewards.length;
  if (scale === 'mean') return rewards.map((r) => r - mean);
  const std = Math.sqrt(rewards.reduce((a, b) => a + (b - mean) ** 2, 0) / rewards.length);
  return rewards.map((r) => (r - mean) / (std + eps));
}

/** A_t = groupAdvantage + Σ_{k ≥ t} γ^{k−t} r_k (unknown r_k count as 0). */
export function stepAdvantages(
  groupAdvantage: number,
  rewards: readonly (number | null)[],
  gamma = 0.95,
): number[] {
  const out = new Array<number>(rewards.length);
  let tail = 0;
  for (let t = rewards.length - 1; t >= 0; t--) {
    tail = (rewards[t] ?? 0) + gamma * tail;
    out[t] = groupAdvantage + tail;
  }
  return out;
}
