/**
 * Test model folders in the transformers.js layout, written to a temp dir at test time:
 * `config.json` (a GPT-2 config, the architecture of src/lm/spec.ts), `generation_config.json`, a
 * byte-level tokenizer (`tokenizer.json` + `tokenizer_config.json`: the 256 byte symbols of GPT-2's
 * byte-level BPE with no merges, plus `<|end|>`) and, when given, `onnx/model<suffix>.onnx` files.
 * The weights in a fixture are random (src/lm/init.ts): a fixture only, never a model.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** GPT-2's byte → printable character table (bytes_to_unicode). */
export function byteSymbols(): string[] {
  const keep: number[] = [];
  for (let b = 33; b <= 126; b++) keep.push(b);
  for (let b = 161; b <= 172; b++) keep.push(b);
  for (let b = 174; b <= 255; b++) keep.push(b);
  const out: string[] = new Array<string>(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    out[b] = keep.includes(b) ? String.fromCharCode(b) : String.fromCharCode(256 + extra++);
  }
  return out;
}

export const END_TOKEN = '<|end|>';
/** Token ids of the fixture tokenizer: 0..255 the bytes, 256 `<|end|>`. */
export const FIXTURE_VOCAB = 257;

export function tokenizerJson(): object {
  const vocab: Record<string, number> = {};
  byteSymbols().forEach((s, i) => (vocab[s] = i));
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [
      {
        id: 256,
        content: END_TOKEN,
        single_word: false,
        lstrip: false,
        rstrip: false,
        normalized: false,
        special: true,
      },
    ],
    normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: null,
    decoder: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab,
      merges: [],
    },
  };
}

export interface FixtureConfig {
  vocabSize: number;
  nPositions: number;
  nEmbd: number;
  nHead: number;
  nLayer: number;
}

export function configJson(c: FixtureConfig): object {
  return {
    model_type: 'gpt2',
    architectures: ['GPT2LMHeadModel'],
    vocab_size: c.vocabSize,
    n_positions: c.nPositions,
    n_ctx: c.nPositions,
    n_embd: c.nEmbd,
    n_head: c.nHead,
    n_layer: c.nLayer,
    bos_token_id: 256,
    eos_token_id: 256,
    use_cache: true,
  };
}

export interface FixtureOptions {
  config: FixtureConfig;
  /** ONNX files by path in the folder, e.g. `onnx/model_quantized.onnx`. */
  onnx?: Record<string, Uint8Array>;
  /** Replace the tokenizer (a mismatched one, for the bad-input tests). */
  tokenizer?: object;
  /** Where to write it (default: a fresh temp dir). */
  dir?: string;
}

/** Writes a model folder and answers its path. */
export async function writeModelFolder(o: FixtureOptions): Promise<string> {
  const dir = o.dir ?? (await mkdtemp(join(tmpdir(), 'baton-model-')));
  await mkdir(join(dir, 'onnx'), { recursive: true });
  await writeFile(join(dir, 'config.json'), JSON.stringify(configJson(o.config), null, 2));
  await writeFile(
    join(dir, 'generation_config.json'),
    JSON.stringify({ bos_token_id: 256, eos_token_id: 256, max_length: o.config.nPositions }, null, 2),
  );
  await writeFile(join(dir, 'tokenizer.json'), JSON.stringify(o.tokenizer ?? tokenizerJson()));
  await writeFile(
    join(dir, 'tokenizer_config.json'),
    JSON.stringify(
      {
        tokenizer_class: 'GPT2Tokenizer',
        eos_token: END_TOKEN,
        bos_token: END_TOKEN,
        model_max_length: o.config.nPositions,
        add_prefix_space: false,
      },
      null,
      2,
    ),
  );
  for (const [file, bytes] of Object.entries(o.onnx ?? {})) await writeFile(join(dir, file), bytes);
  return dir;
}
