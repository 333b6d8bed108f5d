import { z } from 'zod';
import { PolicyCheckpointSchema } from '../policy/index.ts';
import { MAX_SNAPSHOT_TEXT, TrainConfigSchema, TrainerSnapshotSchema } from '../train/index.ts';
import { defineMethods } from './rpc/protocol.ts';

/**
 * The training worker's methods (src/workers/train.worker.ts). The worker holds one trainer; the
 * page drives it: `start` builds it (from random, prior, a checkpoint or a snapshot), `run` takes
 * iterations one at a time and streams each one's metrics (cancelling the call is "pause": the
 * iteration in flight finishes, nothing more starts), `snapshot` / `trained` hand back its state,
 * `evaluate` scores prior, random and current on held-out tasks, `reset` drops it. Calls are
 * served one after another, so a `snapshot` sent while an iteration runs answers after it.
 */

const seed = z.number().int().min(0).max(0xffffffff);

export const BackendPreferenceSchema = z.enum(['auto', 'cpu', 'webgpu']);

/**
 * Threads the simulated sub-agents of a run use (src/workers/sim-pool.ts): the training worker's
 * own and simulator workers beside it (1, the default: the training worker's alone). `auto`: a
 * worker per core beyond two, at most 8 threads in all.
 */
export const SimThreadsSchema = z.union([z.literal('auto'), z.number().int().min(1).max(8)]);
export type SimThreads = z.infer<typeof SimThreadsSchema>;

export const TrainFromSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('random'), seed }),
  z.object({ kind: z.literal('prior') }),
  z.object({ kind: z.literal('checkpoint'), checkpoint: PolicyCheckpointSchema }),
  /** Continue a run: its config and start checkpoint win over `config`. */
  z.object({ kind: z.literal('snapshot'), snapshot: TrainerSnapshotSchema }),
]);
export type TrainFrom = z.input<typeof TrainFromSchema>;

/** One finished iteration's metrics, as snapshots keep them. */
export const IterationMetricsSchema = TrainerSnapshotSchema.shape.history.element;

const num = z.number().finite();

export const BackendStateSchema = z.object({
  backend: z.enum(['cpu', 'wasm', 'webgpu']),
  /** Why this backend (src/gpu/select.ts), or what happened to it. */
  reason: z.string().max(2000),
});

export const TrainProgressSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('iteration'),
    metrics: IterationMetricsSchema,
    /** Constructions (sampling + simulation + update) per second of this iteration, in the worker. */
    episodesPerSecond: num.nonnegative(),
    ms: num.nonnegative(),
  }),
  /** The backend line changed (rollout workers measured against one thread: kept or dropped). */
  z.object({ kind: z.literal('backend'), backend: BackendStateSchema }),
  /**
   * Every `snapshotEvery` iterations. A worker that can keep it (in IndexedDB, where the page reads
   * it after a reload) saves it itself and reports only the iteration: the snapshot is megabytes
   * (the optimizer's moments), which the page's main thread would otherwise receive and store while
   * training runs. Otherwise `text` carries it as `baton.train/1` JSON for the page to store as it
   * is; whoever reads it back checks it with `snapshotFromJson`.
   */
  z.object({
    kind: z.literal('snapshot'),
    iteration: z.number().int().min(0),
    text: z.string().max(MAX_SNAPSHOT_TEXT).optional(),
  }),
  /** Every `config.evalEvery` iterations: the current policy's greedy score on held-out tasks. */
  z.object({
    kind: z.literal('heldout'),
    iteration: z.number().int().min(0),
    n: z.number().int().min(1),
    accuracy: num.min(0).max(1),
    reward: num,
  }),
  /** The WebGPU device was lost: the trainer continues on the CPU side (wasm or TypeScript) from the last finished iteration. */
  z.object({
    kind: z.literal('recovered'),
    iteration: z.number().int().min(0),
    lost: z.number().int().min(0),
    message: z.string().max(2000),
    backend: BackendStateSchema,
  }),
]);
export type TrainProgress = z.output<typeof TrainProgressSchema>;

const AxisScoreSchema = z.object({
  n: z.number().int().min(0),
  accuracy: num,
  interval: z.tuple([num, num]),
  tokens: num,
});

export const EvalResultSchema = AxisScoreSchema.extend({
  agents: num,
  edges: num,
  reward: num,
  perAxis: z.record(z.string().max(40), AxisScoreSchema),
});

/** What a policy's greedy designs look like on the held-out tasks of one axis (or `all`). */
export const StructureRowSchema = z.object({
  n: z.number().int().min(0),
  agents: num,
  edges: num,
  depth: num,
  /** Share of designs with at least one agent of the role. */
  roleUse: z.record(z.string().max(80), num),
});
export type StructureRow = z.output<typeof StructureRowSchema>;
const StructureSchema = z.record(z.string().max(40), StructureRowSchema);

export const EvaluationSchema = z.object({
  /** Held-out tasks per policy and the seed they were drawn with. */
  n: z.number().int().min(1),
  seed,
  prior: EvalResultSchema,
  random: EvalResultSchema,
  /** Null before `start`. */
  current: EvalResultSchema.nullable(),
  /** Per axis (and `all`): the structure of each policy's greedy designs on the same tasks. */
  structure: z.object({
    prior: StructureSchema,
    random: StructureSchema,
    current: StructureSchema.nullable(),
  }),
  /** Iteration of the current policy that was scored. */
  iteration: z.number().int().min(0),
});
export type Evaluation = z.output<typeof EvaluationSchema>;

/** A start the worker can rebuild from its name alone (a re-run, an ablation study). */
export const BuiltInFromSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('random'), seed }),
  z.object({ kind: z.literal('prior') }),
]);

export const RerunProgressSchema = z.object({
  iteration: z.number().int().min(0),
  iterations: z.number().int().min(1),
});
export type RerunProgress = z.output<typeof RerunProgressSchema>;

const MeanIntervalSchema = z.object({ n: z.number().int().min(0), mean: num, interval: z.tuple([num, num]) });
const CurvePointSchema = z.object({
  iteration: z.number().int().min(0),
  reward: num,
  accuracy: num,
  tokens: num,
  agents: num,
  kl: num,
});
const FinalScoreSchema = z.object({
  n: z.number().int().min(0),
  accuracy: num,
  reward: num,
  tokens: num,
  agents: num,
  edges: num,
});
const MAX_ABLATION_ITERATIONS = 1000;
const MAX_ABLATION_SEEDS = 20;

export const AblationProgressSchema = z.object({
  variant: z.string().max(80),
  variantIndex: z.number().int().min(0),
  seedIndex: z.number().int().min(0),
  seed,
  iteration: z.number().int().min(0),
  iterations: z.number().int().min(1),
  runsDone: z.number().int().min(0),
  runsTotal: z.number().int().min(1),
});
export type AblationProgressReport = z.output<typeof AblationProgressSchema>;

export const AblationStudySchema = z.object({
  format: z.literal('baton.ablation/1'),
  start: z.string().max(200),
  base: TrainConfigSchema,
  iterations: z.number().int().min(1),
  seeds: z.array(seed).max(MAX_ABLATION_SEEDS),
  evalN: z.number().int().min(1),
  evalSeed: seed,
  interval: z.string().max(400),
  startScore: FinalScoreSchema,
  variants: z
    .array(
      z.object({
        variant: z.string().max(80),
        label: z.string().max(200),
        seeds: z.number().int().min(0),
        accuracy: MeanIntervalSchema,
        reward: MeanIntervalSchema,
        tokens: MeanIntervalSchema,
        agents: num,
        curve: z.array(CurvePointSchema).max(MAX_ABLATION_ITERATIONS),
      }),
    )
    .max(16),
  runs: z
    .array(
      z.object({
        variant: z.string().max(80),
        seed,
        curve: z.array(CurvePointSchema).max(MAX_ABLATION_ITERATIONS),
        final: FinalScoreSchema,
      }),
    )
    .max(16 * MAX_ABLATION_SEEDS),
  complete: z.boolean(),
});
export type AblationStudyOutput = z.output<typeof AblationStudySchema>;

export const trainMethods = defineMethods({
  start: {
    input: z.object({
      config: TrainConfigSchema,
      from: TrainFromSchema,
      backend: BackendPreferenceSchema,
      simThreads: SimThreadsSchema.default(1),
      /** Threads that sample the run's rollouts (rollout-pool.ts): this one and rollout workers. */
      rolloutThreads: SimThreadsSchema.default(1),
    }),
    progress: z.never(),
    output: BackendStateSchema.extend({ iteration: z.number().int().min(0), startName: z.string().max(200) }),
  },
  run: {
    input: z.object({
      /** At most this many iterations (1 = a single step). */
      iterations: z.number().int().min(1).max(1_000_000),
      /** A snapshot is reported after every this many iterations (and always after the last one). */
      snapshotEvery: z.number().int().min(1).max(10_000),
    }),
    progress: TrainProgressSchema,
    output: z.object({ iteration: z.number().int().min(0), backend: BackendStateSchema }),
  },
  snapshot: { input: z.object({}), progress: z.never(), output: TrainerSnapshotSchema },
  trained: { input: z.object({}), progress: z.never(), output: PolicyCheckpointSchema },
  evaluate: {
    input: z.object({ n: z.number().int().min(1).max(2000), seed }),
    progress: z.object({ done: z.number().int().min(0), total: z.number().int().min(1) }),
    output: EvaluationSchema,
  },
  reset: { input: z.object({}), progress: z.never(), output: z.object({}) },
  /**
   * Trains a fresh policy from a built-in start with `config` for `iterations` on the CPU backend,
   * apart from the run `start` holds, and answers every iteration's metrics: what a shared run's
   * re-run compares against its record (src/train/run-record.ts `firstDifference`).
   */
  rerun: {
    input: z.object({
      config: TrainConfigSchema,
      from: BuiltInFromSchema,
      iterations: z.number().int().min(1).max(5_000),
    }),
    progress: RerunProgressSchema,
    output: z.object({ history: z.array(IterationMetricsSchema).max(5_000) }),
  },
  /**
   * The ablation study (src/train/ablation.ts `runAblation`): the chosen variants × seeds from one
   * built-in start, progress per (variant, seed, iteration); cancelling ends it at the next iteration.
   */
  ablation: {
    input: z.object({
      base: TrainConfigSchema,
      from: BuiltInFromSchema,
      /** Variant ids of `ABLATION_VARIANTS`, in the order to run them. */
      variants: z.array(z.string().max(80)).min(1).max(16),
      seeds: z.array(seed).min(1).max(MAX_ABLATION_SEEDS),
      iterations: z.number().int().min(1).max(MAX_ABLATION_ITERATIONS),
      evalN: z.number().int().min(1).max(2000),
      evalSeed: seed,
      backend: BackendPreferenceSchema,
    }),
    progress: AblationProgressSchema,
    output: AblationStudySchema,
  },
  /**
   * Test hook: destroys the WebGPU device the trainer runs on after `afterUpdates` more minibatch
   * updates (0 = at once), to exercise device-loss recovery. Answers whether a device was there.
   */
  loseDevice: {
    input: z.object({ afterUpdates: z.number().int().min(0).max(1_000_000) }),
    progress: z.never(),
    output: z.object({ armed: z.boolean() }),
  },
});

export type TrainMethods = typeof trainMethods;
