import { z } from 'zod';
import { DesignSchema } from '../core/trace.ts';
import { defineMethods } from './rpc/protocol.ts';
import { BackendPreferenceSchema, BackendStateSchema } from './train.methods.ts';
import { OrchRecordEvaluationSchema } from '../train/orchestrator-record.ts';

/**
 * The training worker's methods for GRPO of the orchestrator LM (src/train orchestrator-*.ts), beside
 * the construction policy's (train.methods.ts); the same worker script serves both tables. The page
 * drives one run: `orchStart` loads the SFT model (the offline model's folder in this build) and
 * builds the trainer (fresh, or from the checkpoint the worker saved in IndexedDB), `orchRun` takes
 * iterations one at a time and streams each one's metrics and sampled designs (cancelling it is
 * "pause": the iteration in flight finishes), `orchSave` stores the checkpoint, `orchEvaluate`
 * scores the SFT model and the current weights on the same held-out queries, `orchExport` writes
 * the current weights as a model folder the Orchestrate page loads, `orchReset` drops the run.
 * Every message is parsed against these schemas on both sides.
 */

const seed = z.number().int().min(0).max(0xffffffff);
const num = z.number().finite();
const TEXT = 2000;

/**
 * What the page sets of the run's config (src/train orchestrator-config.ts holds the ranges and
 * the defaults of everything left out; the worker checks the whole config with it).
 */
export const OrchConfigInputSchema = z
  .object({
    tasksPerIteration: z.number().int().min(1).max(256),
    groupSize: z.number().int().min(2).max(64),
    temperature: z.number().gt(0).max(10),
    lambda: z.number().min(0).max(10),
    klCoef: z.number().min(0).max(10),
    entropyCoef: z.number().min(0).max(1),
    lr: z.number().gt(0).max(1),
    epochs: z.number().int().min(1).max(32),
    minibatch: z.number().int().min(1).max(256),
    maxNewTokens: z.number().int().min(8).max(4096),
    advantageNorm: z.enum(['mean', 'std']),
    dom: z.enum(['both', 'low', 'high']),
    /** MASBench axis values the train and held-out tasks are drawn from. */
    values: z.array(z.number().int().min(1).max(12)).min(1).max(12),
    evalTasks: z.number().int().min(0).max(2000),
    seed,
  })
  .partial()
  .strict();
export type OrchConfigInput = z.output<typeof OrchConfigInputSchema>;

/** One finished iteration (src/train `OrchestratorIterationMetrics`). */
export const OrchMetricsSchema = z.object({
  iteration: z.number().int().min(1),
  /** Designs sampled (B·G). */
  samples: z.number().int().min(0),
  reward: num,
  rewardStd: num,
  accuracy: num,
  tokensPerTask: num,
  designTokens: num,
  forcedShare: num,
  agents: num,
  depth: num,
  validity: num,
  lowDomDelegated: num.nullable(),
  kl: num,
  entropy: num,
  clipFraction: num,
  loss: num,
  gradNorm: z.number(),
  updates: z.number().int().min(0),
  trainedTokens: z.number().int().min(0),
  timings: z.object({ rolloutMs: num, runMs: num, updateMs: num }).optional(),
  rolloutTokensPerSec: num.optional(),
  updateTokensPerSec: num.optional(),
});
export type OrchMetrics = z.output<typeof OrchMetricsSchema>;

const MAX_HISTORY = 100_000;

/** A design sampled in the latest iteration, with what the simulator made of it. */
export const OrchSampledSchema = z.object({
  taskId: z.string().max(200),
  axis: z.string().max(40),
  value: z.number().int().min(0).max(100),
  dom: z.enum(['low', 'high']),
  /** The model's text (tiny format). */
  text: z.string().max(20_000),
  /** Its expansion; null when it did not read (counted invalid). */
  design: DesignSchema.nullable(),
  reward: num,
  correct: z.boolean(),
});
export type OrchSampled = z.output<typeof OrchSampledSchema>;

/** The SFT model the run starts from and is held near (KL). */
export const OrchModelInfoSchema = z.object({
  id: z.string().max(200),
  /** config.json's provenance name. */
  name: z.string().max(200),
  params: z.number().int().min(0),
  positions: z.number().int().min(1),
  /** The design text format it writes (`tiny`, `tiny2`). */
  promptFormat: z.string().max(40).optional(),
});

/** The run as the worker holds or saved it. */
export const OrchRunInfoSchema = z.object({
  iteration: z.number().int().min(0),
  model: z.string().max(200),
  /** The whole config, as the trainer uses it. */
  config: z.record(z.string().max(80), z.unknown()),
  history: z.array(OrchMetricsSchema).max(MAX_HISTORY),
});
export type OrchRunInfo = z.output<typeof OrchRunInfoSchema>;

export const OrchProgressSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('iteration'),
    metrics: OrchMetricsSchema,
    /** At most a few designs per iteration (what the page draws). */
    sampled: z.array(OrchSampledSchema).max(64),
    ms: num.nonnegative(),
  }),
  /** The checkpoint was stored in IndexedDB (`stored`), or could not be (`error`). */
  z.object({
    kind: z.literal('snapshot'),
    iteration: z.number().int().min(0),
    stored: z.boolean(),
    error: z.string().max(TEXT).optional(),
  }),
  /** The WebGPU device was lost: the run continues on the CPU from the last finished iteration. */
  z.object({
    kind: z.literal('recovered'),
    iteration: z.number().int().min(0),
    message: z.string().max(TEXT),
    backend: BackendStateSchema,
  }),
]);
export type OrchProgress = z.output<typeof OrchProgressSchema>;

/**
 * The held-out before/after evaluation: after − before over the same queries (paired bootstrap,
 * 95%). One schema with the shared run record's (src/train/orchestrator-record.ts).
 */
export const OrchEvaluationSchema = OrchRecordEvaluationSchema;
export type OrchEvaluation = z.output<typeof OrchEvaluationSchema>;

const baseUrl = z.url({ protocol: /^https?$/ }).max(TEXT);

export const ExportedModelSchema = z.object({
  /** Folder name under `trained-models/`. */
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/),
  /** The folder's URL: what the Orchestrate page's model field takes. */
  url: z.url().max(TEXT),
  iteration: z.number().int().min(0),
  files: z.array(z.object({ file: z.string().max(200), bytes: z.number().int().min(0) })).max(32),
});
export type ExportedModel = z.output<typeof ExportedModelSchema>;

export const orchTrainMethods = defineMethods({
  orchStart: {
    input: z.object({
      /** The app's base URL: the SFT model is read from `<baseUrl>models/<folder>/`. */
      baseUrl,
      /** The model folder under models/ (the manifest's offline model). */
      folder: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/),
      config: OrchConfigInputSchema,
      /** Continue the checkpoint saved in this browser instead of starting from the SFT model. */
      resume: z.boolean(),
      backend: BackendPreferenceSchema,
    }),
    progress: z.never(),
    output: BackendStateSchema.extend({ run: OrchRunInfoSchema, model: OrchModelInfoSchema }),
  },
  orchRun: {
    input: z.object({
      iterations: z.number().int().min(1).max(1_000_000),
      /** The checkpoint is stored after every this many iterations (and after the last). */
      snapshotEvery: z.number().int().min(1).max(10_000),
    }),
    progress: OrchProgressSchema,
    output: z.object({ iteration: z.number().int().min(0), backend: BackendStateSchema }),
  },
  /** Stores the checkpoint now; answers the run as saved. */
  orchSave: { input: z.object({}), progress: z.never(), output: OrchRunInfoSchema },
  /** The run saved in this browser, without building anything (null: none). */
  orchSaved: { input: z.object({}), progress: z.never(), output: OrchRunInfoSchema.nullable() },
  /** Forgets the saved checkpoint. */
  orchForget: { input: z.object({}), progress: z.never(), output: z.object({}) },
  orchEvaluate: {
    input: z.object({ tasks: z.number().int().min(1).max(500) }),
    progress: z.object({ done: z.number().int().min(0), total: z.number().int().min(1) }),
    output: OrchEvaluationSchema,
  },
  orchExport: { input: z.object({ baseUrl }), progress: z.never(), output: ExportedModelSchema },
  orchReset: { input: z.object({}), progress: z.never(), output: z.object({}) },
  /** Test hook: destroys the WebGPU device after that many more iterations (0 = at once). */
  orchLoseDevice: {
    input: z.object({ afterIterations: z.number().int().min(0).max(1_000_000) }),
    progress: z.never(),
    output: z.object({ armed: z.boolean() }),
  },
});

export type OrchTrainMethods = typeof orchTrainMethods;
