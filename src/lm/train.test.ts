import { afterAll, describe, expect, it } from 'vitest';
import { chooseBackend } from '../gpu/index.ts';
import { nodeGpu } from '../gpu/node-gpu.ts';
import { initWeights } from './init.ts';
import { forward, greedy } from './reference.ts';
import { TinyGptConfigSchema } from './spec.ts';
import { LmTrainConfigSchema, lrAt, trainTinyGpt, windowInputs, type LmExample } from './train.ts';

// Toy task: reverse three symbols. Tokens: 0 unused, 1 separator, 2 end, 3..8 symbols.
const [SEP, END, SYMBOLS, LEN] = [1, 2, 6, 3];
const config = TinyGptConfigSchema.parse({
  vocabSize: 3 + SYMBOLS,
  nPositions: 2 * LEN + 2,
  nEmbd: 32,
  nHead: 2,
  nLayer: 2,
});
const all: LmExample[] = Array.from({ length: SYMBOLS ** LEN }, (_, i) => {
  const xs = Array.from({ length: LEN }, (_, j) => 3 + (Math.floor(i / SYMBOLS ** j) % SYMBOLS));
  return { prompt: [...xs, SEP], target: [...xs].reverse().concat(END) };
});
const heldOut = all.filter((_, i) => i % 12 === 5);
const train = all.filter((_, i) => i % 12 !== 5);
const seq = 2 * LEN + 1;

describe('trainTinyGpt', () => {
  it('learns to reverse sequences it never saw: the loss falls and greedy decoding solves them', async () => {
    // Two examples packed per row of 2·7 positions (the model itself has 8: positions restart).
    const { weights, curve, stopped } = await trainTinyGpt({
      weights: initWeights(config, 1),
      examples: train,
      config: { batch: 8, seq: 2 * seq, steps: 120, lr: 1e-2, warmup: 20 },
    });
    expect(stopped).toBe(false);
    expect(curve.length).toBe(120);
    // 16 examples a step, each scored on its reversed symbols and the end token: 4 target tokens.
    expect(curve.every((p) => p.examples === 16 && p.tokens === 16 * (LEN + 1))).toBe(true);
    expect(curve[0]?.loss).toBeGreaterThan(1.5); // about log(9) at the start
    const last = curve.slice(-10).reduce((s, p) => s + p.loss, 0) / 10;
    expect(last).toBeLessThan(0.05);
    expect(heldOut.length).toBe(18);
    for (const e of heldOut) expect(greedy(weights, e.prompt, LEN + 2, END)).toEqual(e.target);
  });

  it('is deterministic under its seed on the CPU backend, and the seed matters', async () => {
    const run = (seed: number) =>
      trainTinyGpt({
        weights: initWeights(config, 2),
        examples: train,
        config: { batch: 4, seq, steps: 6, lr: 5e-3, warmup: 2, seed, pack: false },
      });
    const [a, b, c] = await Promise.all([run(7), run(7), run(8)]);
    expect(b.curve).toEqual(a.curve);
    for (const [k, v] of a.weights.params) expect(b.weights.params.get(k)).toEqual(v);
    expect(c.curve.map((p) => p.loss)).not.toEqual(a.curve.map((p) => p.loss));
  });

  it('scores held-out examples on schedule; the last score is the mean cross-entropy of the reference model', async () => {
    const seen: number[] = [];
    const r = await trainTinyGpt({
      weights: initWeights(config, 6),
      examples: train,
      config: { batch: 3, seq: 2 * seq, steps: 5, lr: 1e-2 },
      validation: { examples: heldOut.slice(0, 7), every: 2 },
      onValidation: (p) => seen.push(p.step),
    });
    expect(r.validation.map((p) => p.step)).toEqual([2, 4, 5]);
    expect(seen).toEqual([2, 4, 5]);
    // The same number computed from the plain reference forward pass of the returned weights.
    let sum = 0;
    let tokens = 0;
    for (const e of heldOut.slice(0, 7)) {
      const s = [...e.prompt, ...e.target];
      const logits = forward(r.weights, s.slice(0, -1));
      const V = config.vocabSize;
      for (let t = e.prompt.length - 1; t + 1 < s.length; t++) {
        const x = logits.subarray(t * V, (t + 1) * V);
        const mx = Math.max(...x);
        sum += mx + Math.log(x.reduce((a, v) => a + Math.exp(v - mx), 0)) - (x[s[t + 1] as number] as number);
        tokens++;
      }
    }
    const last = r.validation[2];
    expect(last?.tokens).toBe(tokens);
    expect(Math.abs((last?.loss as number) - sum / tokens)).toBeLessThanOrEqual(1e-4);
  });

  it('leaves the input weights alone and stops between steps when aborted', async () => {
    const start = initWeights(config, 3);
    const before = Float32Array.from(start.params.get('wte') as Float32Array);
    const ctl = new AbortController();
    const seen: number[] = [];
    const r = await trainTinyGpt({
      weights: start,
      examples: train,
      config: { batch: 2, seq, steps: 50 },
      onStep: (p) => {
        seen.push(p.step);
        if (p.step === 3) ctl.abort();
      },
      signal: ctl.signal,
    });
    expect(r.stopped).toBe(true);
    expect(seen).toEqual([1, 2, 3]);
    expect(start.params.get('wte')).toEqual(before);
    expect(r.weights.params.get('wte')).not.toEqual(before);
  });

  it('gives clear errors for bad configs and examples', async () => {
    const weights = initWeights(config, 4);
    const t = (cfg: object, examples: LmExample[] = train) =>
      trainTinyGpt({ weights, examples, config: cfg as never });
    await expect(t({ batch: 0, seq, steps: 5 })).rejects.toThrow(/bad training config: batch/);
    await expect(t({ batch: 2, seq, steps: 5, warmup: 5 })).rejects.toThrow(
      /warmup \(5 steps\) must be shorter/,
    );
    await expect(t({ batch: 2, seq, steps: 5, lr: -1 })).rejects.toThrow(/bad training config: lr/);
    await expect(t({ batch: 2, seq, steps: 5, momentum: 0.9 })).rejects.toThrow(/momentum/);
    await expect(t({ batch: 2, seq: 99, steps: 5, pack: false })).rejects.toThrow(
      /seq 99 is longer than the model's 8 positions/,
    );
    await expect(t({ batch: 2, seq: 4, steps: 5 })).rejects.toThrow(
      /example 0: prompt 4 \+ target 4 tokens need seq ≥ 7/,
    );
    await expect(t({ batch: 2, seq, steps: 5 }, [{ prompt: [1, 99], target: [2] }])).rejects.toThrow(
      /example 0: token 99 is outside the vocabulary \[0, 9\)/,
    );
    await expect(t({ batch: 2, seq, steps: 5 }, [{ prompt: [], target: [2] }])).rejects.toThrow(
      /prompt is empty/,
    );
    await expect(t({ batch: 2, seq, steps: 5 }, [])).rejects.toThrow(/no training examples/);
    await expect(
      trainTinyGpt({
        weights,
        examples: train,
        config: { batch: 2, seq, steps: 5 },
        validation: { examples: [{ prompt: [3], target: [] }], every: 1 },
      }),
    ).rejects.toThrow(/validation example 0: the target is empty/);
    const long = { prompt: [3, 3, 3, 3, 3], target: [4, 4, 4, 4, 2] };
    await expect(t({ batch: 2, seq: 20, steps: 5 }, [long])).rejects.toThrow(
      /example 0: prompt 5 \+ target 5 tokens need 9 positions, the model has 8/,
    );
  });
});

describe('training windows and the schedule', () => {
  it('scores only target tokens, shifted by one, with weights summing to 1', () => {
    const { inputs, tokens } = windowInputs([[{ prompt: [5, 6], target: [7, 2] }]], 2, 4);
    expect(tokens).toBe(2);
    expect([...inputs.ids]).toEqual([5, 6, 7, 0, 0, 0, 0, 0]);
    expect([...inputs.targets]).toEqual([6, 7, 2, 0, 0, 0, 0, 0]);
    expect([...inputs.weights]).toEqual([0, 0.5, 0.5, 0, 0, 0, 0, 0]);
    expect([...inputs.positions]).toEqual([0, 1, 2, 0, 0, 1, 2, 3]); // padding counts from 0 again
    expect(inputs.segments).toBeUndefined();
  });

  it('keeps padding positions within the model’s positions when the window is longer', () => {
    // A packed window of 8 for a model of 3 positions: the padding of both rows wraps at 3.
    const { inputs } = windowInputs([[{ prompt: [5], target: [6, 7] }], []], 2, 8, true, 3);
    expect([...inputs.positions]).toEqual([0, 1, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1]);
    expect(Math.max(...inputs.positions)).toBeLessThan(3);
  });

  it('packs examples one after the other, positions restarting, one segment each', () => {
    const rows = [
      [
        { prompt: [5], target: [6, 2] },
        { prompt: [7, 8], target: [2] },
      ],
      [{ prompt: [3], target: [2] }],
    ];
    const { inputs, tokens } = windowInputs(rows, 2, 5, true);
    expect(tokens).toBe(4);
    expect([...inputs.ids]).toEqual([5, 6, 7, 8, 0, 3, 0, 0, 0, 0]);
    expect([...inputs.targets]).toEqual([6, 2, 8, 2, 0, 2, 0, 0, 0, 0]);
    expect([...inputs.weights]).toEqual([0.25, 0.25, 0, 0.25, 0, 0.25, 0, 0, 0, 0]);
    expect([...inputs.positions]).toEqual([0, 1, 0, 1, 0, 0, 0, 1, 2, 3]);
    expect([...(inputs.segments ?? [])]).toEqual([1, 1, 2, 2, 0, 1, 0, 0, 0, 0]);
    expect(() => windowInputs(rows, 2, 3, true)).toThrow(/row 0 overflows the window of 3 positions/);
    expect(() => windowInputs(rows, 2, 5, false)).toThrow(/need a packed window/);
  });

  it('warms up linearly, then decays along a cosine to lr·minLrRatio at the last step', () => {
    const c = LmTrainConfigSchema.parse({ batch: 1, seq: 4, steps: 12, lr: 1, warmup: 2, minLrRatio: 0.1 });
    expect(lrAt(c, 0)).toBe(0.5);
    expect(lrAt(c, 1)).toBe(1);
    expect(lrAt(c, 2)).toBe(1);
    expect(lrAt(c, 11)).toBeCloseTo(0.1, 12);
    expect(lrAt(c, 6) + lrAt(c, 7)).toBeCloseTo(1.1, 12); // symmetric about the midpoint (0.55)
  });
});

describe('trainTinyGpt on WebGPU', () => {
  const cleanup: (() => void)[] = [];
  afterAll(() => cleanup.forEach((f) => f()));

  it('follows the CPU run step for step, packed rows included', async () => {
    // Fails (does not skip) without an adapter, like src/gpu/webgpu/webgpu.test.ts.
    const choice = await chooseBackend('webgpu', { gpu: await nodeGpu() });
    const ctx = choice.ctx;
    if (!ctx) throw new Error('no WebGPU device');
    cleanup.push(() => ctx.dispose());
    const small = TinyGptConfigSchema.parse({ ...config, nEmbd: 8, nLayer: 1 });
    const opts = {
      weights: initWeights(small, 5),
      examples: train.slice(0, 12),
      config: { batch: 3, seq: 2 * seq, steps: 4, lr: 1e-2, warmup: 1 }, // packed: 2 examples a row
    };
    const cpu = await trainTinyGpt(opts);
    const gpu = await trainTinyGpt({ ...opts, choice });
    expect(cpu.curve.every((p) => p.examples === 6)).toBe(true);
    gpu.curve.forEach((p, i) =>
      expect(Math.abs(p.loss - (cpu.curve[i]?.loss as number))).toBeLessThanOrEqual(1e-4),
    );
    for (const [k, v] of cpu.weights.params) {
      const g = gpu.weights.params.get(k) as Float32Array;
      v.forEach((x, i) =>
        expect(Math.abs(x - (g[i] as number)), k).toBeLessThanOrEqual(1e-4 + 1e-3 * Math.abs(x)),
      );
    }
    expect(ctx.errors).toEqual([]);
  });
});
