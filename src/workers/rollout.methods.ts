import { z } from 'zod';
import { TRACE_LIMITS } from '../core/trace.ts';
import { MasBenchTaskSchema } from '../masbench/index.ts';
import { ActionRewardConfigSchema, PolicyCheckpointSchema, RolePoolSchema } from '../policy/index.ts';
import { defineMethods } from './rpc/protocol.ts';

/**
 * The rollout workers' one method (src/workers/rollout-pool.ts): `rollouts` samples a block of a
 * training iteration's constructions whole, the policy's passes on this worker's own CPU-side
 * backend and the simulated sub-agents beside them, and answers each construction's steps and
 * outcome in columns (`WireBlockSchema`). A worker keeps its sampler between calls, so a call carries only what changes:
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

/** A typed array of at most `most` entries. */
const typed = <C extends new (n: number) => { length: number }>(ctor: C, what: string, most: number) =>
  z
    .instanceof(ctor)
    .refine((a) => (a as InstanceType<C>).length <= most, { message: `${what}: at most ${most} entries` });
/** Most steps of a block: MAX_ROLLOUT_EPISODES constructions of MAX_STEPS steps. */
const MAX_BLOCK_STEPS = MAX_ROLLOUT_EPISODES * MAX_STEPS;

/**
 * One worker's answer: its block's constructions in columns (src/workers/rollout-wire.ts encodes
 * and decodes them, and checks every number). Per construction (`n`): its step count, final
 * correctness (−1 for null) and tokens. Per step (`S`, the counts' sum): the action's column in
 * `actionNames(pool)` order, how many links it made and their agents' positions (`links`), its
 * action probabilities (`roleP`, S × actions), its edge probabilities (`edgeP`, one per agent
 * before an ADD), log-probability (NaN for null), whether the user chose it, which intermediate
 * fields it has (`results`, bit flags), its answer (an index into `texts`, −1 for none), action
 * reward, run (5 numbers per step, `runCode` its backend and status, `problem` a text index) and
 * intermediate correctness (−1 for null). Lengths that do not agree are refused there.
 */
export const WireBlockSchema = z.object({
  counts: typed(Uint8Array, 'step counts', MAX_ROLLOUT_EPISODES),
  correct: typed(Int8Array, 'final correctness', MAX_ROLLOUT_EPISODES),
  tokens: typed(Float64Array, 'tokens', MAX_ROLLOUT_EPISODES),
  col: typed(Uint16Array, 'actions', MAX_BLOCK_STEPS),
  linkCounts: typed(Uint8Array, 'link counts', MAX_BLOCK_STEPS),
  links: typed(Uint16Array, 'links', MAX_BLOCK_STEPS * 256),
  roleP: typed(Float64Array, 'action probabilities', MAX_BLOCK_STEPS * 258),
  edgeP: typed(Float64Array, 'edge probabilities', MAX_BLOCK_STEPS * 256),
  logProb: typed(Float64Array, 'log-probabilities', MAX_BLOCK_STEPS),
  user: typed(Uint8Array, 'choosers', MAX_BLOCK_STEPS),
  results: typed(Uint8Array, 'result flags', MAX_BLOCK_STEPS),
  answer: typed(Int32Array, 'answers', MAX_BLOCK_STEPS),
  reward: typed(Float64Array, 'rewards', MAX_BLOCK_STEPS),
  run: typed(Float64Array, 'runs', MAX_BLOCK_STEPS * 5),
  runCode: typed(Uint8Array, 'run codes', MAX_BLOCK_STEPS),
  problem: typed(Int32Array, 'problems', MAX_BLOCK_STEPS),
  intermediate: typed(Int8Array, 'intermediate results', MAX_BLOCK_STEPS),
  texts: z.array(z.string().max(TRACE_LIMITS.text)).max(2 * MAX_BLOCK_STEPS),
});
export type WireBlock = z.infer<typeof WireBlockSchema>;

export const rolloutMethods = defineMethods({
  rollouts: {
    input: RolloutRequestSchema,
    progress: z.never(),
    output: WireBlockSchema,
  },
});
export type RolloutMethods = typeof rolloutMethods;
