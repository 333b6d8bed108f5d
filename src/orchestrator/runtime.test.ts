/**
 * The runtime in Node against a real local HTTP server in the hub's URL layout
 * (tests/server/model-server.ts), with a model folder the project's writers make from random
 * weights (tests/server/model-fixture.ts): load, generate (streamed, unconstrained and constrained),
 * interrupt; and what a user gets for a model that is not there, a corrupt or truncated model file,
 * a tokenizer that belongs to another model, and a name that is no model at all.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../../tests/server/model-server.ts';
import { FIXTURE_VOCAB, writeModelFolder } from '../../tests/server/model-fixture.ts';
import { chatFormat } from './formats.ts';
import { parseManifest, type Manifest } from './manifest.ts';
import { createOrchestratorRuntime, type OrchestratorRuntime } from './runtime.ts';

let server: ModelServer;
let cacheDir: string;
let manifest: Manifest;

function runtime(dir = cacheDir): OrchestratorRuntime {
  return createOrchestratorRuntime({
    manifest,
    resolve: { hubHost: server.url, localRoot: '/nowhere/' },
    probe: () => Promise.resolve({ runtime: 'node', webgpu: null }),
    cacheDir: dir,
    formats: { chat: chatFormat(() => [{ role: 'user', content: 'q' }]) },
  });
}

beforeAll(async () => {
  cacheDir = await mkdtemp(join(tmpdir(), 'baton-model-cache-'));
  const good = await writeModelFolder({ dtypes: ['fp32', 'q8'] });
  const wrongTokenizer = await writeModelFolder({ config: { vocabSize: 5000 }, dtypes: ['fp32'] });
  server = await startModelServer({
    'test/tiny': good,
    'test/corrupt': good,
    'test/truncated': good,
    'test/other-tokenizer': wrongTokenizer,
  });
  server.fault('test/corrupt', 'onnx/model.onnx', { corrupt: new Uint8Array([8, 7, 1, 2, 3, 4, 5, 6]) });
  server.fault('test/truncated', 'onnx/model_quantized.onnx', { truncate: 5000 });
  const parsed = parseManifest({
    format: 'baton.models/1',
    default: 'corrupt',
    models: [
      {
        id: 'tiny',
        label: 't',
        source: { kind: 'hub', repo: 'test/tiny' },
        dtypes: ['q8', 'fp32'],
        promptFormat: 'tiny',
        paramsM: 1,
        license: 'MIT',
        maxNewTokens: 200,
      },
      {
        id: 'truncated',
        label: 't',
        source: { kind: 'hub', repo: 'test/truncated' },
        dtypes: ['q8'],
        promptFormat: 'tiny',
        paramsM: 1,
        license: 'MIT',
      },
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

  it('a truncated model file: E_MODEL_FILE', async () => {
    const r = await runtime().load({ model: 'truncated', device: 'cpu', dtype: 'q8' });
    expect(r.ok ? null : r.problem.code).toBe('E_MODEL_FILE');
    expect(r.ok ? '' : r.problem.path).toBe('onnx/model_quantized.onnx');
  });

  it('a corrupt model file: E_MODEL_FILE, and the runtime still loads after it', async () => {
    const rt = runtime();
    const r = await rt.load({ model: 'corrupt', device: 'auto', dtype: 'fp32' });
    expect(r.ok ? null : r.problem.code).toBe('E_MODEL_FILE');
    expect(r.ok ? '' : r.problem.message).toMatch(/ONNX model could not be read/);
    expect(rt.loaded).toBeNull();
    const again = await rt.load({ model: 'tiny', device: 'auto', dtype: 'auto' });
    expect(again.ok).toBe(true);
    await rt.dispose();
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
    expect(r.ok ? '' : r.problem.message).toContain('tiny, truncated, corrupt, gone');
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

describe('a model loaded through the hub layout', () => {
  const rt = (): OrchestratorRuntime => shared;
  let shared: OrchestratorRuntime;
  const events: string[] = [];

  let ownCache = '';
  beforeAll(async () => {
    ownCache = await mkdtemp(join(tmpdir(), 'baton-model-cache-'));
    shared = runtime(ownCache);
    const before = server.requests.length;
    const r = await shared.load({
      model: 'tiny',
      device: 'auto',
      dtype: 'auto',
      onEvent: (e) => events.push(e.kind === 'file' ? `${e.status} ${e.file}` : `stage ${e.stage}`),
    });
    if (!r.ok) throw new Error(r.problem.message);
    expect(server.requests.slice(before).map((q) => q.path)).toContain(
      '/test/tiny/resolve/main/onnx/model_quantized.onnx',
    );
  });
  afterAll(async () => {
    await shared?.dispose();
    await rm(ownCache, { recursive: true, force: true });
  });

  it('a second load reads the cache: no request reaches the server', async () => {
    const again = runtime(ownCache);
    const before = server.requests.length;
    const r = await again.load({ model: 'tiny', device: 'cpu', dtype: 'q8' });
    expect(r.ok).toBe(true);
    expect(server.requests.length).toBe(before);
    await again.dispose();
  });

  it("reports each file, picks the CPU in Node and the entry's first dtype, and checks the tokenizer", () => {
    const m = rt().loaded;
    expect(m).toMatchObject({
      id: 'tiny',
      device: 'cpu',
      dtype: 'q8',
      promptFormat: 'tiny',
      vocabSize: FIXTURE_VOCAB,
    });
    expect(m?.deviceReason).toMatch(/Node/);
    for (const f of ['config.json', 'tokenizer.json', 'onnx/model_quantized.onnx']) {
      expect(events).toContain(`start ${f}`);
      expect(events).toContain(`done ${f}`);
    }
    expect(events.indexOf('stage warmup')).toBeGreaterThan(events.indexOf('done onnx/model_quantized.onnx'));
    expect(m?.files.find((f) => f.file === 'onnx/model_quantized.onnx')?.bytes).toBeGreaterThan(1000);
  });

  it('streams text, and the record holds what was written; random weights write no valid design unconstrained', async () => {
    let streamed = '';
    const r = await rt().generate({
      query: 'What is 2 + 3?',
      dom: 'high',
      constrained: false,
      temperature: 0,
      seed: 0,
      maxNewTokens: 40,
      onText: (t) => (streamed += t),
    });
    if (!r.ok) throw new Error(r.problem.message);
    const { generation: g, designer, design, problem: p } = r.result;
    expect(g.tokens).toBeGreaterThan(0);
    expect(g.tokens).toBeLessThanOrEqual(40);
    expect(streamed.length).toBeGreaterThan(0);
    expect(g.rawOutput.startsWith(streamed.slice(0, 10))).toBe(true);
    expect(design).toBeNull();
    expect(p?.code).toBe('E_MODEL_OUTPUT');
    expect(p?.message).toMatch(/Unconstrained output is not held to the design grammar|token limit/);
    expect(designer).toMatchObject({
      kind: 'orchestrator',
      model: 'tiny',
      dtype: 'q8',
      device: 'cpu',
      constrained: false,
      valid: false,
      rawOutput: g.rawOutput,
    });
    expect(designer.prompt).toContain('<|dom_high|>');
    expect(designer.parseErrors.length).toBeGreaterThan(0);
  });

  it('greedy decoding is deterministic; a seed makes sampling repeatable', async () => {
    const run = async (temperature: number, seed: number) => {
      const r = await rt().generate({
        query: 'q',
        dom: 'low',
        constrained: false,
        temperature,
        seed,
        maxNewTokens: 12,
      });
      if (!r.ok) throw new Error(r.problem.message);
      return r.result.generation.rawOutput;
    };
    expect(await run(0, 1)).toBe(await run(0, 2));
    expect(await run(1, 7)).toBe(await run(1, 7));
  });

  // Low DoM: with random weights a high-DoM design can run out of tokens before its sinks are joined
  // (the engine does not yet force the closing references; docs/orchestrator.md).
  it('constrained decoding gives a valid design from random weights, with its counts in the record', async () => {
    const r = await rt().generate({
      query: 'What is 2 + 3?',
      dom: 'low',
      constrained: true,
      temperature: 0,
      seed: 0,
      maxNewTokens: 900,
    });
    if (!r.ok) throw new Error(r.problem.message);
    const { design, designer, generation: g } = r.result;
    expect(r.result.problem).toBeUndefined();
    expect(design?.agents.length).toBe(1);
    expect(design?.dom).toBe('low');
    expect(designer.valid).toBe(true);
    expect(designer.constraint?.steps).toBeGreaterThan(0);
    expect(designer.constraint?.forcedTokens).toBeGreaterThan(0);
    expect(g.stopReason).toBe('eos');
  });

  it('interrupt stops at the next token and keeps what was written', async () => {
    let stopped = false;
    const r = await rt().generate({
      query: 'q',
      dom: 'high',
      constrained: false,
      temperature: 0,
      seed: 0,
      maxNewTokens: 100,
      onText: (_t, tokens) => {
        if (tokens >= 5 && !stopped) stopped = rt().interrupt();
      },
    });
    if (!r.ok) throw new Error(r.problem.message);
    expect(stopped).toBe(true);
    expect(r.result.generation.stopReason).toBe('interrupted');
    expect(r.result.generation.tokens).toBeLessThan(100);
    expect(r.result.problem?.message).toMatch(/interrupted/);
    expect(rt().interrupt()).toBe(false);
  });
});

// The browser's case: a manifest entry whose files this build serves at `<base>models/<folder>/`
// (a URL root, not a folder on disk). Here the shipped model's files, served at that path.
describe('a local entry under a URL root (the build serving models/)', () => {
  const FOLDER = join(import.meta.dirname, '../../models/baton-orchestrator-tiny');
  const FILES = [
    'config.json',
    'generation_config.json',
    'tokenizer.json',
    'tokenizer_config.json',
    'onnx/model_quantized.onnx',
  ];
  let ownCache = '';
  beforeAll(async () => {
    ownCache = await mkdtemp(join(tmpdir(), 'baton-model-cache-'));
    for (const f of FILES)
      server.file(`/build/models/baton-orchestrator-tiny/${f}`, await readFile(join(FOLDER, f)));
  });
  afterAll(async () => {
    for (const f of FILES) server.file(`/build/models/baton-orchestrator-tiny/${f}`, null);
    await rm(ownCache, { recursive: true, force: true });
  });

  it('loads with its tokenizer (tokenizer_config.json read) from <root><folder>/ only', async () => {
    const local = parseManifest({
      format: 'baton.models/1',
      default: 'offline',
      models: [
        {
          id: 'offline',
          label: 'o',
          source: { kind: 'local', folder: 'baton-orchestrator-tiny' },
          dtypes: ['q8'],
          promptFormat: 'tiny',
          paramsM: 1,
          license: 'MIT',
        },
      ],
    });
    if (!local.ok) throw new Error(local.errors[0]?.message);
    const rt = createOrchestratorRuntime({
      manifest: local.value,
      resolve: { hubHost: 'http://127.0.0.1:9/', localRoot: `${server.url}build/models/` },
      probe: () => Promise.resolve({ runtime: 'node', webgpu: null }),
      cacheDir: ownCache,
      formats: { chat: chatFormat(() => [{ role: 'user', content: 'q' }]) },
    });
    const before = server.requests.length;
    const r = await rt.load({ model: 'offline', device: 'cpu', dtype: 'q8' });
    if (!r.ok) throw new Error(r.problem.message);
    expect(r.model).toMatchObject({ id: 'offline', dtype: 'q8', device: 'cpu', promptFormat: 'tiny' });
    expect(rt.loaded?.files.map((f) => f.file)).toContain('tokenizer.json');
    const paths = server.requests.slice(before).map((q) => q.path);
    expect(paths).toContain('/build/models/baton-orchestrator-tiny/tokenizer_config.json');
    expect(paths).toContain('/build/models/baton-orchestrator-tiny/onnx/model_quantized.onnx');
    expect(paths.every((p) => p.startsWith('/build/models/baton-orchestrator-tiny/'))).toBe(true);
    // Its config.json says it was trained on 64 query tokens: a long query keeps that many, though
    // the positions would leave it more (256 - 40 answer tokens); plus the two markers.
    const g = await rt.generate({
      query: 'Count the words of the text, then report the count. '.repeat(20),
      dom: 'high',
      constrained: false,
      temperature: 0,
      seed: 0,
      maxNewTokens: 40,
    });
    if (!g.ok) throw new Error(g.problem.message);
    expect(g.result.generation.promptTokens).toBe(64 + 2);
    await rt.dispose();
  });
});
