import { describe, expect, it } from 'vitest';
import { initWeights } from './init.ts';
import { emptyCache, forward, greedy, step } from './reference.ts';
import { TinyGptConfigSchema, checkWeights, paramCount } from './spec.ts';

const config = TinyGptConfigSchema.parse({ vocabSize: 11, nPositions: 16, nEmbd: 8, nHead: 2, nLayer: 2 });

describe('tiny model reference forward', () => {
  it('initial weights match the spec', () => {
    const w = initWeights(config, 1);
    expect(checkWeights(w)).toEqual([]);
    expect([...w.params.values()].reduce((n, a) => n + a.length, 0)).toBe(paramCount(config));
  });

  it('incremental steps with the cache give the logits of the whole sequence', () => {
    const w = initWeights(config, 2);
    const ids = [1, 5, 3, 9, 0, 2];
    const whole = forward(w, ids);
    const cache = emptyCache(config);
    const parts = [
      ...step(w, ids.slice(0, 3), cache),
      ...step(w, [ids[3] as number], cache),
      ...step(w, ids.slice(4), cache),
    ];
    expect(parts.length).toBe(whole.length);
    parts.forEach((v, i) => expect(v).toBeCloseTo(whole[i] as number, 5));
  });

  it('is causal: later tokens do not change earlier logits', () => {
    const w = initWeights(config, 3);
    const a = forward(w, [4, 4, 7, 1]);
    const b = forward(w, [4, 4, 2, 8]);
    for (let i = 0; i < 2 * config.vocabSize; i++) expect(a[i]).toBe(b[i]);
    expect(a.slice(2 * config.vocabSize)).not.toEqual(b.slice(2 * config.vocabSize));
  });

  it('greedy decoding stops at the end token and at the position limit', () => {
    const w = initWeights(config, 4);
    const out = greedy(w, [1, 2], 100, null);
    expect(out.length).toBe(config.nPositions - 2);
    expect(() =>
      forward(
        w,
        Array.from({ length: 17 }, () => 1),
      ),
    ).toThrow(/longer than/);
    expect(checkWeights({ config, params: new Map() })[0]).toMatch(/missing parameter wte/);
  });
});
