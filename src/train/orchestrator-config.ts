/**
 * The orchestrator GRPO trainer's one configuration: every constant of a run, validated by zod
 * (docs/train.md, "Training the orchestrator LM"). Reward, advantage and PPO constants mean what
 * they mean for the construction policy (config.ts) and share its ranges and defaults where the
 * logic is the same; the rest is what sampling a language model needs.
 */
import { z } from 'zod';
import { ADVANTAGE_NORMS, TrainConfigSchema } from './config.ts';

const seed = z.number().int().min(0).max(0xffffffff);
const shared = TrainConfigSchema.shape;

export const DOM_MIXES = ['both', 'low', 'high'] as const;

export const OrchestratorTrainConfigSchema = z
  .object({
    /** B: queries per iteration (MASBench train-split tasks, each in one Degree of MAS). */
    tasksPerIteration: z.number().int().min(1).max(256).default(4),
    /** G: designs sampled per query (the group the advantage is normalised over); at least 2. */
    groupSize: z.number().int().min(2).max(64).default(4),
    /** `mean`: A = R − mean_g R (Dr. GRPO); `std`: divided by the group's standard deviation too. */
    advantageNorm: z.enum(ADVANTAGE_NORMS).default('mean'),
    /** λ of R = correct − λ·min(1, tokens/costScale). */
    lambda: shared.lambda,
    costScale: shared.costScale,
    /** PPO clip ε on the per-token ratio. */
    clipEps: shared.clipEps,
    /** K: passes over an iteration's designs. */
    epochs: z.number().int().min(1).max(32).default(1),
    /** Designs per minibatch update, at most (see packRows). */
    minibatch: z.number().int().min(1).max(256).default(8),
    /**
     * Rows of nPositions positions in the training window, into which a minibatch's designs are
     * packed (each its own attention segment), so the update computes about the live tokens
     * rather than every design padded to the model's positions. A minibatch holds at most
     * `minibatch` designs, fewer when the next one does not fit. 0: one design per row
     * (`minibatch` rows, the rest of each row padding).
     */
    packRows: z.number().int().min(0).max(256).default(5),
    /** Adam learning rate. */
    lr: z.number().gt(0).max(1).default(2e-4),
    /** Global L2 norm the gradients are clipped to; 0 = no clipping. */
    gradClip: shared.gradClip,
    /** β_KL: weight of the per-token k3 estimate of KL(π_θ ‖ π_SFT); 0 = off. */
    klCoef: z.number().min(0).max(10).default(0.02),
    /** β_H: weight of the entropy bonus over the masked next-token distribution; 0 = off. */
    entropyCoef: z.number().min(0).max(1).default(0.001),
    /** τ: sampling temperature; the learner scores tokens at the same τ, so the ratio is on-policy. */
    temperature: z.number().gt(0).max(10).default(1),
    /** Most tokens a design may take (the end token included), capped by the positions the prompt leaves. */
    maxNewTokens: z.number().int().min(8).max(4096).default(256),
    /** Degree of MAS of the queries: both alternate low and high within an iteration. */
    dom: z.enum(DOM_MIXES).default('both'),
    /** Axis values the train and held-out tasks are drawn from. */
    values: z.array(z.number().int().min(1).max(12)).min(1).max(12).default([2, 3, 4, 5, 6]),
    /** Held-out test-split tasks of the before/after evaluation (each in both DoM). */
    evalTasks: z.number().int().min(0).max(2000).default(20),
    /** Seed of task draws, sampling and minibatch order. */
    seed: seed.default(0),
  })
  .strict();

export type OrchestratorTrainConfig = z.infer<typeof OrchestratorTrainConfigSchema>;
export type OrchestratorTrainConfigInput = z.input<typeof OrchestratorTrainConfigSchema>;

/** A valid config or an Error listing every problem as "path: message". */
export function orchestratorTrainConfig(input: unknown = {}): OrchestratorTrainConfig {
  const r = OrchestratorTrainConfigSchema.safeParse(input);
  if (r.success) return r.data;
  const problems = r.error.issues.map(
    (i) => `${i.path.length > 0 ? i.path.join('.') : 'config'}: ${i.message}`,
  );
  throw new Error(`invalid orchestrator training config: ${problems.join('; ')}`);
}
