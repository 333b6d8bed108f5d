import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compile } from '../gpu/index.ts';
import { buildTinyGptGraph, step as referenceStep, emptyCache } from '../lm/index.ts';
import { CpuExactDecoder, allowed, maskedLogSoftmax } from './orchestrator-decode.ts';
import { readOrchestratorModel } from './orchestrator-model.ts';

const DIR = new URL('../../models/baton-orchestrator-tiny/', import.meta.url);
const shippedModel = () =>
  readOrchestratorModel({
    config: readFileSync(new URL('config.json', DIR), 'utf8'),
    tokenizer: readFileSync(new URL('tokenizer.json', DIR), 'utf8'),
    tokenizerConfig: readFileSync(new URL('tokenizer_config.json', DIR), 'utf8'),
    onnx: new Uint8Array(readFileSync(new URL('onnx/model.onnx', DIR))),
  });

const CPU = { backend: 'cpu', reason: 'test', adapter: null, ctx: null } as const;

describe('CpuExactDecoder', () => {
  it('gives the compiled graph’s logits bit for bit on the CPU backend, with a KV cache, batched', async () => {
    const m = shippedModel();
    const V = m.weights.config.vocabSize;
    const seq = 24;
    const seqs = [
      Array.from({ length: 20 }, (_, i) => (i * 37 + 5) % V),
      Array.from({ length: 17 }, (_, i) => (i * 91 + 11) % V),
    ];
    const tg = buildTinyGptGraph(m.weights.config, { batch: 2, seq, weights: m.weights });
    const model = await compile(CPU, tg.graph);
    const ids = new Uint32Array(2 * seq);
    const pos = new Uint32Array(2 * seq);
    seqs.forEach((s, b) => s.forEach((id, t) => ((ids[b * seq + t] = id), (pos[b * seq + t] = t))));
    for (let b = 0; b < 2; b++) for (let t = seqs[b]!.length; t < seq; t++) pos[b * seq + t] = t;
    model.setInput('ids', ids);
    model.setInput('positions', pos);
    model.setInput('targets', new Uint32Array(2 * seq));
    model.setInput('weights', new Float32Array(2 * seq));
    await model.step({ backward: false, update: false });
    const full = await model.read(tg.logits);
    const dec = new CpuExactDecoder(m.weights);
    const caches = [dec.newSequence(), dec.newSequence()];
    // prompts of 8 tokens in one call (both sequences), then one token per sequence per call
    const prompt = dec.step(
      [...Array(8).fill(caches[0]), ...Array(8).fill(caches[1])],
      [...seqs[0]!.slice(0, 8), ...seqs[1]!.slice(0, 8)],
      [7, 15],
    );
    expect(Array.from(prompt.subarray(0, V))).toEqual(Array.from(full.subarray(7 * V, 8 * V)));
    expect(Array.from(prompt.subarray(V))).toEqual(Array.from(full.subarray((seq + 7) * V, (seq + 8) * V)));
    for (let t = 8; t < 17; t++) {
      const lg = dec.step(caches, [seqs[0]![t]!, seqs[1]![t]!], [0, 1]);
      expect(Array.from(lg.subarray(0, V))).toEqual(Array.from(full.subarray(t * V, (t + 1) * V)));
      expect(Array.from(lg.subarray(V))).toEqual(Array.from(full.subarray((seq + t) * V, (seq + t + 1) * V)));
    }
    // and within 1e-4 of the plain reference forward pass (a different summation order)
    const ref = referenceStep(m.weights, seqs[0]!.slice(0, 17), emptyCache(m.weights.config));
    for (let i = 0; i < 17 * V; i++) expect(Math.abs(ref[i]! - full[i]!)).toBeLessThan(1e-4);
    model.dispose();
  });

  it('masked log-softmax: masked tokens get no mass, allowed ones sum to 1', () => {
    const logits = Float32Array.from([1, 2, 3, 4, 5]);
    const mask = Int32Array.of(0b10110);
    const y = maskedLogSoftmax(logits, mask, 0.7);
    expect(allowed(mask, 0)).toBe(false);
    expect(y[0]).toBeLessThan(-1e29);
    const s = [1, 2, 4].reduce((a, i) => a + Math.exp(y[i]!), 0);
    expect(s).toBeCloseTo(1, 6);
  });
});
