import { afterAll, describe, expect, it } from 'vitest';
import { channelOrchTrainWorker } from './train-orchestrator.local.ts';
import type { OrchProgress } from './train-orchestrator.methods.ts';

/**
 * The orchestrator mode of the training worker over a MessageChannel: the real handlers and the real
 * GRPO trainer on the CPU backend, the shipped offline model read from models/ as the page reads it
 * (over its base URL), the checkpoint and exported folders kept in memory.
 */
const ROOT = new URL('../..', import.meta.url).pathname.replace(/\/$/, '');
const BASE = 'http://app.test/';
const worker = channelOrchTrainWorker(ROOT);
afterAll(() => worker.close());

const config = {
  tasksPerIteration: 1,
  groupSize: 2,
  minibatch: 2,
  klCoef: 0,
  maxNewTokens: 96,
  evalTasks: 1,
  seed: 5,
  lr: 0.01,
};

async function run(iterations: number): Promise<OrchProgress[]> {
  const reports: OrchProgress[] = [];
  const r = await worker.call(
    'orchRun',
    { iterations, snapshotEvery: 2 },
    { onProgress: (p) => reports.push(p) },
  );
  expect(r.ok).toBe(true);
  return reports;
}

describe('orchestrator training in the worker', () => {
  it('starts from the shipped model, streams iterations with sampled designs, stores the checkpoint', async () => {
    const s = await worker.call('orchStart', {
      baseUrl: BASE,
      folder: 'baton-orchestrator-tiny',
      config,
      resume: false,
      backend: 'cpu',
    });
    expect(s.ok).toBe(true);
    if (!s.ok) return;
    expect(s.value.backend).toBe('cpu');
    expect(s.value.run.iteration).toBe(0);
    expect(s.value.model.params).toBeGreaterThan(1000);
    expect(s.value.run.config).toMatchObject({ tasksPerIteration: 1, groupSize: 2, lr: 0.01 });
    const reports = await run(2);
    const its = reports.filter((p) => p.kind === 'iteration');
    expect(its.map((p) => p.metrics.iteration)).toEqual([1, 2]);
    expect(its[0]?.sampled.length).toBe(2);
    expect(its[0]?.sampled.every((d) => d.design !== null && d.text.length > 0)).toBe(true);
    expect(its[0]?.metrics.validity).toBe(1);
    expect(reports.filter((p) => p.kind === 'snapshot')).toEqual([
      { kind: 'snapshot', iteration: 2, stored: true },
    ]);
    expect(worker.saved.text).toContain('baton.orchestrator-grpo/1');
  }, 120_000);

  it('resumes the saved run after the trainer was dropped, with its history', async () => {
    // What a reload does: a fresh trainer from the saved checkpoint.
    const saved = await worker.call('orchSaved', {});
    expect(saved.ok && saved.value?.iteration).toBe(2);
    const s = await worker.call('orchStart', {
      baseUrl: BASE,
      folder: 'baton-orchestrator-tiny',
      config: {},
      resume: true,
      backend: 'cpu',
    });
    expect(s.ok).toBe(true);
    if (!s.ok) return;
    expect(s.value.run.iteration).toBe(2);
    expect(s.value.run.history.map((m) => m.iteration)).toEqual([1, 2]);
    // The saved config wins over the (empty) form.
    expect(s.value.run.config).toMatchObject({ lr: 0.01, seed: 5 });
    const reports = await run(1);
    expect(reports.find((p) => p.kind === 'iteration')).toMatchObject({ metrics: { iteration: 3 } });
  }, 120_000);

  it('exports the current weights as a model folder of the tiny format', async () => {
    const r = await worker.call('orchExport', { baseUrl: BASE });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.url.startsWith(`${BASE}trained-models/baton-orchestrator-tiny-grpo-3-`)).toBe(true);
    const files = worker.folders.get(r.value.url);
    expect([...(files?.keys() ?? [])]).toEqual(
      expect.arrayContaining([
        'config.json',
        'tokenizer.json',
        'onnx/model.onnx',
        'onnx/model_quantized.onnx',
      ]),
    );
    const cfg = JSON.parse(String(files?.get('config.json'))) as {
      baton: { format: string; provenance: { training: Record<string, unknown> } };
    };
    expect(cfg.baton.format).toBe('baton.tiny-gpt/1');
    expect(cfg.baton.provenance.training.grpoIterations).toBe(3);
  }, 60_000);

  it('refuses a resume with nothing saved, and a model folder that is not there, with a reason', async () => {
    await worker.call('orchReset', {});
    const none = await worker.call('orchStart', {
      baseUrl: BASE,
      folder: 'baton-orchestrator-tiny',
      config: {},
      resume: true,
      backend: 'cpu',
    });
    expect(none.ok).toBe(false);
    if (!none.ok) expect(none.errors[0]?.message).toMatch(/no orchestrator run is saved/);
    const missing = await worker.call('orchStart', {
      baseUrl: BASE,
      folder: 'no-such-model',
      config: {},
      resume: false,
      backend: 'cpu',
    });
    expect(missing.ok).toBe(false);
    const bad = await worker.call('orchStart', {
      baseUrl: BASE,
      folder: 'baton-orchestrator-tiny',
      config: { groupSize: 1 },
      resume: false,
      backend: 'cpu',
    });
    expect(bad.ok).toBe(false);
  }, 60_000);
});
