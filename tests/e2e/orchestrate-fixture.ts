/**
 * Model folders for the Orchestrate page's e2e test, in the tiny model's layout (what
 * scripts/train-orchestrator.ts writes for models/baton-orchestrator-tiny/): a byte-level BPE
 * tokenizer with the tiny format's special and tag tokens, trained here on a few MASBench
 * questions and the role names, and a GPT-2 of the tiny size with random weights (`initWeights`
 * at a fixed seed) exported to ONNX (fp32, q8, q4) by `modelFolderFiles`.
 *
 * Random weights: a test fixture, never a model. Constrained decoding still makes its output a
 * valid design (the grammar decides the structure), which is what the page's flow needs; it says
 * nothing about the quality of the designs.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { initWeights, modelFolderFiles, trainTokenizer, type TinyGptConfig } from '../../src/lm/index.ts';
import { AXES, generateTask } from '../../src/masbench/index.ts';
import {
  TINY_SPECIAL_TOKENS,
  TINY_TAG_TOKENS,
  TINY_TOKENS,
  tinyQueryText,
  tinyRoles,
} from '../../src/orchestrator/index.ts';
import { DEFAULT_POOL } from '../../src/policy/index.ts';

function corpus(): string[] {
  const out: string[] = [];
  for (const axis of AXES)
    for (const value of [2, 3, 4]) out.push(tinyQueryText(generateTask({ axis, value, seed: 7 }).question));
  const roles = tinyRoles(DEFAULT_POOL);
  for (let i = 0; i < 4; i++)
    out.push(roles.map((r) => `${r.name}, ${r.slug}-${i + 1} ${r.agentType}`).join(' '));
  return out;
}

/** Writes the fixture model folder into `dir` (created); `vocab` changes the tokenizer's size only. */
export async function writeFixtureModel(
  dir: string,
  options: { tokenizerVocab?: number } = {},
): Promise<void> {
  const tok = trainTokenizer(corpus(), {
    vocabSize: 400,
    specialTokens: TINY_SPECIAL_TOKENS,
    addedTokens: TINY_TAG_TOKENS,
  });
  const config: TinyGptConfig = {
    vocabSize: tok.vocabSize,
    nPositions: 256,
    nEmbd: 32,
    nHead: 2,
    nLayer: 1,
    layerNormEps: 1e-5,
  };
  const end = tok.idOf(TINY_TOKENS.end) as number;
  const pad = tok.idOf(TINY_TOKENS.pad) as number;
  const files = modelFolderFiles(initWeights(config, 5), {
    tokenizerJson: tok.toTokenizerJson(),
    tokenizerConfig: tok.tokenizerConfigJson({ eos: TINY_TOKENS.end, pad: TINY_TOKENS.pad, maxLength: 256 }),
    specialTokens: { bos: end, eos: end, pad },
    meta: {
      name: 'baton-e2e-fixture',
      description: 'Random weights for the Orchestrate page e2e test: a fixture, not a model.',
      source: 'initWeights',
      seed: 5,
      training: { format: 'tiny', maxQueryTokens: 64 },
    },
  });
  for (const [path, data] of files) {
    const full = join(dir, path);
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, data);
  }
  if (options.tokenizerVocab !== undefined) {
    // A tokenizer that does not match the model: one of another size.
    const other = trainTokenizer(corpus(), {
      vocabSize: options.tokenizerVocab,
      specialTokens: TINY_SPECIAL_TOKENS,
      addedTokens: TINY_TAG_TOKENS,
    });
    await writeFile(join(dir, 'tokenizer.json'), JSON.stringify(other.toTokenizerJson()));
  }
}
