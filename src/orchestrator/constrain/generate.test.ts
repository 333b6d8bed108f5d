/**
 * The logits processor inside transformers.js' own `generate` (its Node build, onnxruntime-node on
 * the CPU), on a tiny model folder written by src/lm (random weights, a byte-level BPE tokenizer
 * trained here with the tiny format's tags as added tokens): every constrained output is a valid
 * tiny design; the same model unconstrained is not.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { AutoModelForCausalLM, AutoTokenizer, Tensor, env } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDesign } from '../../design/parse.ts';
import { TinyGptConfigSchema, initWeights, modelFolderFiles, trainTokenizer } from '../../lm/index.ts';
import { DEFAULT_POOL } from '../../policy/index.ts';
import {
  TINY_SPECIAL_TOKENS,
  TINY_TAG_TOKENS,
  TINY_TOKENS,
  expandTinyDesign,
  tinyPlanText,
  tinyRoles,
  type TinyPlan,
} from '../tiny-format.ts';
import { createDesignConstraint } from './engine.ts';
import { DesignLogitsProcessor } from './processor.ts';

const roles = tinyRoles(DEFAULT_POOL);
const plans: TinyPlan[] = [
  {
    dom: 'high',
    agents: [
      { role: 'Solver', links: [] },
      { role: 'Verifier', links: [0] },
    ],
  },
  { dom: 'low', agents: [{ role: 'Consensus Solver', links: [] }] },
  {
    dom: 'high',
    agents: [
      { role: 'Planner', links: [] },
      { role: 'Solver', links: [0] },
      { role: 'Calculator', links: [0] },
      { role: 'Summarizer', links: [1, 2] },
    ],
  },
];
const corpus = plans.map((p) => tinyPlanText(p, DEFAULT_POOL));
const tok = trainTokenizer([...corpus, ...corpus, 'What is 12 + 30? Two trains leave a station.'], {
  vocabSize: 420,
  specialTokens: TINY_SPECIAL_TOKENS,
  addedTokens: TINY_TAG_TOKENS,
});
const EOS = tok.idOf(TINY_TOKENS.end) as number;
const MODEL = 'baton-test/constrained';
let root = '';

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'baton-constrain-'));
  const config = TinyGptConfigSchema.parse({
    vocabSize: tok.vocabSize,
    nPositions: 512,
    nEmbd: 32,
    nHead: 2,
    nLayer: 1,
  });
  const files = modelFolderFiles(initWeights(config, 3), {
    tokenizerJson: tok.toTokenizerJson(),
    tokenizerConfig: tok.tokenizerConfigJson({ eos: TINY_TOKENS.end, pad: TINY_TOKENS.pad, maxLength: 512 }),
    specialTokens: { bos: EOS, eos: EOS },
    meta: {
      name: 'constrained-test',
      description: 'random weights for a test',
      source: 'initWeights',
      seed: 3,
    },
    dtypes: ['fp32'],
  });
  for (const [path, data] of files) {
    const full = join(root, MODEL, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, data);
  }
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = root;
});

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('DesignLogitsProcessor in transformers.js generate', () => {
  it('constrained outputs are valid tiny designs (sampled and greedy, both DoM); unconstrained are not', async () => {
    const tokenizer = await AutoTokenizer.from_pretrained(MODEL);
    const model = await AutoModelForCausalLM.from_pretrained(MODEL, { dtype: 'fp32', device: 'cpu' });
    try {
      const prompt = [
        tok.idOf(TINY_TOKENS.domHigh) as number,
        ...tok.encode('What is 12 + 30?'),
        tok.idOf(TINY_TOKENS.design) as number,
      ];
      const input_ids = new Tensor('int64', BigInt64Array.from(prompt.map(BigInt)), [1, prompt.length]);
      let valid = 0;
      const runs: { dom: 'low' | 'high'; sample: boolean }[] = [
        { dom: 'high', sample: false },
        { dom: 'low', sample: false },
        { dom: 'high', sample: true },
        { dom: 'high', sample: true },
        { dom: 'low', sample: true },
      ];
      for (const { dom, sample } of runs) {
        const c = await createDesignConstraint({
          vocab: tokenizer as never,
          eosIds: [EOS],
          format: 'tiny',
          dom,
          roles: roles.map((r) => ({ name: r.name, agentType: r.agentType })),
          maxAgents: 5,
        });
        const out = (await model.generate({
          input_ids,
          max_new_tokens: 400,
          do_sample: sample,
          logits_processor: [new DesignLogitsProcessor(c)],
        } as never)) as Tensor;
        const ids = Array.from(out.data as BigInt64Array, Number).slice(prompt.length);
        expect(ids.at(-1)).toBe(EOS);
        expect(c.complete).toBe(true);
        const text = tok.decode(ids.slice(0, -1));
        expect(text).toBe(c.text());
        const parsed = parseDesign(text, dom);
        expect(parsed.problems).toEqual([]);
        const expanded = parsed.raw ? expandTinyDesign(parsed.raw, DEFAULT_POOL) : null;
        expect(expanded?.ok ? [] : expanded?.problems).toEqual([]);
        if (expanded?.ok) valid++;
        expect(c.stats.forcedTokens).toBeGreaterThan(c.stats.steps / 2);
      }
      expect(valid).toBe(runs.length);
      // The same model without the processor: random weights write no design.
      const free = (await model.generate({
        input_ids,
        max_new_tokens: 120,
        do_sample: false,
      } as never)) as Tensor;
      const freeText = tok.decode(Array.from(free.data as BigInt64Array, Number).slice(prompt.length));
      const report = parseDesign(freeText, 'high');
      expect(report.problems.length + report.violations.length).toBeGreaterThan(0);
    } finally {
      await model.dispose();
    }
  });
});
