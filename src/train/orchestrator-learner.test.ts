import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createRng } from '../core/rng.ts';
import type { Tensor } from '../gpu/index.ts';
import type { TinyGptWeights } from '../lm/index.ts';
import { drawTeacherTasks, tinyDesignSampling } from '../orchestrator/index.ts';
import { DEFAULT_POOL } from '../policy/index.ts';
import { orchestratorTrainConfig } from './orchestrator-config.ts';
import { CpuExactDecoder } from './orchestrator-decode.ts';
import { OrchestratorLearner, windowFor, PAD_SEGMENT } from './orchestrator-learner.ts';
import { readOrchestratorModel } from './orchestrator-model.ts';
import { sampleDesigns, type Sample } from './orchestrator-sampler.ts';

const DIR = new URL('../../models/baton-orchestrator-tiny/', import.meta.url);
const model = readOrchestratorModel({
  config: readFileSync(new URL('config.json', DIR), 'utf8'),
  tokenizer: readFileSync(new URL('tokenizer.json', DIR), 'utf8'),
  tokenizerConfig: readFileSync(new URL('tokenizer_config.json', DIR), 'utf8'),
  onnx: new Uint8Array(readFileSync(new URL('onnx/model.onnx', DIR))),
});
const format = tinyDesignSampling({
  tokenizer: model.tokenizer,
  vocabSize: model.weights.config.vocabSize,
  maxQueryTokens: model.maxQueryTokens,
  pool: DEFAULT_POOL,
});
const CPU = { backend: 'cpu', reason: 'test', adapter: null, ctx: null } as const;
const tasks = drawTeacherTasks({ count: 2, baseSeed: 7, split: 'train', values: [2, 3] });

async function samplesAt(temperature: number, w: TinyGptWeights = model.weights): Promise<Sample[]> {
  return sampleDesigns({
    decoder: new CpuExactDecoder(w),
    format,
    queries: [
      { task: tasks[0]!, dom: 'high' },
      { task: tasks[1]!, dom: 'low' },
    ],
    group: 2,
    temperature,
    greedy: false,
    rng: createRng(3),
    maxNewTokens: 256,
  });
}

const param = (l: OrchestratorLearner, name: string): Tensor => l.graph.params.get(name)!;

describe('OrchestratorLearner', () => {
  it('scores each sampled token with the sampler’s masked log-probability, bit for bit (CPU backend)', async () => {
    const samples = await samplesAt(0.8);
    expect(samples.every((s) => s.design !== null)).toBe(true);
    const free = samples.reduce((a, s) => a + s.forced.filter((f) => f === 0).length, 0);
    expect(free).toBeGreaterThan(4);
    const learner = await OrchestratorLearner.create(
      model.weights,
      model.weights,
      orchestratorTrainConfig({ minibatch: 3, temperature: 0.8 }),
      CPU,
    );
    const lp = await learner.logProbs(samples);
    samples.forEach((s, i) => expect(Array.from(lp[i]!)).toEqual(Array.from(s.logp)));
    // the frozen reference is the same model here: the same values
    const ref = await learner.logProbs(samples, 'reference');
    samples.forEach((s, i) => expect(Array.from(ref[i]!)).toEqual(Array.from(s.logp)));
    // at another temperature the learner scores another distribution
    const other = await OrchestratorLearner.create(
      model.weights,
      model.weights,
      orchestratorTrainConfig({ minibatch: 4, temperature: 1 }),
      CPU,
    );
    const lp1 = await other.logProbs(samples);
    expect(Array.from(lp1[0]!)).not.toEqual(Array.from(samples[0]!.logp));
    learner.dispose();
    other.dispose();
  }, 60_000);

  it('packs several designs into a row, each its own segment: the same log-probs and gradient as one design per row', async () => {
    const samples = await samplesAt(1);
    const seq = model.weights.config.nPositions;
    const packedWindow = windowFor(samples, 2, seq, model.weights.config.vocabSize, true);
    expect(packedWindow.rowsUsed).toBeLessThan(samples.length);
    const real = [...packedWindow.segments].filter((x) => x < PAD_SEGMENT);
    expect(Math.max(...real)).toBeGreaterThan(1);
    // Each padding position is a segment of its own (attention over padding grows linearly).
    for (let row = 0; row < 2; row++) {
      const pads = [...packedWindow.segments.subarray(row * seq, (row + 1) * seq)].filter(
        (x) => x >= PAD_SEGMENT,
      );
      expect(pads.length).toBeGreaterThan(0);
      expect(new Set(pads).size).toBe(pads.length);
    }
    const base = { minibatch: 4, klCoef: 0.1, entropyCoef: 0.05 };
    const packed = await OrchestratorLearner.create(
      model.weights,
      model.weights,
      orchestratorTrainConfig({ ...base, packRows: 2 }),
      CPU,
    );
    const plain = await OrchestratorLearner.create(
      model.weights,
      model.weights,
      orchestratorTrainConfig({ ...base, packRows: 0 }),
      CPU,
    );
    expect(packed.fit(samples, 0)).toBe(samples.length);
    const [a, b] = [await packed.logProbs(samples), await plain.logProbs(samples)];
    samples.forEach((s, i) => {
      expect(Array.from(a[i]!)).toEqual(Array.from(b[i]!));
      expect(Array.from(a[i]!)).toEqual(Array.from(s.logp));
    });
    const old = samples.map((s) => s.logp.map((x) => x - 0.1));
    const adv = [1, -1, 0.5, -0.5];
    const sp = await packed.update(samples, old, old, adv, false);
    const su = await plain.update(samples, old, old, adv, false);
    expect(sp.tokens).toBe(su.tokens);
    expect(sp.loss).toBeCloseTo(su.loss, 6);
    for (const name of ['wte', 'h.0.attn.q.w', 'ln_f.g']) {
      const gp = await packed.model.readGrad(param(packed, name));
      const gu = await plain.model.readGrad(param(plain, name));
      const scale = Math.max(...Array.from(gu, Math.abs));
      expect(scale).toBeGreaterThan(0);
      for (let j = 0; j < gu.length; j++) expect(Math.abs(gp[j]! - gu[j]!)).toBeLessThan(1e-5 * scale);
    }
    // a window too small for the designs is refused with a clear error
    expect(() => windowFor(samples, 1, 8, model.weights.config.vocabSize, true)).toThrow(
      /exceeds the window/,
    );
    packed.dispose();
    plain.dispose();
  }, 60_000);

  it('gives forced tokens no gradient', async () => {
    const samples = await samplesAt(1);
    const config = orchestratorTrainConfig({ minibatch: 4, klCoef: 0.1, entropyCoef: 0.05 });
    const learner = await OrchestratorLearner.create(model.weights, model.weights, config, CPU);
    const adv = [1, -1, 0.5, -0.5];
    const grad = async (seqs: Sample[]): Promise<Float32Array> => {
      const old = seqs.map((s) => s.logp.map((x) => x - 0.1));
      await learner.update(seqs, old, old, adv, false);
      return learner.model.readGrad(param(learner, 'wte'));
    };
    const base = await grad(samples);
    // Widen every forced position's mask to the whole vocabulary: were forced tokens counted,
    // their log-probability (no longer 0) would now move the gradient.
    const all = new Int32Array(samples[0]!.masks[0]!.length).fill(-1);
    const widened = samples.map((s) => ({
      ...s,
      masks: s.masks.map((m, k) => (s.forced[k] === 1 ? all : m)),
    }));
    expect(Array.from(await grad(widened))).toEqual(Array.from(base));
    const counted = widened.map((s) => ({ ...s, forced: new Uint8Array(s.forced.length) }));
    expect(Array.from(await grad(counted))).not.toEqual(Array.from(base));
    expect(base.some((x) => x !== 0)).toBe(true);
    learner.dispose();
  }, 60_000);

  it('backpropagates the token-level PPO objective: its gradient matches finite differences', async () => {
    const samples = await samplesAt(1);
    const config = orchestratorTrainConfig({ minibatch: 4, klCoef: 0.1, entropyCoef: 0.02, clipEps: 0.2 });
    // ratios 1.35 (clipped for A > 0), 0.74 (clipped for A < 0), 1 and 1.05 (unclipped); a reference
    // that differs so the k3 term has a gradient
    const offsets = [-0.3, 0.3, 0, -0.05];
    const old = samples.map((s, i) => s.logp.map((x) => x + offsets[i]!));
    const ref = samples.map((s) => s.logp.map((x, k) => x + 0.2 * Math.sin(k)));
    const adv = [1, -1, 0.7, -0.4];
    const lossAt = async (
      w: TinyGptWeights,
      read?: string,
    ): Promise<{ loss: number; clip: number; g?: Float32Array }> => {
      const l = await OrchestratorLearner.create(w, model.weights, config, { ...CPU });
      const st = await l.update(samples, old, ref, adv, false);
      const g = read ? await l.model.readGrad(param(l, read)) : undefined;
      l.dispose();
      return { loss: st.loss, clip: st.clipFraction, ...(g ? { g } : {}) };
    };
    const name = 'ln_f.g';
    const at = await lossAt(model.weights, name);
    expect(at.clip).toBeGreaterThan(0);
    expect(at.clip).toBeLessThan(1);
    const g = at.g!;
    const order = Array.from(g.keys()).sort((a, b) => Math.abs(g[b]!) - Math.abs(g[a]!));
    const h = 2e-3;
    for (const j of order.slice(0, 3)) {
      const shifted = (d: number): TinyGptWeights => {
        const params = new Map(model.weights.params);
        const a = Float32Array.from(params.get(name)!);
        a[j] = a[j]! + d;
        params.set(name, a);
        return { config: model.weights.config, params };
      };
      const up = await lossAt(shifted(h));
      const down = await lossAt(shifted(-h));
      const fd = (up.loss - down.loss) / (2 * h);
      expect(Math.abs(fd - g[j]!)).toBeLessThan(0.02 * Math.abs(g[j]!) + 2e-4);
    }
    expect(Math.abs(g[order[0]!]!)).toBeGreaterThan(1e-3);
  }, 120_000);
});
