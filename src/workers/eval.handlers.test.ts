import { afterAll, describe, expect, it } from 'vitest';
import { EvalConfigSchema } from '../eval/index.ts';
import { DEFAULT_POOL, randomCheckpoint } from '../policy/index.ts';
import { remoteOf } from './eval.handlers.ts';
import { channelEvalWorker } from './eval.local.ts';

const base = {
  methods: [{ kind: 'agent', agent: 'cot' }],
  taskSet: { kind: 'masbench', axes: [{ axis: 'depth', values: [2] }], n: 1, seed: 0, split: 'test' },
  seeds: [0],
  budget: { tokens: 1000 },
};
const remote = EvalConfigSchema.parse({
  ...base,
  backend: { kind: 'remote', provider: 'custom', baseUrl: 'http://127.0.0.1:9/v1', model: 'm' },
});
const simulated = EvalConfigSchema.parse({ ...base, backend: { kind: 'simulated' } });
const conn = { provider: 'custom', baseUrl: 'http://127.0.0.1:9/v1/', model: 'm', apiKey: 'sk-test-x' };

describe('the evaluation worker on a provider', () => {
  it('takes the connection only when it matches what the config records', () => {
    expect(remoteOf(remote, conn)).toMatchObject({ kind: 'remote', model: 'm', apiKey: 'sk-test-x' });
    expect(remoteOf(simulated, undefined)).toBeNull();
    expect(() => remoteOf(remote, undefined)).toThrow(/needs its connection/);
    expect(() => remoteOf(remote, { ...conn, model: 'other' })).toThrow(/does not match/);
    expect(() => remoteOf(simulated, conn)).toThrow(/simulator/);
  });

  const worker = channelEvalWorker();
  afterAll(() => worker.close());
  it('answers a mismatched call with a problem that does not hold the key', async () => {
    const r = await worker.evaluate({
      config: remote,
      done: [],
      concurrency: 1,
      createdAt: new Date().toISOString(),
      provider: { ...conn, model: 'other', apiKey: 'sk-test-SECRET-123' },
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors[0]?.code).toBe('E_WORKER_FAILED');
    expect(JSON.stringify(r.errors)).not.toContain('sk-test-SECRET-123');
  });
});

describe('the evaluation worker with a saved checkpoint', () => {
  const worker = channelEvalWorker();
  afterAll(() => worker.close());
  const config = EvalConfigSchema.parse({
    ...base,
    methods: [{ kind: 'policy', checkpoint: 'trained:test', greedy: true }],
    taskSet: { kind: 'masbench', axes: [{ axis: 'depth', values: [2] }], n: 2, seed: 0, split: 'all' },
    budget: {},
    backend: { kind: 'simulated' },
  });
  it('runs a checkpoint the call carries, and names one it does not', async () => {
    const call = { config, done: [], concurrency: 1, createdAt: new Date().toISOString() };
    const cp = { ...randomCheckpoint(DEFAULT_POOL, 2), name: 'trained:test' };
    const rows: string[] = [];
    const r = await worker.evaluate(
      { ...call, checkpoints: { 'trained:test': cp as never } },
      { onProgress: (p) => void (p.kind === 'row' && rows.push(p.row.method)) },
    );
    expect(r.ok).toBe(true);
    expect(rows).toEqual(['policy:trained:test:greedy', 'policy:trained:test:greedy']);
    const missing = await worker.evaluate(call);
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.errors[0]?.message).toMatch(/trained:test.*not a saved checkpoint/);
  });
});
