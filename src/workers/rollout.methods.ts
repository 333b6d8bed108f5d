import { z } from 'zod';
import { ConstructionStepSchema } from '../core/trace.ts';
import { MasBenchTaskSchema } from '../masbench/index.ts';
import { ActionRewardConfigSchema, PolicyCheckpointSchema, RolePoolSchema } from '../policy/index.ts';
import { defineMethods } from './rpc/protocol.ts';

/**
 * The rollout workers' one method (src/workers/rollout-pool.ts): `rollouts` samples a block of a
 * training iteration's constructions whole, the policy's passes on this worker's own CPU-side
 * backend and the simulated sub-agents beside them, and answers each construction's steps and
 * design. A worker keeps its sampler between calls, so a call carries only what changes:
 *
 * - `setup` (first call, or when the policy's network, pool or sampler options change): the
 *   checkpoint the sampler compiles (config, roles, parameter shapes), the role pool, the backend
 *   (`cpu` or `wasm`: a rollout worker has no GPU device), the largest block, JPSS and edge mode;
 * - `arena`: the parameters to sample with, as the learner's parameter arena (every call);
 * - `tasks`: MasBench tasks this worker has not been sent yet, under a number (`key`); `resetTasks`
 *   empties the table first;
 * - `episodes`: the block, each a task key and a sampling seed.
 *
 * Both sides parse what they receive (src/workers/rpc): a worker is untrusted like any input.
 */

/** Most constructions one call samples (B·G of the largest config, 256 × 64). */
export const MAX_ROLLOUT_EPISODES = 16_384;
/** Most floats of a parameter arena (the policy networks this project builds are far smaller). */
const MAX_ARENA = 16_000_000;
/** Most steps of a construction (TrainConfig.maxSteps). */
const MAX_STEPS = 64;

const key = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

export const RolloutSetupSchema = z.object({
  checkpoint: PolicyCheckpointSchema,
  pool: RolePoolSchema,
  backend: z.enum(['cpu', 'wasm']),
  maxBatch: z.number().int().min(1).max(MAX_ROLLOUT_EPISODES),
  jpss: z.boolean(),
  edgeMode: z.enum(['two-pass', 'fused']),
});
export type RolloutSetup = z.infer<typeof RolloutSetupSchema>;

export const RolloutRequestSchema = z.object({
  setup: RolloutSetupSchema.optional(),
  /** The checkpoint's name for these parameters (the traces' `designer.checkpoint`). */
  name: z.string().min(1).max(200),
  arena: z
    .instanceof(Float32Array)
    .refine((a) => a.length <= MAX_ARENA, { message: `a parameter arena of at most ${MAX_ARENA} floats` })
    .refine((a) => a.every((x) => Number.isFinite(x)), { message: 'parameters must be finite' }),
  resetTasks: z.boolean(),
  tasks: z.array(z.object({ key, task: MasBenchTaskSchema })).max(MAX_ROLLOUT_EPISODES),
  episodes: z
    .array(z.object({ task: key, seed: z.number().int() }))
    .min(1)
    .max(MAX_ROLLOUT_EPISODES),
  maxSteps: z.number().int().min(1).max(MAX_STEPS),
  temperature: z.number().gt(0).max(10),
  greedy: z.boolean(),
  intermediate: z.boolean(),
  rewards: ActionRewardConfigSchema,
});
export type RolloutRequest = z.infer<typeof RolloutRequestSchema>;

/**
 * A step as it crosses: `roleDistribution` as its probabilities alone (`roleP`), in the order of
 * `actionNames(pool)`, which is the order the sampler writes them in; the page puts the names back.
 */
export const WireStepSchema = ConstructionStepSchema.omit({ roleDistribution: true }).extend({
  roleP: z.array(z.number().min(0).max(1)).max(256),
});
export type WireStep = z.infer<typeof WireStepSchema>;

/**
 * One construction as it crosses: its steps and final outcome. The page replays the steps for the
 * states before each and the design after the last (src/policy `replay`), and adds the task.
 */
export const WireRolloutSchema = z.object({
  steps: z.array(WireStepSchema).max(MAX_STEPS),
  correct: z.boolean().nullable(),
  tokens: z.number().int().nonnegative(),
  intermediate: z.array(z.boolean().nullable()).max(MAX_STEPS),
});
export type WireRollout = z.infer<typeof WireRolloutSchema>;

export const rolloutMethods = defineMethods({
  rollouts: {
    input: RolloutRequestSchema,
    progress: z.never(),
    output: z.object({ rollouts: z.array(WireRolloutSchema).max(MAX_ROLLOUT_EPISODES) }),
  },
});
export type RolloutMethods = typeof rolloutMethods;
