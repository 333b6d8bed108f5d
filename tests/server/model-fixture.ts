/**
 * Test model folders in the transformers.js layout, written to a temp dir at test time by the
 * project's own writers: `modelFolderFiles` (src/lm/hf-files.ts: config, generation config, ONNX per
 * dtype) on `initWeights` (random weights: a test fixture only, never a model), and the tiny
 * format's byte-level tokenizer (src/lm/tokenizer.ts) with its special and tag tokens and no merges.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  BpeTokenizer,
  TinyGptConfigSchema,
  initWeights,
  modelFolderFiles,
  type ExportDtype,
} from '../../src/lm/index.ts';
import { TINY_SPECIAL_TOKENS, TINY_TAG_TOKENS, TINY_TOKENS } from '../../src/orchestrator/index.ts';

/** The fixture tokenizer: 5 special tokens, 20 tag tokens, 256 bytes. */
export const fixtureTokenizer = (): BpeTokenizer =>
  new BpeTokenizer({ specialTokens: TINY_SPECIAL_TOKENS, addedTokens: TINY_TAG_TOKENS, merges: [] });

export const FIXTURE_VOCAB = fixtureTokenizer().vocabSize;

export interface FixtureOptions {
  /** Model shape; vocabSize defaults to the tokenizer's. */
  config?: Partial<{ vocabSize: number; nPositions: number; nEmbd: number; nHead: number; nLayer: number }>;
  seed?: number;
  dtypes?: readonly ExportDtype[];
  /** Where to write it (default: a fresh temp dir). */
  dir?: string;
}

/** Writes a tiny-format model folder with random weights and answers its path. */
export async function writeModelFolder(o: FixtureOptions = {}): Promise<string> {
  const tok = fixtureTokenizer();
  const config = TinyGptConfigSchema.parse({
    vocabSize: tok.vocabSize,
    nPositions: 1024,
    nEmbd: 32,
    nHead: 2,
    nLayer: 1,
    ...o.config,
  });
  const seed = o.seed ?? 1;
  const end = tok.idOf(TINY_TOKENS.end) as number;
  const pad = tok.idOf(TINY_TOKENS.pad) as number;
  const files = modelFolderFiles(initWeights(config, seed), {
    tokenizerJson: tok.toTokenizerJson(),
    tokenizerConfig: tok.tokenizerConfigJson({
      eos: TINY_TOKENS.end,
      pad: TINY_TOKENS.pad,
      maxLength: config.nPositions,
    }),
    specialTokens: { bos: end, eos: end, pad },
    meta: {
      name: 'baton-test-fixture',
      description: 'random weights: a test fixture',
      source: 'initWeights',
      seed,
    },
    ...(o.dtypes ? { dtypes: o.dtypes } : {}),
  });
  const dir = o.dir ?? (await mkdtemp(join(tmpdir(), 'baton-model-')));
  for (const [path, data] of files) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), data);
  }
  return dir;
}
