import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { minimalTrace } from '../../core/trace-builders.ts';
import { TraceSchema } from '../../core/trace.ts';
import type { CliIO } from '../command.ts';
import { importCommand, safeFileName } from './import.ts';

const DATA = fileURLToPath(
  new URL(
    '../../../../shared/data/mas-orchestra-cases/qwen2.5_20b_oss_120b_low_depth2.sample.json',
    import.meta.url,
  ),
);
const PAGE = fileURLToPath(new URL('../../../tests/fixtures/importers/case-page.html', import.meta.url));

let dir: string;
let out: string[];
let err: string[];
let io: CliIO;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'baton-import-'));
  out = [];
  err = [];
  io = { out: (l) => out.push(l), err: (l) => err.push(l), cwd: dir };
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('baton import', () => {
  it('writes one trace file per item of a case page and prints one line per item', async () => {
    const code = await importCommand.run([PAGE, '--out', 'traces'], io);
    expect(code).toBe(0);
    expect(out).toHaveLength(3);
    expect(out[0]).toMatch(/^ok t-[a-z0-9]+-[a-z0-9]+\.json row 0 · step 250$/);
    const files = (await readdir(join(dir, 'traces'))).sort();
    expect(files).toHaveLength(3);
    for (const f of files) {
      const trace = TraceSchema.parse(JSON.parse(await readFile(join(dir, 'traces', f), 'utf8')));
      expect(f).toBe(`${trace.id}.json`);
    }
  });

  it.skipIf(!existsSync(DATA))(
    'imports the shared depth-2 sample (skipped without ../shared/data)',
    async () => {
      expect(await importCommand.run([DATA, '--out=imp'], io)).toBe(0);
      expect(out).toHaveLength(12);
      expect(out.every((l) => l.startsWith('ok '))).toBe(true);
      expect(await readdir(join(dir, 'imp'))).toHaveLength(12);
    },
  );

  it('reports failed items, and exits 1 only when nothing was imported', async () => {
    const good = minimalTrace({ query: 'q' });
    await writeFile(join(dir, 'mixed.json'), JSON.stringify([good, { ...good, id: 'bad id' }, good]));
    expect(await importCommand.run(['mixed.json', '--out', 'o'], io)).toBe(0);
    expect(out[0]).toBe(`ok ${good.id}.json trace 1 · q`);
    expect(out[1]).toMatch(/^error trace 2: .*id/);
    // The same trace twice gets a second file instead of overwriting the first.
    expect(out[2]).toBe(`ok ${good.id}-2.json trace 3 · q`);

    out = [];
    await writeFile(join(dir, 'bad.json'), JSON.stringify([{ ...good, id: 'bad id' }]));
    expect(await importCommand.run(['bad.json', '--out', 'o2'], io)).toBe(1);
    expect(out[0]).toMatch(/^error trace 1: /);
  });

  it('exits 1 with the reason for files it cannot read or recognise', async () => {
    await writeFile(join(dir, 'other.json'), '{"hello": "world"}');
    expect(await importCommand.run(['other.json', '--out', 'o'], io)).toBe(1);
    expect(err.join('\n')).toContain('expected a MAS-Orchestra slides array');
    err = [];
    expect(await importCommand.run(['missing.json', '--out', 'o'], io)).toBe(1);
    expect(err.join('\n')).toContain('cannot read missing.json');
  });

  it('exits 2 on usage errors', async () => {
    expect(await importCommand.run([], io)).toBe(2);
    expect(await importCommand.run(['a.json'], io)).toBe(2);
    expect(await importCommand.run(['a.json', '--out'], io)).toBe(2);
    expect(await importCommand.run(['a.json', 'b.json', '--out', 'o'], io)).toBe(2);
    expect(await importCommand.run(['a.json', '--frobnicate', '--out', 'o'], io)).toBe(2);
    expect(err.join('\n')).toContain('Usage: baton import <file> --out <dir>');
  });

  it('makes safe file names', () => {
    expect(safeFileName('t-abc:def/../x')).toBe('t-abc_def_.._x');
    expect(safeFileName('...')).toBe('trace');
  });
});
