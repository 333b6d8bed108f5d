/**
 * The tiny model as a folder in the Hugging Face / transformers.js layout, so the app loads it with
 * the same `AutoModelForCausalLM.from_pretrained` path a hub model takes: `config.json` in GPT-2's
 * field names (what transformers.js' `getNormalizedConfig` reads for `model_type: "gpt2"`),
 * `generation_config.json`, the tokenizer files as given, and one ONNX file per dtype under the
 * names transformers.js maps dtypes to (`utils/dtypes.js`: '' for fp32, `_quantized` for q8, `_q4`).
 *
 * `config.json` also carries a `baton` block: the architecture in our own names, the parameter
 * count, the files written and where the weights came from, so a folder explains itself and the
 * app can check that a folder is the one it expects (`parseModelConfig`). Pure: a script writes the
 * returned map to disk.
 */
import { z } from 'zod';
import { type ErrorCode, problemOf } from '../core/errors.ts';
import { fail, ok, type Result } from '../core/result.ts';
import { exportTinyGptOnnx } from './onnx/gpt2.ts';
import { type ExportDtype } from './onnx/quantize.ts';
import { TinyGptConfigSchema, paramCount, type TinyGptWeights } from './spec.ts';

/** The file transformers.js loads for each dtype (subfolder `onnx`, `model` + suffix + `.onnx`). */
export const ONNX_FILE_BY_DTYPE: Readonly<Record<ExportDtype, string>> = {
  fp32: 'onnx/model.onnx',
  q8: 'onnx/model_quantized.onnx',
  q4: 'onnx/model_q4.onnx',
};

/** The folder format version written into `config.json`'s `baton` block. */
export const MODEL_FOLDER_FORMAT = 'baton.tiny-gpt/1';

/** Where the weights came from: written into config.json so a folder says what it is. */
export const ModelProvenanceSchema = z
  .object({
    /** A stable id for the model, e.g. `baton-orchestrator-tiny`. */
    name: z.string().min(1).max(200),
    description: z.string().max(4_000),
    /** What made the weights: `initWeights` (random, tests only) or the training script's name. */
    source: z.string().min(1).max(500),
    seed: z.number().int().optional(),
    /** Free-form numbers about training (steps, loss, data size); the training script fills it. */
    training: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
    createdAt: z.string().max(100).optional(),
  })
  .strict();

export type ModelProvenance = z.infer<typeof ModelProvenanceSchema>;

export const SpecialTokensSchema = z
  .object({
    bos: z.number().int().min(0),
    eos: z.number().int().min(0),
    pad: z.number().int().min(0).optional(),
  })
  .strict();

export type SpecialTokens = z.infer<typeof SpecialTokensSchema>;

export interface ModelFolderOptions {
  /** `tokenizer.json` as text or as the parsed object. */
  readonly tokenizerJson: string | object;
  readonly tokenizerConfig: object;
  readonly specialTokens: SpecialTokens;
  readonly meta: ModelProvenance;
  /** The ONNX variants to write; all three by default. */
  readonly dtypes?: readonly ExportDtype[];
}

/** What `config.json` holds, as the app reads it back (unknown extra fields are allowed: hub configs have many). */
export const ModelConfigSchema = z.object({
  model_type: z.literal('gpt2'),
  vocab_size: z.number().int().positive(),
  n_positions: z.number().int().positive(),
  n_embd: z.number().int().positive(),
  n_head: z.number().int().positive(),
  n_layer: z.number().int().positive(),
  bos_token_id: z.number().int().min(0),
  eos_token_id: z.number().int().min(0),
  baton: z
    .object({
      format: z.literal(MODEL_FOLDER_FORMAT),
      config: TinyGptConfigSchema,
      paramCount: z.number().int().positive(),
      files: z.partialRecord(z.enum(['fp32', 'q8', 'q4']), z.string()),
      provenance: ModelProvenanceSchema,
    })
    .strict(),
});

export type ModelConfigJson = z.infer<typeof ModelConfigSchema>;

const json = (v: unknown): string => `${JSON.stringify(v, null, 2)}\n`;

/** Every file of the model folder by its path relative to the folder. */
export function modelFolderFiles(
  w: TinyGptWeights,
  opts: ModelFolderOptions,
): Map<string, Uint8Array | string> {
  const meta = ModelProvenanceSchema.parse(opts.meta);
  const special = SpecialTokensSchema.parse(opts.specialTokens);
  const c = w.config;
  for (const [k, id] of Object.entries(special)) {
    if (id !== undefined && id >= c.vocabSize)
      throw new Error(`${k} token id ${id} is outside the vocabulary (${c.vocabSize})`);
  }
  const dtypes = [...new Set(opts.dtypes ?? (['fp32', 'q8', 'q4'] as const))];
  const files = Object.fromEntries(dtypes.map((d) => [d, ONNX_FILE_BY_DTYPE[d]]));
  const config = {
    architectures: ['GPT2LMHeadModel'],
    model_type: 'gpt2',
    vocab_size: c.vocabSize,
    n_positions: c.nPositions,
    n_ctx: c.nPositions,
    n_embd: c.nEmbd,
    n_head: c.nHead,
    n_layer: c.nLayer,
    n_inner: 4 * c.nEmbd,
    activation_function: 'gelu_new',
    layer_norm_epsilon: c.layerNormEps,
    tie_word_embeddings: true,
    use_cache: true,
    bos_token_id: special.bos,
    eos_token_id: special.eos,
    ...(special.pad === undefined ? {} : { pad_token_id: special.pad }),
    baton: { format: MODEL_FOLDER_FORMAT, config: c, paramCount: paramCount(c), files, provenance: meta },
  };
  const generation = {
    bos_token_id: special.bos,
    eos_token_id: special.eos,
    ...(special.pad === undefined ? {} : { pad_token_id: special.pad }),
    // The model has no positions past n_positions: generation must stop there.
    max_length: c.nPositions,
    do_sample: false,
  };
  const out = new Map<string, Uint8Array | string>([
    ['config.json', json(config)],
    ['generation_config.json', json(generation)],
    [
      'tokenizer.json',
      typeof opts.tokenizerJson === 'string' ? opts.tokenizerJson : json(opts.tokenizerJson),
    ],
    ['tokenizer_config.json', json(opts.tokenizerConfig)],
  ]);
  for (const d of dtypes) out.set(ONNX_FILE_BY_DTYPE[d], exportTinyGptOnnx(w, { dtype: d }));
  return out;
}

/** Reads a model folder's `config.json` text; problems carry `E_MODEL_CONFIG`. */
export function parseModelConfig(text: string, maxBytes = 1_000_000): Result<ModelConfigJson> {
  const code: ErrorCode = 'E_MODEL_CONFIG';
  if (text.length > maxBytes) return fail(problemOf(code, `config.json is larger than ${maxBytes} bytes`));
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return fail(problemOf(code, `config.json is not JSON (${e instanceof Error ? e.message : String(e)})`));
  }
  const parsed = ModelConfigSchema.safeParse(raw);
  if (!parsed.success) {
    return fail(
      ...parsed.error.issues.map((i) => ({ ...problemOf(code, i.message), path: i.path.join('.') })),
    );
  }
  const v = parsed.data;
  const c = v.baton.config;
  const mismatch = (
    [
      ['vocab_size', v.vocab_size, c.vocabSize],
      ['n_positions', v.n_positions, c.nPositions],
      ['n_embd', v.n_embd, c.nEmbd],
      ['n_head', v.n_head, c.nHead],
      ['n_layer', v.n_layer, c.nLayer],
    ] as const
  ).filter(([, a, b]) => a !== b);
  if (mismatch.length > 0) {
    return fail(
      ...mismatch.map(([k, a, b]) => ({
        ...problemOf(code, `${k} is ${a} but baton.config says ${b}`),
        path: k,
      })),
    );
  }
  return ok(v);
}
