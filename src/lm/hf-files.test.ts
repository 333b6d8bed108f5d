/**
 * The model folder through transformers.js itself (its Node build, onnxruntime-node on the CPU):
 * `AutoModelForCausalLM.from_pretrained` loads each dtype from a local folder with remote models
 * off, and greedy `generate` gives the reference's tokens. Also `config.json` read back.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AutoModelForCausalLM, AutoTokenizer, Tensor, env } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ONNX_FILE_BY_DTYPE, modelFolderFiles, parseModelConfig } from './hf-files.ts';
import { dequantizedWeights } from './onnx/quantize.ts';
import { greedy } from './reference.ts';
import { FIXTURE_EOS, tinyModelFiles, writeFolder } from '../../tests/support/tiny-model.ts';

const { weights, files } = tinyModelFiles({ seed: 11 });
const config = weights.config;
const EOS = FIXTURE_EOS;

let root = '';
const MODEL = 'baton-test/tiny';

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'baton-hf-'));
  writeFolder(join(root, MODEL), files);
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = root;
});

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('model folder', () => {
  it('has the files transformers.js looks for, and a config.json that reads back', () => {
    const files = modelFolderFiles(weights, {
      tokenizerJson: '{}',
      tokenizerConfig: {},
      specialTokens: { bos: 1, eos: 2 },
      meta: { name: 'x', description: '', source: 'initWeights' },
      dtypes: ['fp32'],
    });
    expect([...files.keys()]).toEqual([
      'config.json',
      'generation_config.json',
      'tokenizer.json',
      'tokenizer_config.json',
      'onnx/model.onnx',
    ]);
    const parsed = parseModelConfig(files.get('config.json') as string);
    expect(parsed.ok && parsed.value.baton.config).toEqual(config);
    expect(parsed.ok && parsed.value.baton.files).toEqual({ fp32: 'onnx/model.onnx' });
    const bad = parseModelConfig((files.get('config.json') as string).replace('"n_head": 4', '"n_head": 8'));
    expect(bad.ok ? null : bad.errors[0]?.code).toBe('E_MODEL_CONFIG');
    expect(bad.ok ? null : bad.errors[0]?.message).toMatch(/n_head is 8 but baton.config says 4/);
    expect(parseModelConfig('{').ok).toBe(false);
    expect(() =>
      modelFolderFiles(weights, {
        tokenizerJson: '{}',
        tokenizerConfig: {},
        specialTokens: { bos: 1, eos: 40 },
        meta: { name: 'x', description: '', source: 'initWeights' },
      }),
    ).toThrow(/outside the vocabulary/);
  });

  it('the fixture tokenizer loads from the folder', async () => {
    const tok = await AutoTokenizer.from_pretrained(MODEL);
    expect(tok.encode('t3 t7 <eos>', { add_special_tokens: false })).toEqual([3, 7, 0]);
    expect(tok.decode([3, 7, 0], { skip_special_tokens: true })).toBe('t3 t7');
  });
});

describe.each(['fp32', 'q8', 'q4'] as const)('transformers.js loads and generates (%s)', (dtype) => {
  it(`greedy generate gives the reference's tokens (${ONNX_FILE_BY_DTYPE[dtype]})`, async () => {
    const model = await AutoModelForCausalLM.from_pretrained(MODEL, { dtype, device: 'cpu' });
    try {
      // fp32 against the reference on the fp32 weights; the quantized files against the reference
      // on the weights they store (their own greedy path, cache included).
      const ref = dequantizedWeights(weights, dtype);
      for (const prompt of [
        [5, 9, 13],
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
      ]) {
        const input_ids = new Tensor('int64', BigInt64Array.from(prompt.map(BigInt)), [1, prompt.length]);
        const out = (await model.generate({ input_ids, max_new_tokens: 16, do_sample: false })) as Tensor;
        const ids = Array.from(out.data as BigInt64Array, Number);
        expect(ids.slice(0, prompt.length)).toEqual(prompt);
        const expected = greedy(ref, prompt, 16, EOS);
        expect(ids.slice(prompt.length)).toEqual(expected);
        expect(expected.length).toBeGreaterThan(0);
      }
    } finally {
      await model.dispose();
    }
  });
});
