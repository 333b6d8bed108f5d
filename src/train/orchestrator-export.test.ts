/**
 * The model folder a GRPO run exports (orchestratorFolderFiles), read back through transformers.js
 * (onnxruntime-node on the CPU): the logits of its fp32 file equal the compute core's (the
 * compiled LM graph on the CPU backend) for real prompts and designs within 1e-4 (absolute, on
 * logits of magnitude ~10), and those of its q8 file within 0.25 (the q8 file quantizes the
 * weights to 8 bits and onnxruntime quantizes the activations of each matmul on the fly, so its
 * logits are not those of any f32 weights).
 */
import { AutoModelForCausalLM, Tensor, env } from '@huggingface/transformers';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFolder } from '../../tests/support/tiny-model.ts';
import { createRng } from '../core/rng.ts';
import { compile } from '../gpu/index.ts';
import { buildTinyGptGraph, type TinyGptWeights } from '../lm/index.ts';
import { drawTeacherTasks, tinyDesignSampling } from '../orchestrator/index.ts';
import { DEFAULT_POOL } from '../policy/index.ts';
import { CpuExactDecoder } from './orchestrator-decode.ts';
import { orchestratorFolderFiles, readOrchestratorModel } from './orchestrator-model.ts';
import { sampleDesigns } from './orchestrator-sampler.ts';

const DIR = new URL('../../models/baton-orchestrator-tiny/', import.meta.url);
const model = readOrchestratorModel({
  config: readFileSync(new URL('config.json', DIR), 'utf8'),
  tokenizer: readFileSync(new URL('tokenizer.json', DIR), 'utf8'),
  tokenizerConfig: readFileSync(new URL('tokenizer_config.json', DIR), 'utf8'),
  onnx: new Uint8Array(readFileSync(new URL('onnx/model.onnx', DIR))),
});
const CPU = { backend: 'cpu', reason: 'test', adapter: null, ctx: null } as const;
const FP32_TOL = 1e-4;
const Q8_TOL = 0.25;

// A checkpoint other than the shipped weights, as after training: every weight moved a little.
const trained: TinyGptWeights = {
  config: model.weights.config,
  params: new Map(
    [...model.weights.params].map(([k, a]) => [k, a.map((x, i) => x + 0.01 * Math.sin(0.37 * i + k.length))]),
  ),
};

let root = '';
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'baton-grpo-export-'));
  writeFolder(
    join(root, 'grpo'),
    orchestratorFolderFiles(model, trained, {
      meta: { name: 'baton-orchestrator-tiny-grpo', description: 'test', source: 'test' },
      dtypes: ['fp32', 'q8'],
    }),
  );
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = root;
});
afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

/** The compute core's logits for `ids` from position 0: [ids.length, vocab]. */
async function coreLogits(w: TinyGptWeights, ids: readonly number[]): Promise<Float32Array> {
  const seq = w.config.nPositions;
  const tg = buildTinyGptGraph(w.config, { batch: 1, seq, weights: w });
  const m = await compile(CPU, tg.graph);
  const pad = (xs: readonly number[]): Uint32Array => {
    const a = new Uint32Array(seq);
    a.set(xs);
    return a;
  };
  m.setInput('ids', pad(ids));
  m.setInput(
    'positions',
    Uint32Array.from({ length: seq }, (_, t) => t),
  );
  m.setInput('targets', new Uint32Array(seq));
  m.setInput('weights', new Float32Array(seq));
  await m.step({ backward: false, update: false });
  const out = (await m.read(tg.logits)).slice(0, ids.length * w.config.vocabSize);
  m.dispose();
  return out;
}

async function onnxLogits(dtype: 'fp32' | 'q8', seqs: readonly number[][]): Promise<Float32Array[]> {
  const lm = await AutoModelForCausalLM.from_pretrained('grpo', { dtype, device: 'cpu' });
  try {
    const out: Float32Array[] = [];
    for (const ids of seqs) {
      const input_ids = new Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, ids.length]);
      const attention_mask = new Tensor('int64', new BigInt64Array(ids.length).fill(1n), [1, ids.length]);
      const r = (await lm({ input_ids, attention_mask })) as { logits: Tensor };
      expect(r.logits.dims).toEqual([1, ids.length, trained.config.vocabSize]);
      out.push(Float32Array.from(r.logits.data as Float32Array));
    }
    return out;
  } finally {
    await lm.dispose();
  }
}

const maxDiff = (a: Float32Array, b: Float32Array): number => {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs((a[i] as number) - (b[i] as number)));
  return m;
};

describe('the exported orchestrator folder', () => {
  it(`gives the compute core's logits: fp32 within ${FP32_TOL}, q8 within ${Q8_TOL}`, async () => {
    const format = tinyDesignSampling({
      tokenizer: model.tokenizer,
      vocabSize: trained.config.vocabSize,
      maxQueryTokens: model.maxQueryTokens,
      pool: DEFAULT_POOL,
    });
    const tasks = drawTeacherTasks({ count: 2, baseSeed: 5, split: 'test', values: [2, 4] });
    // Real prompts and the designs the trained weights write for them, in both DoM.
    const samples = await sampleDesigns({
      decoder: new CpuExactDecoder(trained),
      format,
      queries: tasks.flatMap((task) => [
        { task, dom: 'low' as const },
        { task, dom: 'high' as const },
      ]),
      group: 1,
      temperature: 1,
      greedy: true,
      rng: createRng(0),
      maxNewTokens: 64,
    });
    const seqs = samples.map((s) => [...s.prompt, ...s.tokens]);
    expect(seqs.length).toBe(4);
    const core = await Promise.all(seqs.map((ids) => coreLogits(trained, ids)));
    const shipped = await coreLogits(model.weights, seqs[0]!);
    // the export carries the trained weights, not the folder it was read from
    expect(maxDiff(core[0]!, shipped)).toBeGreaterThan(100 * FP32_TOL);
    const scale = Math.max(...core.map((c) => Math.max(...Array.from(c, Math.abs))));
    expect(scale).toBeGreaterThan(1);

    const fp32 = await onnxLogits('fp32', seqs);
    const d32 = Math.max(...seqs.map((_, i) => maxDiff(fp32[i]!, core[i]!)));
    expect(d32).toBeLessThan(FP32_TOL);

    const q8 = await onnxLogits('q8', seqs);
    const d8 = Math.max(...seqs.map((_, i) => maxDiff(q8[i]!, core[i]!)));
    expect(d8).toBeLessThan(Q8_TOL);
    expect(d8).toBeGreaterThan(d32); // the q8 file is quantized indeed
    console.log(
      `max |Δ logit| against the compute core: fp32 ${d32.toExponential(2)}, q8 ${d8.toExponential(2)}; logits up to ${scale.toFixed(1)}`,
    );
  }, 300_000);
});
