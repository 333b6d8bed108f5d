import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Design } from '../core/trace.ts';
import { tinyDesignSampling } from '../orchestrator/index.ts';
import { DEFAULT_POOL } from '../policy/index.ts';
import { parseOrchestratorCheckpoint } from './orchestrator-checkpoint.ts';
import { orchestratorTrainConfig } from './orchestrator-config.ts';
import { OrchestratorTrainer } from './orchestrator-loop.ts';
import { readOrchestratorModel } from './orchestrator-model.ts';

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
// A stand-in for the simulator: two or more agents answer right; every agent costs 500 tokens.
const run = (d: Design) => Promise.resolve({ correct: d.agents.length >= 2, tokens: 500 * d.agents.length });
const config = orchestratorTrainConfig({
  tasksPerIteration: 2,
  groupSize: 2,
  minibatch: 4,
  lr: 1e-3,
  seed: 5,
});
const make = (resume?: Parameters<typeof OrchestratorTrainer.create>[0]['resume']) =>
  OrchestratorTrainer.create({ model, format, config, choice: CPU, run, ...(resume ? { resume } : {}) });
const strip = <T extends { timings?: unknown }>(m: T): T => ({ ...m, timings: undefined });

describe('OrchestratorTrainer', () => {
  it('samples with the weights it updates, and resumes from a checkpoint bit for bit', async () => {
    const a = await make();
    const m1 = await a.iterate();
    expect(m1.samples).toBe(4);
    expect(m1.validity).toBe(1);
    expect(m1.updates).toBe(1);
    expect(m1.trainedTokens).toBeGreaterThan(0);
    expect(Number.isFinite(m1.kl) && Number.isFinite(m1.entropy) && m1.entropy > 0).toBe(true);
    expect(m1.lowDomDelegated).toBe(1);
    // the sampler decodes with the learner's weights, which moved away from the SFT model's
    const learned = await a.learnerWeights();
    let moved = false;
    for (const [k, v] of learned.params) {
      expect(Array.from(a.weights.params.get(k)!)).toEqual(Array.from(v));
      if (v.some((x, i) => x !== model.weights.params.get(k)![i])) moved = true;
    }
    expect(moved).toBe(true);
    expect(a.sampledDesigns()).toHaveLength(4);
    expect(a.sampledDesigns().every((d) => d.design !== null && d.text.includes('<agent>'))).toBe(true);
    const cp = await a.checkpoint();
    const m2 = await a.iterate();

    const parsed = parseOrchestratorCheckpoint(JSON.stringify(cp));
    if (!parsed.ok) throw new Error(parsed.problems.join('; '));
    const b = await make(parsed.checkpoint);
    expect(b.iteration).toBe(1);
    expect(b.history.map(strip)).toEqual([strip(m1)]);
    const m2b = await b.iterate();
    expect(strip(m2b)).toEqual(strip(m2));
    const wb = await b.learnerWeights();
    for (const [k, v] of (await a.learnerWeights()).params)
      expect(Array.from(wb.params.get(k)!)).toEqual(Array.from(v));
    a.dispose();
    b.dispose();
  }, 240_000);
});
