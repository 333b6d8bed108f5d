import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { foreignCrewExport } from '../../../tests/support/otlp-samples.ts';
import { TraceSchema } from '../../core/trace.ts';
import type { CliIO } from '../command.ts';
import { importCommand } from './import.ts';

let dir: string;
let out: string[];
let err: string[];
let io: CliIO;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'baton-import-otlp-'));
  out = [];
  err = [];
  io = { out: (l) => out.push(l), err: (l) => err.push(l), cwd: dir };
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('baton import of an OTLP/JSON export', () => {
  it('writes one trace per OTLP trace and prints what was kept as notes', async () => {
    await writeFile(join(dir, 'crew.otlp.json'), JSON.stringify(foreignCrewExport()));
    const code = await importCommand.run(['crew.otlp.json', '--out', 'traces'], io);
    expect(code).toBe(0);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/^ok .+\.json OTLP trace 5b8efff798038103d269b633813fc60c · crew$/);
    expect(err.join('\n')).toMatch(/warning .*kept as notes/);
    const [file] = await readdir(join(dir, 'traces'));
    const trace = TraceSchema.parse(JSON.parse(await readFile(join(dir, 'traces', file!), 'utf8')));
    expect(trace.design.agents.map((a) => a.id)).toEqual(['researcher', 'writer']);
  });
});
