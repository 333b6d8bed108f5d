/**
 * The sampler decodes on the CPU (CpuExactDecoder, or on the wasm backend WasmDecoder); the learner
 * may run on the wasm or the WebGPU backend. Their kernels sum in other orders than the TypeScript backend, so the learner's masked
 * log-probability of a sampled token differs from the sampler's by float rounding: within 1e-4
 * (absolute, on log-probs of magnitude up to ~10) on both, and the first PPO ratio within 1e-4 of 1.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createRng } from '../core/rng.ts';
import { chooseBackend, type BackendChoice } from '../gpu/index.ts';
import { nodeGpu } from '../gpu/node-gpu.ts';
import { drawTeacherTasks, tinyDesignSampling } from '../orchestrator/index.ts';
import { DEFAULT_POOL } from '../policy/index.ts';
import { orchestratorTrainConfig } from './orchestrator-config.ts';
import { CpuExactDecoder, type Decoder } from './orchestrator-decode.ts';
import { WasmDecoder } from './orchestrator-decode-wasm.ts';
import { OrchestratorLearner } from './orchestrator-learner.ts';
import { readOrchestratorModel } from './orchestrator-model.ts';
import { sampleDesigns } from './orchestrator-sampler.ts';

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
const TOLERANCE = 1e-4;

async function compare(
  choice: BackendChoice,
  decoder: Decoder = new CpuExactDecoder(model.weights),
): Promise<number> {
  const tasks = drawTeacherTasks({ count: 2, baseSeed: 11, split: 'train', values: [2, 3] });
  const samples = await sampleDesigns({
    decoder,
    format,
    queries: [
      { task: tasks[0]!, dom: 'high' },
      { task: tasks[1]!, dom: 'low' },
    ],
    group: 2,
    temperature: 0.9,
    greedy: false,
    rng: createRng(5),
    maxNewTokens: 256,
  });
  const learner = await OrchestratorLearner.create(
    model.weights,
    model.weights,
    orchestratorTrainConfig({ minibatch: 4, temperature: 0.9 }),
    choice,
  );
  try {
    const lp = await learner.logProbs(samples);
    let worst = 0;
    let free = 0;
    samples.forEach((s, i) =>
      s.logp.forEach((v, t) => {
        const got = lp[i]![t]!;
        expect(Number.isFinite(got)).toBe(true);
        // Forced tokens have log-probability 0 on both sides, exactly.
        if (s.forced[t] === 1) expect(got).toBe(0);
        else free++;
        worst = Math.max(worst, Math.abs(got - v));
      }),
    );
    expect(free).toBeGreaterThan(4);
    expect(worst).toBeLessThanOrEqual(TOLERANCE);
    return worst;
  } finally {
    learner.dispose();
  }
}

describe('the learner’s masked log-probs on other backends than the sampler’s', () => {
  const cleanup: (() => void)[] = [];
  afterAll(() => cleanup.forEach((f) => f()));

  it('wasm: equal to the CPU sampler’s within 1e-4', async () => {
    const worst = await compare({ backend: 'wasm', reason: 'test', adapter: null, ctx: null });
    expect(worst).toBeGreaterThanOrEqual(0);
  }, 120_000);

  it('wasm learner and wasm sampler (what the trainer runs on wasm): within 1e-4', async () => {
    const wasm = { backend: 'wasm', reason: 'test', adapter: null, ctx: null } as const;
    const worst = await compare(wasm, await WasmDecoder.create(model.weights, 4));
    expect(worst).toBeGreaterThanOrEqual(0);
  }, 120_000);

  it('WebGPU (software adapter): equal to the CPU sampler’s within 1e-4', async () => {
    // Fails (does not skip) without an adapter, like src/gpu/webgpu/webgpu.test.ts.
    const choice = await chooseBackend('webgpu', { gpu: await nodeGpu() });
    const ctx = choice.ctx;
    if (!ctx) throw new Error('no WebGPU device');
    cleanup.push(() => ctx.dispose());
    await compare(choice);
  }, 300_000);
});
