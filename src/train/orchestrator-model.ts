/**
 * The orchestrator LM as the GRPO trainer holds it: weights, tokenizer and what the model folder
 * states (src/lm/hf-files.ts), read from a model folder's files (untrusted: size-limited, every
 * file validated, errors name the file and what is wrong) and written back as a model folder
 * (fp32/q8/q4 through the existing export) that `baton orchestrate --model` and the Orchestrate page
 * load. The weights come from the folder's fp32 ONNX file, whose initializers carry the spec names
 * and shapes (src/lm/onnx/gpt2.ts writes them so).
 */
import onnxProto from 'onnx-proto';
import { z } from 'zod';
import type { BpeTokenizer } from '../lm/index.ts';
import {
  checkWeights,
  modelFolderFiles,
  paramSpecs,
  parseModelConfig,
  tokenizerFromJson,
  type ExportDtype,
  type ModelConfigJson,
  type ModelProvenance,
  type TinyGptWeights,
} from '../lm/index.ts';

export const MAX_ONNX_BYTES = 200 * 1024 * 1024;

/** The files a model folder is read from: text files as text, the fp32 ONNX file as bytes. */
export interface ModelFolderInput {
  /** config.json */
  config: string;
  /** tokenizer.json */
  tokenizer: string;
  /** tokenizer_config.json, written unchanged into an exported folder */
  tokenizerConfig: string;
  /** The fp32 ONNX file (`baton.files.fp32` of config.json, usually onnx/model.onnx). */
  onnx: Uint8Array;
}

export interface OrchestratorModel {
  readonly weights: TinyGptWeights;
  readonly tokenizer: BpeTokenizer;
  readonly config: ModelConfigJson;
  /** The query tokens the prompt keeps (the model's training setting, else what the positions allow). */
  readonly maxQueryTokens: number;
  /** The end token (eos). */
  readonly endId: number;
  readonly padId: number | undefined;
  /** tokenizer_config.json as read. */
  readonly tokenizerConfig: Record<string, unknown>;
}

const PadId = z.object({ pad_token_id: z.number().int().min(0) });

const TrainedQuery = z.object({
  baton: z.object({
    provenance: z.object({ training: z.object({ maxQueryTokens: z.number().int().positive() }) }),
  }),
});

const fail = (file: string, why: string): never => {
  throw new Error(`not a usable orchestrator model folder: ${file}: ${why}`);
};

/** Weights by spec name from fp32 ONNX bytes (float32 initializers named as the spec names them). */
export function weightsFromOnnx(bytes: Uint8Array, config: TinyGptWeights['config']): TinyGptWeights {
  if (bytes.length > MAX_ONNX_BYTES) fail('onnx/model.onnx', `larger than ${MAX_ONNX_BYTES} bytes`);
  let m: onnxProto.onnx.ModelProto;
  try {
    m = onnxProto.onnx.ModelProto.decode(bytes);
  } catch (e) {
    return fail('onnx/model.onnx', `not an ONNX model (${e instanceof Error ? e.message : String(e)})`);
  }
  const inits = new Map((m.graph?.initializer ?? []).map((t) => [t.name ?? '', t]));
  const params = new Map<string, Float32Array>();
  for (const s of paramSpecs(config)) {
    const t = inits.get(s.name);
    if (!t) fail('onnx/model.onnx', `no fp32 weight ${s.name} (a quantized file cannot be trained from)`);
    const n = s.shape.reduce((a, b) => a * b, 1);
    let a: Float32Array;
    if (t?.rawData && t.rawData.length > 0) {
      if (t.dataType !== 1 || t.rawData.length !== 4 * n)
        fail('onnx/model.onnx', `weight ${s.name} is not ${n} float32 values`);
      const raw = t.rawData;
      a = new Float32Array(n);
      new Uint8Array(a.buffer).set(raw.subarray(0, 4 * n));
    } else {
      const f = t?.floatData ?? [];
      if (f.length !== n) fail('onnx/model.onnx', `weight ${s.name} is not ${n} float32 values`);
      a = Float32Array.from(f);
    }
    params.set(s.name, a);
  }
  const w: TinyGptWeights = { config, params };
  const problems = checkWeights(w);
  if (problems.length > 0) fail('onnx/model.onnx', problems.slice(0, 3).join('; '));
  return w;
}

export function readOrchestratorModel(f: ModelFolderInput): OrchestratorModel {
  const parsed = parseModelConfig(f.config);
  if (!parsed.ok)
    fail(
      'config.json',
      `${parsed.errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ')} (a Baton tiny-gpt folder, format baton.tiny-gpt/1, is needed)`,
    );
  const config = (parsed as { ok: true; value: ModelConfigJson }).value;
  const tc = config.baton.config;
  const tok = tokenizerFromJson(f.tokenizer);
  if (!tok.ok) return fail('tokenizer.json', tok.message);
  const tokenizer = tok.tokenizer;
  if (tokenizer.vocabSize > tc.vocabSize)
    fail('tokenizer.json', `${tokenizer.vocabSize} tokens for a model of ${tc.vocabSize}`);
  if (config.eos_token_id >= tokenizer.vocabSize) fail('config.json', 'eos_token_id is not a token');
  let tokenizerConfig: Record<string, unknown> = {};
  try {
    const t: unknown = f.tokenizerConfig.length > 1_000_000 ? null : JSON.parse(f.tokenizerConfig);
    if (t === null || typeof t !== 'object' || Array.isArray(t)) throw new Error('not a JSON object');
    tokenizerConfig = t as Record<string, unknown>;
  } catch (e) {
    fail('tokenizer_config.json', e instanceof Error ? e.message : String(e));
  }
  const weights = weightsFromOnnx(f.onnx, tc);
  const raw: unknown = JSON.parse(f.config);
  const trained = TrainedQuery.safeParse(raw);
  const pad = PadId.safeParse(raw);
  const maxQueryTokens = trained.success
    ? trained.data.baton.provenance.training.maxQueryTokens
    : Math.max(8, Math.floor(tc.nPositions / 4));
  return {
    weights,
    tokenizer,
    config,
    maxQueryTokens,
    endId: config.eos_token_id,
    padId: pad.success ? pad.data.pad_token_id : undefined,
    tokenizerConfig,
  };
}

/** A model folder (path → contents) for trained weights, with the source folder's tokenizer. */
export function orchestratorFolderFiles(
  model: OrchestratorModel,
  weights: TinyGptWeights,
  o: { meta: ModelProvenance; dtypes?: readonly ExportDtype[] },
): Map<string, Uint8Array | string> {
  return modelFolderFiles(weights, {
    tokenizerJson: model.tokenizer.toTokenizerJson(),
    tokenizerConfig: model.tokenizerConfig,
    specialTokens: {
      bos: model.config.bos_token_id,
      eos: model.endId,
      ...(model.padId === undefined ? {} : { pad: model.padId }),
    },
    meta: o.meta,
    ...(o.dtypes ? { dtypes: o.dtypes } : {}),
  });
}
