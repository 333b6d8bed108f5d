import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIO } from '../command.ts';
import { importCommand } from './import.ts';
import { shareCommand } from './share.ts';

/**
 * End to end through the CLI, as a user would: every MAS-Orchestra case slide imports into a trace
 * file, and `share encode` then `share decode` of that file gives back the identical trace.
 */
const CASES = resolve(process.cwd(), '../shared/data/mas-orchestra-cases');
const files = existsSync(CASES) ? readdirSync(CASES).filter((f) => f.endsWith('.json')) : [];

function capture(cwd: string): { io: CliIO; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (l) => out.push(l), err: (l) => err.push(l), cwd }, out, err };
}

describe.skipIf(files.length === 0)('import → share encode → share decode (needs ../shared/data)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'baton-import-share-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each(files)('%s: every slide round-trips identically', async (file) => {
    const outDir = join(dir, file);
    const imp = capture(dir);
    expect(await importCommand.run([join(CASES, file), '--out', outDir], imp.io)).toBe(0);
    expect(imp.out.every((l) => l.startsWith('ok '))).toBe(true);
    const traces = readdirSync(outDir).filter((f) => f.endsWith('.json'));
    const slides = JSON.parse(await readFile(join(CASES, file), 'utf8')) as unknown[];
    expect(traces).toHaveLength(slides.length);
    for (const t of traces) {
      const enc = capture(outDir);
      expect(await shareCommand.run(['encode', t], enc.io)).toBe(0);
      const link = enc.out[enc.out.length - 1] as string;
      const dec = capture(outDir);
      expect(await shareCommand.run(['decode', link], dec.io)).toBe(0);
      const original: unknown = JSON.parse(await readFile(join(outDir, t), 'utf8'));
      expect(JSON.parse(dec.out.join('\n')), t).toEqual(original);
    }
  });
});
