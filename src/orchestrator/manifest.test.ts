import { readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { estimateSizeMB, parseManifest, resolveModel, type Manifest } from './manifest.ts';

const shipped = readFileSync(new URL('../../models/manifest.json', import.meta.url), 'utf8');
const entry = (over: Record<string, unknown> = {}) => ({
  id: 'm',
  label: 'M',
  source: { kind: 'hub', repo: 'owner/name' },
  dtypes: ['q4'],
  promptFormat: 'chat',
  paramsM: 500,
  license: 'MIT',
  ...over,
});

describe('parseManifest', () => {
  it('reads the shipped manifest with no warnings; the default is the offline model', () => {
    const r = parseManifest(shipped);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.warnings).toEqual([]);
    expect(r.value.default).toBe('baton-orchestrator-tiny');
    const tiny = r.value.models.find((m) => m.id === r.value.default);
    expect(tiny?.source).toEqual({ kind: 'local', folder: 'baton-orchestrator-tiny' });
    expect(tiny?.promptFormat).toBe('tiny');
    expect(r.value.models.filter((m) => m.source.kind === 'hub').length).toBeGreaterThanOrEqual(3);
  });

  it.each(['baton-orchestrator-tiny', 'baton-orchestrator-tiny-v2'])(
    "states the offline model's real sizes and parameter count, so the picker shows what loads (%s)",
    (id) => {
      const r = parseManifest(shipped);
      if (!r.ok) throw new Error('the shipped manifest does not parse');
      const tiny = r.value.models.find((m) => m.id === id);
      if (!tiny) throw new Error('no offline model in the manifest');
      expect(tiny.source).toEqual({ kind: 'local', folder: id });
      const file = { fp32: 'model.onnx', q8: 'model_quantized.onnx', q4: 'model_q4.onnx' } as const;
      for (const d of tiny.dtypes) {
        const path = new URL(`../../models/${id}/onnx/${file[d as keyof typeof file]}`, import.meta.url);
        expect(tiny.sizeMB[d]).toBeCloseTo(statSync(path).size / 1024 / 1024, 2);
      }
      const config = JSON.parse(
        readFileSync(new URL(`../../models/${id}/config.json`, import.meta.url), 'utf8'),
      ) as { n_embd: number; n_layer: number; vocab_size: number; n_positions: number };
      const d = config.n_embd;
      const params =
        (config.vocab_size + config.n_positions) * d + config.n_layer * (12 * d * d + 13 * d) + 2 * d;
      expect(tiny.paramsM).toBeCloseTo(params / 1e6, 3);
    },
  );

  it('leaves out a bad entry and says which and why; keeps the others', () => {
    const r = parseManifest({
      format: 'baton.models/1',
      default: 'm',
      models: [
        entry(),
        entry({ id: 'bad', dtypes: ['q3'] }),
        entry({ id: 'nohub', source: { kind: 'hub', repo: 'no-slash' } }),
        entry(),
        entry({ id: 'sized', sizeMB: { fp32: 10 } }),
      ],
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.models.map((m) => m.id)).toEqual(['m']);
    const text = r.warnings.map((w) => w.message);
    expect(text[0]).toMatch(/model "bad" is left out: dtypes\.0/);
    expect(text[1]).toMatch(/model "nohub" is left out: source.repo: a hub id is owner\/name/);
    expect(text[2]).toMatch(/model "m" is left out: its id is used twice/);
    expect(text[3]).toMatch(/size given for fp32, which dtypes does not list/);
    expect(r.warnings.every((w) => w.code === 'E_MODEL_MANIFEST')).toBe(true);
  });

  it('fails on what is not a manifest, and on a default that names no good entry', () => {
    expect(parseManifest('{').ok).toBe(false);
    expect(parseManifest({ format: 'other', default: 'm', models: [entry()] }).ok).toBe(false);
    const r = parseManifest({ format: 'baton.models/1', default: 'x', models: [entry()] });
    expect(r.ok ? '' : r.errors[0]?.message).toMatch(/the default model "x" is not a usable entry/);
    expect(parseManifest('x'.repeat(600_000)).ok).toBe(false);
  });

  it('estimates sizes from parameters when the entry gives none', () => {
    const r = parseManifest({
      format: 'baton.models/1',
      default: 'm',
      models: [entry({ sizeMB: { q4: 300 } }), entry({ id: 'n', dtypes: ['fp32'] })],
    });
    if (!r.ok) throw new Error('unexpected');
    const [m, n] = r.value.models;
    expect(estimateSizeMB(m!, 'q4')).toEqual({ mb: 300, exact: true });
    expect(estimateSizeMB(n!, 'fp32')).toEqual({ mb: 2000, exact: false });
  });
});

describe('resolveModel', () => {
  const parsed = parseManifest(shipped);
  if (!parsed.ok) throw new Error('shipped manifest');
  const manifest: Manifest = parsed.value;
  const o = { localRoot: '/app/models', hubHost: 'http://127.0.0.1:9/' };

  it('a manifest id: local folders under models/, hub repos on the hub host', () => {
    const tiny = resolveModel('baton-orchestrator-tiny', manifest, o);
    expect(tiny.ok && tiny.value).toMatchObject({
      kind: 'local',
      repo: 'baton-orchestrator-tiny',
      localRoot: '/app/models/',
    });
    const q = resolveModel('qwen2.5-0.5b-instruct', manifest, o);
    expect(q.ok && q.value).toMatchObject({
      kind: 'remote',
      repo: 'onnx-community/Qwen2.5-0.5B-Instruct',
      remoteHost: 'http://127.0.0.1:9/',
      remotePathTemplate: '{model}/resolve/{revision}/',
    });
  });

  it('a hub id typed in gets the chat format', () => {
    const r = resolveModel('someone/SmolLM2-135M-Instruct', manifest, o);
    expect(r.ok && r.value).toMatchObject({
      kind: 'remote',
      repo: 'someone/SmolLM2-135M-Instruct',
      revision: 'main',
    });
    expect(r.ok && r.value.entry?.promptFormat).toBe('chat');
  });

  it('a hub-layout URL keeps its host, repo and revision; another URL is a folder', () => {
    const hub = resolveModel('http://127.0.0.1:8790/mirror/owner/name/resolve/v2/', manifest, o);
    expect(hub.ok && hub.value).toMatchObject({
      kind: 'remote',
      repo: 'owner/name',
      revision: 'v2',
      remoteHost: 'http://127.0.0.1:8790/mirror/',
    });
    const folder = resolveModel('https://example.org/models/mine?x=1', manifest, o);
    expect(folder.ok && folder.value).toMatchObject({
      kind: 'remote',
      remoteHost: 'https://example.org/models/mine/',
      remotePathTemplate: '',
    });
  });

  it('refuses what is none of these, and URLs with credentials', () => {
    const r = resolveModel('not a model', manifest, o);
    expect(r.ok ? '' : r.errors[0]?.message).toMatch(
      /not a model in the manifest: baton-orchestrator-tiny, /,
    );
    expect(resolveModel('https://u:p@example.org/m', manifest, o).ok).toBe(false);
    expect(resolveModel('', manifest, o).ok).toBe(false);
    expect(resolveModel('a/b--c', manifest, o).ok).toBe(false);
  });

  it('a folder on disk, where the caller can tell', () => {
    const r = resolveModel('./out/model', null, { ...o, isFolder: (s) => s === './out/model' });
    expect(r.ok && r.value).toMatchObject({ kind: 'local', repo: './out/model', localRoot: '' });
  });
});
