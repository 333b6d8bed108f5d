import { z } from 'zod';
import { DesignSchema, DesignerSchema } from '../core/trace.ts';
import { DtypeSchema, ModelEntrySchema, PromptFormatSchema } from '../orchestrator/index.ts';
import { defineMethods } from './rpc/protocol.ts';

/**
 * The orchestrator worker's methods (src/workers/orchestrator.worker.ts): one language model held in
 * the worker, loaded with transformers.js (src/orchestrator), writing MAS designs.
 *
 * - `manifest` reads models/manifest.json (the entries, and a warning per bad entry).
 * - `load` downloads (or reads from the browser cache) a model's files, reporting each file's
 *   progress, builds the session on the chosen device and warms it up. Loading another model drops
 *   the one held. Cancelling the call stops waiting; the files already fetched stay cached.
 * - `generate` writes one design for a query, streaming text as it is decoded; its answer holds the
 *   raw output, the parsed design (or why none), timings and the trace's designer record.
 * - `interrupt` stops a generation in flight at the next token (its `generate` still answers, with
 *   what was written and `stopReason: 'interrupted'`); cancelling `generate` does the same.
 * - `clearCache` deletes cached model files; `dispose` drops the model and frees its memory.
 *
 * Model failures are not thrown: every answer is `{ ok: true, … }` or `{ ok: false, problem }`, the
 * problem coded `E_MODEL_*` (src/core/errors.ts), so the page shows which of them happened (a
 * corrupt file, a 404, a tokenizer that does not match, output that is no design). `E_WORKER_*`
 * errors remain for the worker itself failing.
 */

export const MODEL_CODES = [
  'E_MODEL_MANIFEST',
  'E_MODEL_SPEC',
  'E_MODEL_NOT_FOUND',
  'E_MODEL_NETWORK',
  'E_MODEL_FILE',
  'E_MODEL_TOKENIZER',
  'E_MODEL_DEVICE',
  'E_MODEL_NOT_LOADED',
  'E_MODEL_BUSY',
  'E_MODEL_GENERATE',
  'E_MODEL_OUTPUT',
  'E_MODEL_CACHE',
] as const;
export type ModelErrorCode = (typeof MODEL_CODES)[number];

const TEXT = 20_000;
const num = z.number().finite();
const nonNeg = num.nonnegative();

export const ModelProblemSchema = z.object({
  code: z.enum(MODEL_CODES),
  message: z.string().max(TEXT),
  /** The file or field it concerns, when there is one. */
  path: z.string().max(2000).optional(),
});
export type ModelProblem = z.output<typeof ModelProblemSchema>;

const failed = z.object({ ok: z.literal(false), problem: ModelProblemSchema });

export const DevicePreferenceSchema = z.enum(['auto', 'webgpu', 'wasm', 'cpu']);
export type DevicePreference = z.infer<typeof DevicePreferenceSchema>;
export const DeviceSchema = z.enum(['webgpu', 'wasm', 'cpu']);

export const LoadInputSchema = z.object({
  /** A manifest id, a hub id (`owner/name`) or a model folder URL. */
  model: z.string().min(1).max(2000),
  device: DevicePreferenceSchema.default('auto'),
  /** `auto`: the first dtype the entry offers that the device suits. */
  dtype: z.union([z.literal('auto'), DtypeSchema]).default('auto'),
  /**
   * The app's base URL (where `models/` and onnxruntime-web's `ort/` files are served); the page
   * knows it, a worker's own location does not say it.
   */
  baseUrl: z.url({ protocol: /^https?$/ }).max(2000),
  /** Keep downloaded files in the browser's Cache API (default true). */
  useCache: z.boolean().default(true),
});

export const LoadProgressSchema = z.discriminatedUnion('kind', [
  /** One file's download (or cache read): bytes so far of `total` (0 when the server did not say). */
  z.object({
    kind: z.literal('file'),
    file: z.string().max(500),
    status: z.enum(['start', 'progress', 'done']),
    loaded: nonNeg,
    total: nonNeg,
  }),
  /** What the loader does now. */
  z.object({
    kind: z.literal('stage'),
    stage: z.enum(['manifest', 'config', 'tokenizer', 'model', 'warmup']),
    message: z.string().max(2000),
  }),
]);
export type LoadProgress = z.output<typeof LoadProgressSchema>;

export const LoadedModelSchema = z.object({
  /** The manifest id, or what the user typed. */
  id: z.string().max(2000),
  label: z.string().max(2000),
  entry: ModelEntrySchema.nullable(),
  dtype: DtypeSchema,
  device: DeviceSchema,
  /** Why this device and dtype: asked for, or chosen (e.g. "no WebGPU adapter: wasm"). */
  deviceReason: z.string().max(2000),
  promptFormat: PromptFormatSchema,
  vocabSize: z.number().int().nonnegative(),
  /** Files fetched or read from the cache, bytes. */
  files: z.array(z.object({ file: z.string().max(500), bytes: nonNeg })).max(200),
  loadMs: nonNeg,
  warmupMs: nonNeg,
});
export type LoadedModel = z.output<typeof LoadedModelSchema>;

export const DomChoiceSchema = z.enum(['low', 'high', 'auto']);

export const GenerateInputSchema = z.object({
  query: z.string().min(1).max(TEXT),
  /** Degree of MAS: `auto` lets the model choose between one agent (or none) and a DAG. */
  dom: DomChoiceSchema.default('auto'),
  /** Hold the output to the design grammar (default true); false for comparison. */
  constrained: z.boolean().default(true),
  /** 0 = greedy. */
  temperature: z.number().min(0).max(2).default(0),
  seed: z.number().int().min(0).max(0xffffffff).default(0),
  /** Default: the entry's `maxNewTokens`. */
  maxNewTokens: z.number().int().min(1).max(32_768).optional(),
});

export const GenerateProgressSchema = z.discriminatedUnion('kind', [
  /** Text decoded since the last report (whole characters), and the tokens generated so far. */
  z.object({ kind: z.literal('text'), text: z.string().max(TEXT), tokens: z.number().int().nonnegative() }),
]);
export type GenerateProgress = z.output<typeof GenerateProgressSchema>;

export const GenerateTimingsSchema = z.object({
  /** From the call to the first generated token (prompt processing included), ms. */
  firstTokenMs: nonNeg,
  generateMs: nonNeg,
  tokens: z.number().int().nonnegative(),
  /** Generated tokens per second after the first one (decode speed). */
  tokensPerSecond: nonNeg,
});

export const GeneratedSchema = z.object({
  ok: z.literal(true),
  rawOutput: z.string().max(2_000_000),
  /** The validated design; null when the output does not parse or breaks a rule (`problem` says why). */
  design: DesignSchema.nullable(),
  /** `E_MODEL_OUTPUT` with the parse errors and broken rules, when `design` is null. */
  problem: ModelProblemSchema.optional(),
  stopReason: z.enum(['eos', 'max-tokens', 'interrupted']),
  timings: GenerateTimingsSchema,
  /** Tokens of the prompt as the model read it. */
  promptTokens: z.number().int().nonnegative().optional(),
  /** The trace's designer record (kind `orchestrator`). */
  designer: DesignerSchema,
});
export type Generated = z.output<typeof GeneratedSchema>;

export const orchestratorMethods = defineMethods({
  manifest: {
    input: z.object({ baseUrl: z.url({ protocol: /^https?$/ }).max(2000) }),
    progress: z.never(),
    output: z.discriminatedUnion('ok', [
      z.object({
        ok: z.literal(true),
        default: z.string().max(80),
        models: z.array(ModelEntrySchema).max(200),
        /** One line per entry left out, saying why. */
        warnings: z.array(z.string().max(TEXT)).max(200),
      }),
      failed,
    ]),
  },
  load: {
    input: LoadInputSchema,
    progress: LoadProgressSchema,
    output: z.discriminatedUnion('ok', [LoadedModelSchema.extend({ ok: z.literal(true) }), failed]),
  },
  generate: {
    input: GenerateInputSchema,
    progress: GenerateProgressSchema,
    output: z.discriminatedUnion('ok', [GeneratedSchema, failed]),
  },
  interrupt: {
    input: z.object({}),
    progress: z.never(),
    output: z.object({ interrupted: z.boolean() }),
  },
  clearCache: {
    input: z.object({}),
    progress: z.never(),
    output: z.discriminatedUnion('ok', [
      z.object({ ok: z.literal(true), deleted: z.number().int().nonnegative() }),
      failed,
    ]),
  },
  dispose: { input: z.object({}), progress: z.never(), output: z.object({ disposed: z.boolean() }) },
});

export type OrchestratorMethods = typeof orchestratorMethods;
