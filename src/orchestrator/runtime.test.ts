/**
 * The runtime in Node against a real local HTTP server in the hub's URL layout
 * (tests/server/model-server.ts): what a user gets for a model that is not there, a corrupt model
 * file, a tokenizer that belongs to another model, and a name that is no model at all.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../../tests/server/model-server.ts';
import { FIXTURE_VOCAB, writeModelFolder } from '../../tests/server/model-fixture.ts';
import { chatFormat } from './formats.ts';
import { parseManifest, type Manifest } from './manifest.ts';
import { createOrchestratorRuntime, type OrchestratorRuntime } from './runtime.ts';

const config = { vocabSize: FIXTURE_VOCAB, nPositions: 64, nEmbd: 16, nHead: 2, nLayer: 1 };

let server: ModelServer;
let cacheDir: string;
let manifest: Manifest;

function runtime(): OrchestratorRuntime {
  return createOrchestratorRuntime({
    manifest,
    resolve: { hubHost: server.url, localRoot: '/nowhere/' },
    probe: () => Promise.resolve({ runtime: 'node', webgpu: null }),
    cacheDir,
    formats: { chat: chatFormat(() => [{ role: 'user', content: 'q' }]) },
  });
}

beforeAll(async () => {
  cacheDir = await mkdtemp(join(tmpdir(), 'baton-model-cache-'));
  const good = await writeModelFolder({
    config,
    onnx: { 'onnx/model.onnx': new Uint8Array([8, 7, 1, 2, 3, 4, 5, 6]) },
  });
  const wrongTokenizer = await writeModelFolder({ config: { ...config, vocabSize: 5000 } });
  server = await startModelServer({ 'test/corrupt': good, 'test/other-tokenizer': wrongTokenizer });
  const parsed = parseManifest({
    format: 'baton.models/1',
    default: 'corrupt',
    models: [
      {
        id: 'corrupt',
        label: 'c',
        source: { kind: 'hub', repo: 'test/corrupt' },
        dtypes: ['fp32'],
        promptFormat: 'chat',
        paramsM: 1,
        license: 'MIT',
      },
      {
        id: 'gone',
        label: 'g',
        source: { kind: 'hub', repo: 'test/gone' },
        dtypes: ['fp32'],
        promptFormat: 'chat',
        paramsM: 1,
        license: 'MIT',
      },
    ],
  });
  if (!parsed.ok) throw new Error(parsed.errors[0]?.message);
  manifest = parsed.value;
});

afterAll(async () => {
  await server?.close();
  await rm(cacheDir, { recursive: true, force: true });
});

describe('bad models give coded, clear errors', () => {
  it('a manifest entry pointing nowhere: E_MODEL_NOT_FOUND naming the URL', async () => {
    const r = await runtime().load({ model: 'gone', device: 'auto', dtype: 'auto' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problem.code).toBe('E_MODEL_NOT_FOUND');
    expect(r.problem.message).toContain('test/gone/resolve/main/config.json');
  });

  it('a server that cannot be reached: E_MODEL_NETWORK', async () => {
    const rt = createOrchestratorRuntime({
      manifest: null,
      resolve: { hubHost: 'http://127.0.0.1:9/', localRoot: '/nowhere/' },
      probe: () => Promise.resolve({ runtime: 'node', webgpu: null }),
      cacheDir,
      formats: {},
    });
    const r = await rt.load({ model: 'test/unreachable', device: 'cpu', dtype: 'fp32' });
    expect(r.ok ? null : r.problem.code).toBe('E_MODEL_NETWORK');
  });

  it('a corrupt model file: E_MODEL_FILE, and the runtime still loads after it', async () => {
    const rt = runtime();
    const r = await rt.load({ model: 'corrupt', device: 'auto', dtype: 'fp32' });
    expect(r.ok ? null : r.problem.code).toBe('E_MODEL_FILE');
    expect(r.ok ? '' : r.problem.message).toMatch(/ONNX model could not be read/);
    expect(rt.loaded).toBeNull();
    const again = await rt.load({ model: 'gone', device: 'auto', dtype: 'auto' });
    expect(again.ok ? null : again.problem.code).toBe('E_MODEL_NOT_FOUND');
  });

  it('a tokenizer that does not match the model: E_MODEL_TOKENIZER with both sizes', async () => {
    const r = await runtime().load({ model: 'test/other-tokenizer', device: 'cpu', dtype: 'fp32' });
    expect(r.ok ? null : r.problem.code).toBe('E_MODEL_TOKENIZER');
    expect(r.ok ? '' : r.problem.message).toContain(`${FIXTURE_VOCAB} tokens`);
    expect(r.ok ? '' : r.problem.message).toContain('5000');
  });

  it('a name that is no model: E_MODEL_SPEC listing the manifest ids', async () => {
    const r = await runtime().load({ model: 'not a model', device: 'auto', dtype: 'auto' });
    expect(r.ok ? null : r.problem.code).toBe('E_MODEL_SPEC');
    expect(r.ok ? '' : r.problem.message).toContain('corrupt, gone');
  });

  it('a browser device in Node: E_MODEL_DEVICE', async () => {
    const r = await runtime().load({ model: 'corrupt', device: 'webgpu', dtype: 'auto' });
    expect(r.ok ? null : r.problem.code).toBe('E_MODEL_DEVICE');
  });

  it('generating before loading: E_MODEL_NOT_LOADED', async () => {
    const r = await runtime().generate({
      query: 'q',
      dom: 'auto',
      constrained: false,
      temperature: 0,
      seed: 0,
    });
    expect(r.ok ? null : r.problem.code).toBe('E_MODEL_NOT_LOADED');
  });
});
