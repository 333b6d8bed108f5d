import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TinyGptWeights } from '../lm/index.ts';
import { CpuExactDecoder, type Decoder, type SequenceCache } from './orchestrator-decode.ts';
import { WasmDecoder } from './orchestrator-decode-wasm.ts';
import { readOrchestratorModel } from './orchestrator-model.ts';

const DIR = new URL('../../models/baton-orchestrator-tiny-v2/', import.meta.url);
const v2 = () =>
  readOrchestratorModel({
    config: readFileSync(new URL('config.json', DIR), 'utf8'),
    tokenizer: readFileSync(new URL('tokenizer.json', DIR), 'utf8'),
    tokenizerConfig: readFileSync(new URL('tokenizer_config.json', DIR), 'utf8'),
    onnx: new Uint8Array(readFileSync(new URL('onnx/model.onnx', DIR))),
  }).weights;

/**
 * Two prompts prefilled in one call, then forks of the first and greedy-free decode steps with
 * fixed tokens: the logits of every step, concatenated.
 */
function run(dec: Decoder, V: number): Float32Array[] {
  dec.reset();
  const prompts = [
    Array.from({ length: 41 }, (_, i) => (i * 37 + 5) % V),
    Array.from({ length: 23 }, (_, i) => (i * 91 + 11) % V),
  ];
  const base = prompts.map(() => dec.newSequence());
  const rowSeq: SequenceCache[] = [];
  const rowIds: number[] = [];
  const last: number[] = [];
  prompts.forEach((p, b) => {
    for (const id of p) {
      rowSeq.push(base[b] as SequenceCache);
      rowIds.push(id);
    }
    last.push(rowIds.length - 1);
  });
  // The first row twice: a row may be asked for more than once.
  const out = [dec.step(rowSeq, rowIds, [...last, 3])];
  const seqs = [dec.fork(base[0] as SequenceCache), base[0] as SequenceCache, base[1] as SequenceCache];
  for (let t = 0; t < 6; t++) {
    const ids = seqs.map((_, i) => (t * 17 + i * 29 + 3) % V);
    out.push(dec.step(seqs, ids, [2, 0, 1]));
  }
  return out;
}

/** max |got − want| / (abs + rel·|want|): ≤ 1 is within tolerance. */
function worstError(got: Float32Array, want: Float32Array, abs: number, rel: number): number {
  let w = 0;
  for (let i = 0; i < want.length; i++) {
    const e = Math.abs((got[i] as number) - (want[i] as number)) / (abs + rel * Math.abs(want[i] as number));
    if (!(e <= w)) w = Number.isNaN(e) ? Infinity : e;
  }
  return got.length === want.length ? w : Infinity;
}

const bits = (x: Float32Array): number[] => [...new Uint32Array(x.buffer, x.byteOffset, x.length)];

describe('WasmDecoder', () => {
  const weights = v2();
  const V = weights.config.vocabSize;

  it('gives the CPU decoder’s logits within rounding: prefill in chunks, forks, decode steps', async () => {
    const want = run(new CpuExactDecoder(weights), V);
    const dec = await WasmDecoder.create(weights, 4, 16); // the 64-row prefill runs in 4 chunks
    const got = run(dec, V);
    expect(got.length).toBe(want.length);
    got.forEach((g, i) => expect(worstError(g, want[i]!, 1e-4, 1e-3), `step ${i}`).toBeLessThanOrEqual(1));
    // The forked sequence decodes the same tokens as its source in step 1 only for equal ids; its
    // cache was a copy: the source's later steps did not change it (logits differ from row 1's).
    expect(bits(got[1]!.subarray(0, V))).not.toEqual(bits(got[1]!.subarray(V, 2 * V)));
  });

  it('computes the same bits whatever the chunk of rows', async () => {
    const a = run(await WasmDecoder.create(weights, 4, 5), V);
    const b = run(await WasmDecoder.create(weights, 4, 128), V);
    a.forEach((x, i) => expect(bits(x)).toEqual(bits(b[i]!)));
  });

  it('decodes with loaded weights as a new decoder on them does', async () => {
    const other: TinyGptWeights = {
      config: weights.config,
      params: new Map([...weights.params].map(([k, p]) => [k, Float32Array.from(p, (x) => x * 0.9)])),
    };
    const dec = await WasmDecoder.create(weights, 4);
    run(dec, V);
    dec.load(other);
    expect(dec.weights).toBe(other);
    const fresh = run(await WasmDecoder.create(other, 4), V);
    run(dec, V).forEach((x, i) => expect(bits(x)).toEqual(bits(fresh[i]!)));
  });

  it('holds at most its capacity of sequences until reset, and refuses sequences from before a reset', async () => {
    const dec = await WasmDecoder.create(weights, 2);
    const s = dec.newSequence();
    dec.newSequence();
    expect(() => dec.newSequence()).toThrow(/at most 2 sequences/);
    dec.reset();
    expect(() => dec.step([s], [1], [0])).toThrow(/did not make/);
    const t = dec.newSequence();
    expect(dec.step([t], [1], [0]).length).toBe(V);
    expect(() => dec.step([t], [V], [0])).toThrow(/out of range/);
  });
});
