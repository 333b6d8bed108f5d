/**
 * The orchestrator worker's protocol over a MessageChannel (the real handlers and client, the
 * structured-clone transport the page uses), against a local server that serves the app's
 * `models/manifest.json` and a model in the hub's URL layout: the manifest with its warnings, load
 * with per-file progress, streamed generation, interrupt from another call, and the coded errors
 * a page shows.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../../tests/server/model-server.ts';
import { writeModelFolder } from '../../tests/server/model-fixture.ts';
import { channelOrchestratorWorker } from './orchestrator.local.ts';
import type { GenerateProgress, LoadProgress } from './orchestrator.methods.ts';

let server: ModelServer;
let folder = '';
let cacheDir = '';
let worker: ReturnType<typeof channelOrchestratorWorker>;

const manifest = {
  format: 'baton.models/1',
  default: 'tiny',
  models: [
    {
      id: 'tiny',
      label: 'Tiny (test fixture)',
      source: { kind: 'hub', repo: 'test/tiny' },
      dtypes: ['q8'],
      promptFormat: 'tiny',
      paramsM: 1,
      license: 'MIT',
      maxNewTokens: 400,
    },
    { id: 'broken', label: 'no source' },
  ],
};

beforeAll(async () => {
  folder = await writeModelFolder({ dtypes: ['q8'] });
  cacheDir = await mkdtemp(join(tmpdir(), 'baton-worker-cache-'));
  server = await startModelServer({ 'test/tiny': folder });
  server.file('/app/models/manifest.json', JSON.stringify(manifest));
  worker = channelOrchestratorWorker({ cacheDir, hubHost: server.url });
});
afterAll(async () => {
  worker?.close();
  await server?.close();
  await rm(folder, { recursive: true, force: true });
  await rm(cacheDir, { recursive: true, force: true });
});

const base = () => `${server.url}app/`;

describe('orchestrator worker', () => {
  it('lists the manifest and says which entry was left out and why', async () => {
    const r = await worker.manifest(base());
    if (!r.ok) throw new Error(r.errors[0]?.message);
    expect(r.value.default).toBe('tiny');
    expect(r.value.models.map((m) => m.id)).toEqual(['tiny']);
    expect(r.value.warnings[0]).toMatch(/^The model manifest breaks a rule: model "broken" is left out/);
  });

  it('a manifest that is not there: E_MODEL_MANIFEST', async () => {
    const r = await worker.manifest(`${server.url}elsewhere/`);
    expect(r.ok ? null : r.errors[0]?.code).toBe('E_MODEL_MANIFEST');
  });

  it('generating before a model is loaded: E_MODEL_NOT_LOADED', async () => {
    const r = await worker.generate({ query: 'q' });
    expect(r.ok ? null : r.errors[0]?.code).toBe('E_MODEL_NOT_LOADED');
  });

  it('a hub id that is not on the server: E_MODEL_NOT_FOUND, and the worker keeps working', async () => {
    const r = await worker.load({ model: 'test/missing', baseUrl: base(), device: 'auto' });
    expect(r.ok ? null : r.errors[0]?.code).toBe('E_MODEL_NOT_FOUND');
    expect(r.ok ? '' : r.errors[0]?.message).toMatch(/test\/missing\/resolve\/main\/config\.json/);
  });

  it('loads with per-file progress, streams a generation and records it', async () => {
    const progress: LoadProgress[] = [];
    const l = await worker.load({ model: 'tiny', baseUrl: base() }, { onProgress: (p) => progress.push(p) });
    if (!l.ok) throw new Error(l.errors[0]?.message);
    expect(l.value).toMatchObject({ id: 'tiny', dtype: 'q8', device: 'cpu', promptFormat: 'tiny' });
    const files = progress.filter((p) => p.kind === 'file');
    expect(
      files.some((p) => p.file === 'onnx/model_quantized.onnx' && p.status === 'done' && p.total > 0),
    ).toBe(true);
    expect(progress.some((p) => p.kind === 'stage' && p.stage === 'warmup')).toBe(true);

    const texts: GenerateProgress[] = [];
    const g = await worker.generate(
      { query: 'What is 2 + 3?', dom: 'low', constrained: true },
      { onProgress: (p) => texts.push(p) },
    );
    if (!g.ok) throw new Error(g.errors[0]?.message);
    expect(g.value.design?.agents.length).toBe(1);
    expect(g.value.designer).toMatchObject({
      kind: 'orchestrator',
      model: 'tiny',
      valid: true,
      constrained: true,
    });
    expect(texts.length).toBeGreaterThan(1);
    expect(texts.map((t) => (t.kind === 'text' ? t.text : '')).join('')).toBe(g.value.rawOutput);
  });

  it('interrupt, sent while a generation runs, stops it; the generation answers with what it wrote', async () => {
    let asked: Promise<unknown> | null = null;
    const g = await worker.generate(
      { query: 'q', dom: 'high', constrained: false, maxNewTokens: 300 },
      {
        onProgress: (p) => {
          if (p.tokens >= 3 && !asked) asked = worker.interrupt();
        },
      },
    );
    if (!g.ok) throw new Error(g.errors[0]?.message);
    expect(await asked).toMatchObject({ ok: true, value: { interrupted: true } });
    expect(g.value.stopReason).toBe('interrupted');
    expect(g.value.timings.tokens).toBeLessThan(300);
    expect(g.value.problem?.code).toBe('E_MODEL_OUTPUT');
  });

  it('cancelling generate stops the model too; the next call is served', async () => {
    const controller = new AbortController();
    const g = await worker.generate(
      { query: 'q', dom: 'high', constrained: false, maxNewTokens: 300 },
      { signal: controller.signal, onProgress: (p) => p.tokens >= 3 && controller.abort() },
    );
    expect(g.ok ? null : g.errors[0]?.code).toBe('E_WORKER_CANCELLED');
    // The model was interrupted, not left running: a new generation is not refused as busy.
    let again = await worker.generate({ query: 'q', dom: 'low', maxNewTokens: 20, constrained: false });
    for (let i = 0; i < 20 && !again.ok && again.errors[0]?.code === 'E_MODEL_BUSY'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      again = await worker.generate({ query: 'q', dom: 'low', maxNewTokens: 20, constrained: false });
    }
    expect(again.ok).toBe(true);
  });

  it('unload frees the model; clearCache answers in Node (no Cache API: nothing to delete)', async () => {
    expect(await worker.unload()).toMatchObject({ ok: true, value: { disposed: true } });
    expect(await worker.clearCache()).toMatchObject({ ok: true, value: { deleted: 0 } });
    const r = await worker.generate({ query: 'q' });
    expect(r.ok ? null : r.errors[0]?.code).toBe('E_MODEL_NOT_LOADED');
  });
});
