/**
 * The trainer's one configuration: every constant of a run, validated by zod so a bad value is a
 * clear error before any work starts (docs/train.md, "Configuration").
 */
import { z } from 'zod';
import { ActionRewardConfigSchema } from '../policy/index.ts';

export const ALGOS = ['hrpo', 'grpo', 'reinforce'] as const;
export type Algo = (typeof ALGOS)[number];

export const ADVANTAGE_NORMS = ['mean', 'std'] as const;

export const PRESETS = ['depth', 'parallel', 'robustness', 'mixed'] as const;
export type PresetName = (typeof PRESETS)[number];

const seed = z.number().int().min(0).max(0xffffffff);

export const TrainConfigSchema = z
  .object({
    /** hrpo: group + action-wise advantages; grpo: sequence-level group advantage; reinforce: moving baseline. */
    algo: z.enum(ALGOS).default('grpo'),
    /** Which MASBench tasks the iterations draw from (presets.ts). */
    preset: z.enum(PRESETS).default('mixed'),
    /** B: tasks per iteration. */
    tasksPerIteration: z.number().int().min(1).max(256).default(8),
    /** G: constructions sampled per task (the group the advantages are normalised over). */
    groupSize: z.number().int().min(1).max(64).default(8),
    /**
     * How the group advantage of hrpo and grpo is scaled: `std` divides R − mean_g R by the group's
     * standard deviation (GRPO, MasHost); `mean` only centres it (R − mean_g R, as Dr. GRPO does), so
     * a group whose answers are all right (or all wrong) gets advantages on the scale of its cost
     * differences instead of ±1.
     */
    advantageNorm: z.enum(ADVANTAGE_NORMS).default('mean'),
    /** λ: weight of the normalised cost in R = correct − λ·min(1, tokens/costScale); 0 ≤ λ < 1. */
    lambda: z.number().min(0).lt(1).default(0.5),
    /** Tokens (prompt + completion of the final run) at which the normalised cost reaches 1. */
    costScale: z.number().positive().default(20000),
    /** γ: discount of the action-wise rewards summed from step t on, in [0, 1]. */
    gamma: z.number().min(0).max(1).default(0.95),
    /** Action-wise reward constants, exemption time T (steps) included (src/policy/rewards.ts). */
    actionReward: ActionRewardConfigSchema.default(ActionRewardConfigSchema.parse({})),
    /** PPO clip ε: the ratio is clipped to [1 − ε, 1 + ε]. */
    clipEps: z.number().gt(0).lt(1).default(0.2),
    /** K: passes over an iteration's steps. */
    epochs: z.number().int().min(1).max(32).default(2),
    /** Steps per minibatch (the fixed batch of the training graph; the last one is padded). */
    minibatch: z.number().int().min(1).max(1024).default(64),
    /** Adam learning rate α. */
    lr: z.number().gt(0).max(1).default(2e-3),
    /** Global L2 norm the gradients are clipped to; 0 = no clipping. */
    gradClip: z.number().min(0).default(1),
    /** β_KL: weight of the k3 estimate of KL(π_θ ‖ π_ref) to the frozen starting policy; 0 = off. */
    klCoef: z.number().min(0).max(10).default(0.02),
    /** β_H: weight of the node-head entropy bonus (nats); 0 = off. */
    entropyCoef: z.number().min(0).max(1).default(0.001),
    /** τ of rollout sampling (node π^(1/τ), edges σ(ℓ/τ)); 1 keeps the rollouts on-policy. */
    temperature: z.number().gt(0).max(10).default(1),
    /** REINFORCE baseline b ← d·b + (1 − d)·mean R after each iteration. */
    baselineDecay: z.number().min(0).lt(1).default(0.9),
    /** Step budget of a construction (≤ the checkpoint's maxSteps). */
    maxSteps: z.number().int().min(1).max(64).default(10),
    /** Seed of task draws, sampling and minibatch order. */
    seed: seed.default(0),
    /**
     * A held-out greedy evaluation of the current policy every this many iterations while a run
     * trains (the Train page plots each as a point); 0 = off. Does not change what is trained.
     */
    evalEvery: z.number().int().min(0).max(100_000).default(10),
    /** Ablation: off = no action-wise rewards (HRPO reduces to GRPO). */
    actionRewards: z.boolean().default(true),
    /** Ablation: off = exemption time T = 0 (wrong → wrong is penalised from the first step). */
    exemption: z.boolean().default(true),
    /** Ablation: off = partial MASs are not run for intermediate answers (no action rewards). */
    intermediate: z.boolean().default(true),
    /** Ablation: off = "w/o JPSS": the edge head does not see the chosen role (edges sampled independently of it). */
    jpss: z.boolean().default(true),
  })
  .superRefine((c, ctx) => {
    if (c.algo !== 'reinforce' && c.groupSize < 2)
      ctx.addIssue({
        code: 'custom',
        path: ['groupSize'],
        message: `${c.algo} normalises over a group: groupSize must be at least 2`,
      });
    if (c.algo === 'hrpo' && c.actionRewards && !c.intermediate)
      ctx.addIssue({
        code: 'custom',
        path: ['intermediate'],
        message: 'hrpo action rewards need intermediate answers: turn actionRewards off or intermediate on',
      });
  });

export type TrainConfig = z.infer<typeof TrainConfigSchema>;

/**
 * A config read back from a stored snapshot or run record. Records hold every field of the config
 * they were made with, so a field added later is missing only from records made before it existed,
 * and must take the value that reproduces them, which is not always today's default:
 * `advantageNorm` was `std` for them.
 */
export const StoredTrainConfigSchema = z.preprocess(
  (v) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) && !('advantageNorm' in v)
      ? { ...v, advantageNorm: 'std' }
      : v,
  TrainConfigSchema,
);
export type TrainConfigInput = z.input<typeof TrainConfigSchema>;

export type ConfigResult = { ok: true; config: TrainConfig } | { ok: false; problems: string[] };

/** Parses a config; problems read "path: message". */
export function parseTrainConfig(input: unknown): ConfigResult {
  const r = TrainConfigSchema.safeParse(input);
  if (r.success) return { ok: true, config: r.data };
  return {
    ok: false,
    problems: r.error.issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : 'config'}: ${i.message}`),
  };
}

/** A valid config or an Error listing every problem. */
export function trainConfig(input: TrainConfigInput = {}): TrainConfig {
  const r = parseTrainConfig(input);
  if (!r.ok) throw new Error(`invalid training config: ${r.problems.join('; ')}`);
  return r.config;
}
