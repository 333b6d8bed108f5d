/**
 * A loadable tiny model folder for tests: random weights from `initWeights` (no training, so its
 * output is noise), a word-level fixture tokenizer over the whole vocabulary (`<eos>`, `t1` …), and
 * the ONNX files of `modelFolderFiles`. Tests of the loading path (transformers.js in Node, the app
 * serving a folder in the hub's URL layout) use it; `scripts/export-tiny-model.ts` writes it to disk.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  TinyGptConfigSchema,
  initWeights,
  modelFolderFiles,
  type ExportDtype,
  type TinyGptConfig,
  type TinyGptWeights,
} from '../../src/lm/index.ts';

export const FIXTURE_CONFIG: TinyGptConfig = TinyGptConfigSchema.parse({
  vocabSize: 40,
  nPositions: 32,
  nEmbd: 64,
  nHead: 4,
  nLayer: 2,
});

/** Id 0 is `<eos>` (also bos and the unknown token); id i > 0 is `t<i>`. */
export const FIXTURE_EOS = 0;

export function fixtureTokenizerJson(vocabSize: number): object {
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [
      {
        id: 0,
        content: '<eos>',
        single_word: false,
        lstrip: false,
        rstrip: false,
        normalized: false,
        special: true,
      },
    ],
    normalizer: null,
    pre_tokenizer: { type: 'WhitespaceSplit' },
    post_processor: null,
    decoder: { type: 'WordPiece', prefix: '##', cleanup: false },
    model: {
      type: 'WordLevel',
      vocab: Object.fromEntries(
        Array.from({ length: vocabSize }, (_, i) => [i === 0 ? '<eos>' : `t${i}`, i]),
      ),
      unk_token: '<eos>',
    },
  };
}

/** The folder's files for random weights of `config` under `seed`. */
export function tinyModelFiles(
  opts: { config?: TinyGptConfig; seed?: number; dtypes?: readonly ExportDtype[] } = {},
): { weights: TinyGptWeights; files: Map<string, Uint8Array | string> } {
  const config = opts.config ?? FIXTURE_CONFIG;
  const seed = opts.seed ?? 1;
  const weights = initWeights(config, seed);
  const files = modelFolderFiles(weights, {
    tokenizerJson: fixtureTokenizerJson(config.vocabSize),
    tokenizerConfig: {
      tokenizer_class: 'PreTrainedTokenizerFast',
      eos_token: '<eos>',
      bos_token: '<eos>',
      unk_token: '<eos>',
      model_max_length: config.nPositions,
    },
    specialTokens: { bos: FIXTURE_EOS, eos: FIXTURE_EOS },
    meta: {
      name: 'baton-tiny-random',
      description:
        'Random weights (initWeights) with a word-level fixture tokenizer: a test fixture, not a model.',
      source: 'initWeights',
      seed,
    },
    ...(opts.dtypes ? { dtypes: opts.dtypes } : {}),
  });
  return { weights, files };
}

/** Writes `files` under `dir` (folders made as needed). */
export function writeFolder(dir: string, files: ReadonlyMap<string, Uint8Array | string>): void {
  for (const [path, data] of files) {
    const full = join(dir, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, data);
  }
}
