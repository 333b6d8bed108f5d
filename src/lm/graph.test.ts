import { afterAll, describe, expect, it } from 'vitest';
import { createRng } from '../core/rng.ts';
import { CpuModel, chooseBackend, compile, type Model } from '../gpu/index.ts';
import { nodeGpu } from '../gpu/node-gpu.ts';
import { buildTinyGptGraph, weightsOf } from './graph.ts';
import { initWeights } from './init.ts';
import { forward } from './reference.ts';
import { TinyGptConfigSchema, paramSpecs, type TinyGptConfig, type TinyGptWeights } from './spec.ts';

const config = TinyGptConfigSchema.parse({ vocabSize: 13, nPositions: 8, nEmbd: 8, nHead: 2, nLayer: 2 });

/** initWeights plus uniform noise on every array (gains and biases too), so that no term is trivially 0 or 1. */
function randomWeights(c: TinyGptConfig, seed: number, scale = 0.3): TinyGptWeights {
  const rng = createRng(seed + 1000);
  const w = initWeights(c, seed);
  const params = new Map<string, Float32Array>();
  for (const [k, a] of w.params)
    params.set(
      k,
      a.map((x) => x + (rng.next() * 2 - 1) * scale),
    );
  return { config: c, params };
}

interface Window {
  ids: number[][];
  targets: Uint32Array;
  weights: Float32Array;
}

function randomWindow(c: TinyGptConfig, batch: number, seq: number, seed: number): Window {
  const rng = createRng(seed);
  const ids = Array.from({ length: batch }, () => Array.from({ length: seq }, () => rng.int(c.vocabSize)));
  const targets = Uint32Array.from({ length: batch * seq }, () => rng.int(c.vocabSize));
  const weights = Float32Array.from({ length: batch * seq }, (_, i) => (i % 4 === 0 ? 0 : rng.next()));
  return { ids, targets, weights };
}

function setWindow(model: Model, w: Window, seq: number): void {
  model.setInput('ids', Uint32Array.from(w.ids.flat()));
  model.setInput(
    'positions',
    Uint32Array.from({ length: w.ids.length * seq }, (_, i) => i % seq),
  );
  model.setInput('targets', w.targets);
  model.setInput('weights', w.weights);
}

/** Σ_i w_i·(logsumexp(x_i) − x_i[t_i]) from the reference logits, in f64. */
function referenceLoss(weights: TinyGptWeights, w: Window): number {
  const V = weights.config.vocabSize;
  const seq = (w.ids[0] as number[]).length;
  let total = 0;
  w.ids.forEach((row, b) => {
    const logits = forward(weights, row);
    for (let t = 0; t < seq; t++) {
      const x = logits.subarray(t * V, (t + 1) * V);
      const mx = Math.max(...x);
      const lse = mx + Math.log(x.reduce((s, v) => s + Math.exp(v - mx), 0));
      const i = b * seq + t;
      total += (w.weights[i] as number) * (lse - (x[w.targets[i] as number] as number));
    }
  });
  return total;
}

describe('tiny model training graph (CPU backend)', () => {
  const [batch, seq] = [3, 7];
  const weights = randomWeights(config, 1);
  const win = randomWindow(config, batch, seq, 2);

  it('gives the reference logits and loss', async () => {
    const tg = buildTinyGptGraph(config, { batch, seq, weights });
    expect([...tg.params.keys()]).toEqual(paramSpecs(config).map((s) => s.name));
    const model = new CpuModel(tg.graph, { loss: tg.loss });
    setWindow(model, win, seq);
    const { loss } = await model.step({ backward: false });
    const logits = await model.read(tg.logits);
    let worst = 0;
    let largest = 0;
    win.ids.forEach((row, b) => {
      const ref = forward(weights, row);
      ref.forEach((v, i) => {
        worst = Math.max(worst, Math.abs(v - (logits[b * ref.length + i] as number)));
        largest = Math.max(largest, Math.abs(v));
      });
    });
    expect(largest).toBeGreaterThan(0.5);
    expect(worst).toBeLessThanOrEqual(1e-4);
    const expected = referenceLoss(weights, win);
    expect(Math.abs(loss - expected)).toBeLessThanOrEqual(1e-4 * Math.max(1, Math.abs(expected)));
    const back = await weightsOf(model, config);
    for (const [k, a] of weights.params) expect(back.params.get(k)).toEqual(a);
  });

  it('has the loss gradient of central finite differences for parameters of every kind', async () => {
    const tg = buildTinyGptGraph(config, { batch, seq, weights });
    const model = new CpuModel(tg.graph, { loss: tg.loss });
    setWindow(model, win, seq);
    await model.step();
    const names = [
      'wte',
      'wpe',
      'h.0.ln_1.g',
      'h.0.attn.q.w',
      'h.0.attn.k.b',
      'h.1.attn.v.w',
      'h.1.mlp.fc.w',
      'ln_f.b',
    ];
    const rng = createRng(9);
    // f32 CPU loss: h = 5e-3 as in src/gpu/cpu/ops.test.ts.
    const H = 5e-3;
    for (const name of names) {
      const t = tg.params.get(name);
      if (!t) throw new Error(name);
      const analytic = await model.readGrad(t);
      const base = weights.params.get(name) as Float32Array;
      for (let s = 0; s < 3; s++) {
        const i = name === 'wte' ? (win.ids[0]?.[s] as number) * config.nEmbd + s : rng.int(base.length);
        const lossAt = async (delta: number): Promise<number> => {
          const params = new Map(weights.params);
          const a = Float32Array.from(base);
          a[i] = (a[i] as number) + delta;
          params.set(name, a);
          const g2 = buildTinyGptGraph(config, { batch, seq, weights: { config, params } });
          const m2 = new CpuModel(g2.graph, { loss: g2.loss });
          setWindow(m2, win, seq);
          return (await m2.step({ backward: false })).loss;
        };
        const fd = ((await lossAt(H)) - (await lossAt(-H))) / (2 * H);
        const g = analytic[i] as number;
        expect(Math.abs(fd - g), `${name}[${i}] fd=${fd} grad=${g}`).toBeLessThanOrEqual(
          1e-2 * Math.max(1, Math.abs(g)),
        );
      }
    }
  });

  it('packed: examples sharing a row longer than the model get the logits each has alone', async () => {
    const a = [1, 5, 3, 9, 0, 2, 7];
    const b = [4, 4, 8, 1, 12, 6];
    const c = [2, 11, 3];
    const rowLen = 12; // longer than the model's 8 positions: positions restart per example
    const tg = buildTinyGptGraph(config, { batch: 2, seq: rowLen, weights, packed: true });
    const model = new CpuModel(tg.graph, { loss: tg.loss });
    const ids = [...a, ...c, 0, 0, ...b, 0, 0, 0, 0, 0, 0];
    const positions = [...a.keys(), ...c.keys(), 0, 1, ...b.keys(), 0, 1, 2, 3, 4, 5];
    const segments = [...a.map(() => 1), ...c.map(() => 2), 0, 0, ...b.map(() => 1), 0, 0, 0, 0, 0, 0];
    model.setInput('ids', Uint32Array.from(ids));
    model.setInput('positions', Uint32Array.from(positions));
    model.setInput('segments', Uint32Array.from(segments));
    model.setInput('targets', new Uint32Array(2 * rowLen));
    model.setInput('weights', new Float32Array(2 * rowLen).fill(1));
    await model.step({ backward: false });
    const logits = await model.read(tg.logits);
    const V = config.vocabSize;
    const check = (seqIds: number[], startRow: number): void => {
      const ref = forward(weights, seqIds);
      ref.forEach((v, i) =>
        expect(Math.abs(v - (logits[startRow * V + i] as number))).toBeLessThanOrEqual(1e-4),
      );
    };
    check(a, 0);
    check(c, a.length);
    check(b, rowLen);
  });

  it('refuses windows longer than the model and weights of another configuration', () => {
    expect(() => buildTinyGptGraph(config, { batch: 1, seq: 9 })).toThrow(
      /longer than the model's 8 positions/,
    );
    expect(() => buildTinyGptGraph(config, { batch: 0, seq: 4 })).toThrow(/batch must be a positive integer/);
    const other = initWeights({ ...config, nLayer: 1 }, 1);
    expect(() => buildTinyGptGraph(config, { batch: 1, seq: 4, weights: other })).toThrow(/another model/);
    const broken = { config, params: new Map(weights.params) };
    broken.params.delete('ln_f.g');
    expect(() => buildTinyGptGraph(config, { batch: 1, seq: 4, weights: broken })).toThrow(
      /missing parameter ln_f.g/,
    );
  });
});

describe('tiny model training graph (WebGPU backend)', () => {
  const cleanup: (() => void)[] = [];
  afterAll(() => cleanup.forEach((f) => f()));

  it('gives the reference logits and the CPU gradients', async () => {
    // Fails (does not skip) without an adapter, like src/gpu/webgpu/webgpu.test.ts.
    const choice = await chooseBackend('webgpu', { gpu: await nodeGpu() });
    const ctx = choice.ctx;
    if (!ctx) throw new Error('no WebGPU device');
    cleanup.push(() => ctx.dispose());
    const small = TinyGptConfigSchema.parse({ vocabSize: 11, nPositions: 6, nEmbd: 8, nHead: 2, nLayer: 1 });
    const [batch, seq] = [2, 5];
    const weights = randomWeights(small, 3);
    const win = randomWindow(small, batch, seq, 4);
    const tg = buildTinyGptGraph(small, { batch, seq, weights });
    const gpu = await compile(choice, tg.graph, { loss: tg.loss });
    const cpu = new CpuModel(tg.graph, { loss: tg.loss });
    setWindow(gpu, win, seq);
    setWindow(cpu, win, seq);
    const rg = await gpu.step();
    const rc = await cpu.step();
    const logits = await gpu.read(tg.logits);
    win.ids.forEach((row, b) => {
      const ref = forward(weights, row);
      ref.forEach((v, i) =>
        expect(Math.abs(v - (logits[b * ref.length + i] as number))).toBeLessThanOrEqual(1e-4),
      );
    });
    expect(Math.abs(rg.loss - referenceLoss(weights, win))).toBeLessThanOrEqual(1e-4 * Math.max(1, rc.loss));
    for (const [name, t] of tg.params) {
      const gg = await gpu.readGrad(t);
      const gc = await cpu.readGrad(t);
      gc.forEach((v, i) =>
        expect(Math.abs(v - (gg[i] as number)), name).toBeLessThanOrEqual(1e-4 + 1e-3 * Math.abs(v)),
      );
    }
    expect(Math.abs(rg.gradNorm - rc.gradNorm)).toBeLessThanOrEqual(1e-3 * Math.max(1, rc.gradNorm));
    expect(ctx.errors).toEqual([]);
    gpu.dispose();
  });
});
