/**
 * Damaged model files: what onnxruntime-node and transformers.js say about them (little), and what
 * `checkOnnxModel` says (why).
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AutoModelForCausalLM, env } from '@huggingface/transformers';
import * as ort from 'onnxruntime-node';
import { afterAll, describe, expect, it } from 'vitest';
import { modelFolderFiles } from '../hf-files.ts';
import { initWeights } from '../init.ts';
import { TinyGptConfigSchema } from '../spec.ts';
import { checkOnnxModel } from './check.ts';
import { buildTinyGptOnnx, exportTinyGptOnnx, ioNames } from './gpt2.ts';
import { encodeModel } from './writer.ts';

const config = TinyGptConfigSchema.parse({ vocabSize: 37, nPositions: 16, nEmbd: 32, nHead: 2, nLayer: 2 });
const weights = initWeights(config, 5);
const good = exportTinyGptOnnx(weights, { dtype: 'fp32' });
const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const messages = (r: ReturnType<typeof checkOnnxModel>): string =>
  r.ok ? '' : r.errors.map((e) => e.message).join(' | ');

const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

describe('checkOnnxModel', () => {
  it('summarizes a sound export', () => {
    const r = checkOnnxModel(exportTinyGptOnnx(weights, { dtype: 'q4' }), { config });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.inputs.map((i) => i.name)).toEqual(ioNames(config).inputs);
    expect(r.value.inputs[3]?.shape).toEqual(['batch_size', 2, 'past_sequence_length', 16]);
    expect(r.value.opsets).toEqual({ '': 17, 'com.microsoft': 1 });
    expect(r.value.metadata['baton.dtype']).toBe('q4');
  });

  it('a truncated file: onnxruntime gives a generic error, the check says it is cut short', async () => {
    const cuts = [1, 10, 1000, Math.floor(good.length / 3), Math.floor(good.length / 2), good.length - 1];
    for (const cut of cuts) {
      const bytes = good.slice(0, cut);
      await expect(ort.InferenceSession.create(bytes)).rejects.toThrow(/protobuf parsing failed/);
      const r = checkOnnxModel(bytes);
      expect(r.ok ? null : r.errors[0]?.code).toBe('E_MODEL_ONNX');
      expect(messages(r)).toMatch(new RegExp(`cut short: it has ${cut} bytes`));
    }
    await expect(ort.InferenceSession.create(new Uint8Array(0))).rejects.toThrow(
      /Model data pointer is null/,
    );
    expect(messages(checkOnnxModel(new Uint8Array(0)))).toMatch(/empty/);
  });

  it('transformers.js passes onnxruntime’s error on when a folder’s model file is truncated', async () => {
    const root = mkdtempSync(join(tmpdir(), 'baton-bad-onnx-'));
    roots.push(root);
    const files = modelFolderFiles(weights, {
      tokenizerJson: '{}',
      tokenizerConfig: {},
      specialTokens: { bos: 0, eos: 0 },
      meta: { name: 'broken', description: 'a truncated model file', source: 'initWeights' },
      dtypes: ['fp32'],
    });
    mkdirSync(join(root, 'broken', 'onnx'), { recursive: true });
    for (const [path, data] of files) {
      writeFileSync(
        join(root, 'broken', path),
        path.endsWith('.onnx') ? (data as Uint8Array).slice(0, 5000) : data,
      );
    }
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = root;
    await expect(
      AutoModelForCausalLM.from_pretrained('broken', { dtype: 'fp32', device: 'cpu' }),
    ).rejects.toThrow(/broken\/onnx\/model\.onnx failed:Protobuf parsing failed/);
  });

  it('names pages and pointers served instead of a model, and bytes that are not protobuf', async () => {
    expect(messages(checkOnnxModel(text('<!DOCTYPE html><html><body>Not found</body></html>')))).toMatch(
      /HTML/,
    );
    expect(
      messages(checkOnnxModel(text('version https://git-lfs.github.com/spec/v1\noid sha256:ab\n'))),
    ).toMatch(/Git LFS pointer/);
    expect(messages(checkOnnxModel(text('{"error":"Repository not found"}')))).toMatch(/JSON message/);
    const flipped = good.slice();
    flipped.fill(0xff, 100, 400);
    await expect(ort.InferenceSession.create(flipped)).rejects.toThrow(/protobuf parsing failed/);
    expect(messages(checkOnnxModel(flipped))).toMatch(/not an ONNX protobuf|cut short/);
    expect(messages(checkOnnxModel(good, { maxBytes: 1000 }))).toMatch(/more than 1000/);
  });

  it('finds weights that do not fill their shapes, and a model for another architecture', () => {
    const m = buildTinyGptOnnx(weights, { dtype: 'fp32' });
    const shortened = {
      ...m,
      initializers: m.initializers.map((t) =>
        t.name === 'h.1.mlp.fc.w' ? { ...t, data: t.data.slice(0, 10) } : t,
      ),
    };
    expect(messages(checkOnnxModel(encodeModel(shortened)))).toMatch(
      /weight h.1.mlp.fc.w holds 10 values for a shape of 4096/,
    );
    const other = TinyGptConfigSchema.parse({ ...config, nHead: 4, vocabSize: 40 });
    const r = checkOnnxModel(good, { config: other });
    expect(messages(r)).toMatch(/logits have 37 entries per token, the config says 40/);
    expect(messages(r)).toMatch(/the cache has 2 heads of 16, the config says 4 of 8/);
    const noCache = { ...m, inputs: m.inputs.filter((i) => i.name !== 'attention_mask') };
    expect(messages(checkOnnxModel(encodeModel(noCache)))).toMatch(/no input attention_mask/);
  });
});
