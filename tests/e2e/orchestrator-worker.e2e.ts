/**
 * The orchestrator worker in Chromium, on the page's real transport: Vite's dev server serves the
 * app's source (the worker is not yet on a page of the built app), `models/manifest.json` and
 * onnxruntime-web's files from this build (vite.config.ts); the model comes from a local server in
 * the hub's URL layout (a random-weight fixture made by the project's writers). transformers.js
 * loads it on wasm (auto: the SwiftShader adapter is a software fallback) and on WebGPU when asked,
 * writes a constrained design, and nothing is fetched from anywhere else.
 */
import { createServer, type ViteDevServer } from 'vite';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../server/model-server.ts';
import { writeModelFolder } from '../server/model-fixture.ts';
import { launch } from './browser.ts';

let vite: ViteDevServer;
let models: ModelServer;
let browser: Browser;
let page: Page;
let appUrl = '';
const requests: string[] = [];

beforeAll(async () => {
  const tiny = await writeModelFolder({ dtypes: ['q8', 'fp32'] });
  models = await startModelServer({ 'test/tiny': tiny, 'test/truncated': tiny });
  models.fault('test/truncated', 'onnx/model.onnx', { truncate: 4096 });
  vite = await createServer({ server: { port: 0, host: '127.0.0.1' }, logLevel: 'error' });
  await vite.listen();
  appUrl = `http://127.0.0.1:${(vite.httpServer?.address() as { port: number }).port}/`;
  browser = await launch();
  page = await browser.newPage();
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(appUrl);
  // Let the dev server finish discovering the page's dependencies (it may reload once).
  await page.waitForTimeout(3000);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await vite?.close();
  await models?.close();
});

/** Loads `device` and writes one design in the worker; what the page would show. */
function orchestrate(model: string, device: string): Promise<Record<string, unknown>> {
  return page.evaluate(`(async () => {
    const { createOrchestratorWorkerClient } = await import('/src/workers/orchestrator.client.ts');
    const client = createOrchestratorWorkerClient();
    const base = new URL('./', document.baseURI).href;
    const manifest = await client.manifest(base);
    const files = [];
    const load = await client.load({ model: ${JSON.stringify(model)}, baseUrl: base, device: ${JSON.stringify(device)} },
      { onProgress: (p) => { if (p.kind === 'file' && p.status === 'done') files.push(p.file); } });
    if (!load.ok) { client.dispose(); return { manifest: manifest.ok, load }; }
    let streamed = '';
    const gen = await client.generate({ query: 'What is 2 + 3?', dom: 'low', constrained: true },
      { onProgress: (p) => { streamed += p.text; } });
    client.dispose();
    return { manifest: manifest.ok && manifest.value.default, files, model: load.value, gen, streamed };
  })()`);
}

describe('orchestrator worker in Chromium', () => {
  it('auto picks wasm on the software adapter, loads through the hub layout and writes a valid design', async () => {
    const r = (await orchestrate(`${models.url}test/tiny/resolve/main/`, 'auto')) as {
      manifest: string;
      files: string[];
      model: { device: string; dtype: string; deviceReason: string; promptFormat: string };
      gen: { ok: boolean; value: { rawOutput: string; designer: { valid: boolean; device: string } } };
      streamed: string;
    };
    expect(r.manifest).toBe('baton-orchestrator-tiny');
    expect(r.model).toMatchObject({ device: 'wasm', promptFormat: 'tiny' });
    expect(r.model.deviceReason).toMatch(/software fallback/);
    expect(r.files).toContain('onnx/model_quantized.onnx');
    expect(r.gen.ok).toBe(true);
    expect(r.gen.value.designer).toMatchObject({ valid: true, device: 'wasm' });
    expect(r.streamed).toBe(r.gen.value.rawOutput);
    expect(requests.some((u) => u === `${appUrl}ort/ort-wasm-simd-threaded.asyncify.wasm`)).toBe(true);
    const elsewhere = requests.filter(
      (u) => !u.startsWith(appUrl) && !u.startsWith(models.url) && !u.startsWith('blob:'),
    );
    expect(elsewhere).toEqual([]);
  });

  it('runs on WebGPU when asked (fp32 on SwiftShader)', async () => {
    const r = (await orchestrate(`${models.url}test/tiny/resolve/main/`, 'webgpu')) as {
      model: { device: string };
      gen: { ok: boolean; value: { designer: { valid: boolean; device: string } } };
    };
    expect(r.model.device).toBe('webgpu');
    expect(r.gen.ok).toBe(true);
    expect(r.gen.value.designer).toMatchObject({ valid: true, device: 'webgpu' });
  });

  it('a second load reads the Cache API (no file downloaded again); clearCache empties it', async () => {
    const model = `${models.url}test/tiny/resolve/main/`;
    await orchestrate(model, 'wasm');
    const before = models.requests.length;
    const again = (await orchestrate(model, 'wasm')) as { model: { device: string } };
    expect(again.model.device).toBe('wasm');
    // A model typed in has its dtypes tried in turn: the missing q4 file is asked for (404, not
    // cached); every file that exists comes from the cache.
    expect(models.requests.slice(before).filter((r) => r.status === 200)).toEqual([]);
    const cleared = (await page.evaluate(`(async () => {
      const { createOrchestratorWorkerClient } = await import('/src/workers/orchestrator.client.ts');
      const client = createOrchestratorWorkerClient();
      const r = await client.clearCache();
      client.dispose();
      return r;
    })()`)) as { ok: boolean; value: { deleted: number } };
    expect(cleared.ok).toBe(true);
    expect(cleared.value.deleted).toBeGreaterThanOrEqual(5);
    await orchestrate(model, 'wasm');
    expect(models.requests.slice(before).some((r) => r.path.endsWith('/onnx/model_quantized.onnx'))).toBe(
      true,
    );
  });

  it('after a truncated model file, the same worker loads a whole one', async () => {
    const r = (await page.evaluate(`(async () => {
      const { createOrchestratorWorkerClient } = await import('/src/workers/orchestrator.client.ts');
      const client = createOrchestratorWorkerClient();
      const base = new URL('./', document.baseURI).href;
      const load = (model) => client.load({ model, baseUrl: base, device: 'wasm', dtype: 'fp32', useCache: false });
      const cut = await load(${JSON.stringify(`${models.url}test/truncated/resolve/main/`)});
      const whole = await load(${JSON.stringify(`${models.url}test/tiny/resolve/main/`)});
      const again = await load(${JSON.stringify(`${models.url}test/truncated/resolve/main/`)});
      client.dispose();
      return { cut, whole, again };
    })()`)) as Record<
      'cut' | 'whole' | 'again',
      { ok: boolean; errors?: { code: string; message: string }[] }
    >;
    expect(r.cut.ok).toBe(false);
    expect(r.cut.errors?.[0]?.code).toBe('E_MODEL_FILE');
    expect(r.whole.ok).toBe(true);
    // The cut file still fails on its own (nothing of the whole one is reused for it).
    expect(r.again.errors?.[0]?.code).toBe('E_MODEL_FILE');
  });

  it('a model that is not there is a coded error in the page', async () => {
    const r = (await orchestrate(`${models.url}test/none/resolve/main/`, 'auto')) as {
      load: { ok: boolean; errors: { code: string; message: string }[] };
    };
    expect(r.load.ok).toBe(false);
    expect(r.load.errors[0]?.code).toBe('E_MODEL_NOT_FOUND');
  });
});
