/**
 * Part of `npm run bench:orchestrator-mask`: transformers.js `generate` with and without
 * `DesignLogitsProcessor` on the same model, tokens per second. The model is a tiny model folder
 * written by src/lm with random weights (the trained model is not in the repository yet) and a
 * byte-level tokenizer trained on tiny-format designs; the constrained run writes a complete tiny
 * design, the plain run is held to the same number of new tokens (`min_new_tokens`).
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { AutoModelForCausalLM, AutoTokenizer, Tensor, env } from '@huggingface/transformers';
import { TinyGptConfigSchema, initWeights, modelFolderFiles, trainTokenizer } from '../src/lm/index.ts';
import { createDesignConstraint } from '../src/orchestrator/constrain/engine.ts';
import { DesignLogitsProcessor } from '../src/orchestrator/constrain/processor.ts';
import {
  TINY_SPECIAL_TOKENS,
  TINY_TAG_TOKENS,
  TINY_TOKENS,
  tinyPlanText,
  tinyRoles,
} from '../src/orchestrator/tiny-format.ts';
import { DEFAULT_POOL } from '../src/policy/index.ts';

export interface GenerateRow {
  model: string;
  runs: number;
  tokens: number;
  plainTokPerS: number;
  constrainedTokPerS: number;
  ratio: number;
  forcedShare: number;
  /** `stats.maskMs / stats.steps` of the constrained runs. */
  maskMsPerToken: number;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
};

export async function generateSpeed(runs = 20, warmup = 3): Promise<GenerateRow> {
  const corpus = [
    tinyPlanText(
      {
        dom: 'high',
        agents: [
          { role: 'Planner', links: [] },
          { role: 'Solver', links: [0] },
          { role: 'Summarizer', links: [1] },
        ],
      },
      DEFAULT_POOL,
    ),
    tinyPlanText({ dom: 'low', agents: [{ role: 'Consensus Solver', links: [] }] }, DEFAULT_POOL),
  ];
  const tok = trainTokenizer([...corpus, ...corpus, 'What is 12 + 30? Two trains leave a station.'], {
    vocabSize: 600,
    specialTokens: TINY_SPECIAL_TOKENS,
    addedTokens: TINY_TAG_TOKENS,
  });
  const eos = tok.idOf(TINY_TOKENS.end) as number;
  const cfg = { vocabSize: tok.vocabSize, nPositions: 512, nEmbd: 128, nHead: 4, nLayer: 4 };
  const root = mkdtempSync(join(tmpdir(), 'baton-gen-bench-'));
  try {
    const files = modelFolderFiles(initWeights(TinyGptConfigSchema.parse(cfg), 5), {
      tokenizerJson: tok.toTokenizerJson(),
      tokenizerConfig: tok.tokenizerConfigJson({
        eos: TINY_TOKENS.end,
        pad: TINY_TOKENS.pad,
        maxLength: 512,
      }),
      specialTokens: { bos: eos, eos },
      meta: { name: 'bench', description: 'random weights', source: 'initWeights', seed: 5 },
      dtypes: ['fp32'],
    });
    for (const [path, data] of files) {
      const full = join(root, 'bench/model', path);
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, data);
    }
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = root;
    const tokenizer = await AutoTokenizer.from_pretrained('bench/model');
    const model = await AutoModelForCausalLM.from_pretrained('bench/model', { dtype: 'fp32', device: 'cpu' });
    const prompt = [
      tok.idOf(TINY_TOKENS.domHigh) as number,
      ...tok.encode('What is 12 + 30?'),
      tok.idOf(TINY_TOKENS.design) as number,
    ];
    const input_ids = new Tensor('int64', BigInt64Array.from(prompt.map(BigInt)), [1, prompt.length]);
    const roles = tinyRoles(DEFAULT_POOL).map((r) => ({ name: r.name, agentType: r.agentType }));
    const plain: number[] = [];
    const constrained: number[] = [];
    let tokens = 0;
    let forced = 0;
    let steps = 0;
    let maskMs = 0;
    for (let r = 0; r < warmup + runs; r++) {
      // The first `warmup` runs are not recorded. The constraint is made outside the timed part, as the
      // runtime makes it before generation.
      const c = await createDesignConstraint({
        vocab: tokenizer as never,
        eosIds: [eos],
        format: 'tiny',
        dom: 'high',
        roles,
        maxAgents: 6,
      });
      let t = performance.now();
      const out = (await model.generate({
        input_ids,
        max_new_tokens: 450,
        do_sample: false,
        logits_processor: [new DesignLogitsProcessor(c)],
      } as never)) as Tensor;
      const tc = performance.now() - t;
      const n = (out.dims[1] ?? 0) - prompt.length;
      if (!c.complete) throw new Error('the constrained run did not complete a design');
      t = performance.now();
      await model.generate({ input_ids, max_new_tokens: n, min_new_tokens: n, do_sample: false } as never);
      const tp = performance.now() - t;
      if (r < warmup) continue;
      tokens = n;
      forced += c.stats.forcedTokens;
      steps += c.stats.steps;
      maskMs += c.stats.maskMs;
      constrained.push((n / tc) * 1000);
      plain.push((n / tp) * 1000);
    }
    await model.dispose();
    const p = median(plain);
    const k = median(constrained);
    return {
      model: `random weights, ${cfg.nLayer} layers × d ${cfg.nEmbd}, vocabulary ${tok.vocabSize}, fp32, onnxruntime-node CPU`,
      runs,
      tokens,
      plainTokPerS: p,
      constrainedTokPerS: k,
      ratio: k / p,
      forcedShare: forced / steps,
      maskMsPerToken: maskMs / steps,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
