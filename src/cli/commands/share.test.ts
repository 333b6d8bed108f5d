import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeTraceLink, LINK_BUDGET_CHARS } from '../../share/index.ts';
import { diagramOnlyTrace, sampleTrace } from '../../../tests/support/sample-traces.ts';
import type { CliIO } from '../command.ts';
import { shareCommand } from './share.ts';

let dir: string;
let out: string[];
let err: string[];
let io: CliIO;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'baton-share-'));
  out = [];
  err = [];
  io = { out: (l) => out.push(l), err: (l) => err.push(l), cwd: dir };
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const trace = sampleTrace({ seed: 11, shape: 'chain' });
const lastLine = (): string => out[out.length - 1] ?? '';

describe('baton share encode', () => {
  it('prints facts, then the link as the last line; the link decodes to the trace', async () => {
    await writeFile(join(dir, 't.json'), JSON.stringify(trace, null, 2));
    expect(await shareCommand.run(['encode', 't.json'], io)).toBe(0);
    expect(err).toEqual([]);
    expect(out.some((l) => l.startsWith(`trace: ${trace.id}`))).toBe(true);
    expect(out.some((l) => /^link: \d+ characters/.test(l))).toBe(true);
    expect(lastLine()).toMatch(/^#t=1\.[A-Za-z0-9_-]+$/);
    const back = decodeTraceLink(lastLine());
    expect(back.ok && back.value).toEqual(trace);
  });

  it('--base prints a full URL and --trim shortens outputs', async () => {
    await writeFile(join(dir, 't.json'), JSON.stringify(trace));
    const code = await shareCommand.run(
      ['encode', 't.json', '--trim', '50', '--base', 'https://baton.example/#x'],
      io,
    );
    expect(code).toBe(0);
    expect(lastLine()).toMatch(/^https:\/\/baton\.example\/#t=1\./);
    expect(out.some((l) => l.startsWith('trimmed: '))).toBe(true);
    const back = decodeTraceLink(lastLine());
    expect(back.ok && back.value.trimmed?.fields).toBeGreaterThan(0);
  });

  it('says when secrets were removed', async () => {
    const withKey = { ...trace, title: 'key sk-abcdefghijklmnopqrstuvwxyz123456' };
    await writeFile(join(dir, 't.json'), JSON.stringify(withKey));
    expect(await shareCommand.run(['encode', 't.json'], io)).toBe(0);
    expect(out).toContain('secrets: removed from the link');
    expect(lastLine()).not.toContain('sk-');
  });

  it('keeps an over-budget trace whole and says so; --fit trims it to the budget', async () => {
    const big = sampleTrace({ seed: 12, shape: 'wide', steps: 400 });
    await writeFile(join(dir, 'big.json'), JSON.stringify(big));
    expect(await shareCommand.run(['encode', 'big.json'], io)).toBe(0);
    expect(lastLine().length).toBeGreaterThan(LINK_BUDGET_CHARS);
    expect(out.some((l) => l.includes('OVER BUDGET'))).toBe(true);
    const whole = decodeTraceLink(lastLine());
    expect(whole.ok && whole.value).toEqual(big);
    out = [];
    expect(await shareCommand.run(['encode', 'big.json', '--fit'], io)).toBe(0);
    expect(lastLine().length).toBeLessThanOrEqual(LINK_BUDGET_CHARS);
    expect(out.some((l) => l.startsWith('trimmed: '))).toBe(true);
  });

  it('says what a fitted link lacks when the design exists only as a diagram', async () => {
    // PNG data hardly compresses: a 120,000-character diagram is far over the budget in any link.
    const slide = diagramOnlyTrace({ diagramChars: 120_000 });
    await writeFile(join(dir, 'slide.json'), JSON.stringify(slide));
    expect(await shareCommand.run(['encode', 'slide.json'], io)).toBe(0);
    expect(out.find((l) => l.includes('OVER BUDGET'))).toContain(
      'Its design exists only as the diagram, which --fit or --trim leave out; share slide.json itself to keep it',
    );
    out = [];
    expect(await shareCommand.run(['encode', 'slide.json', '--fit'], io)).toBe(0);
    expect(out).toContain(
      `lacks: the diagram (${slide.diagram?.length} characters), the only record of this trace's design — the link opens with no design; share slide.json itself to keep it`,
    );
  });

  it('reports unreadable and invalid files on stderr with exit 1', async () => {
    expect(await shareCommand.run(['encode', 'missing.json'], io)).toBe(1);
    expect(err.join('\n')).toMatch(/cannot read/);
    await writeFile(join(dir, 'bad.json'), '{"format":"baton.trace/1"}');
    err = [];
    expect(await shareCommand.run(['encode', 'bad.json'], io)).toBe(1);
    expect(err.join('\n')).toMatch(/E_TRACE_SCHEMA/);
    expect(out).toEqual([]);
  });
});

describe('baton share decode', () => {
  it('prints the trace as pretty JSON, from a link or a file', async () => {
    await writeFile(join(dir, 't.json'), JSON.stringify(trace));
    await shareCommand.run(['encode', 't.json', '--base', 'https://baton.example/'], io);
    const url = lastLine();
    out = [];
    expect(await shareCommand.run(['decode', url], io)).toBe(0);
    expect(JSON.parse(out.join('\n'))).toEqual(trace);
    expect(out.join('\n')).toContain('\n  "format": "baton.trace/1"');
    await writeFile(join(dir, 'link.txt'), url);
    out = [];
    expect(await shareCommand.run(['decode', '@link.txt'], io)).toBe(0);
    expect(JSON.parse(out.join('\n'))).toEqual(trace);
  });

  it('reports a broken link on stderr with exit 1', async () => {
    expect(await shareCommand.run(['decode', '#t=1.AAAA'], io)).toBe(1);
    expect(err[0]).toMatch(/^baton share: E_LINK: /);
    expect(out).toEqual([]);
    err = [];
    expect(await shareCommand.run(['decode', '#t=9.AAAA'], io)).toBe(1);
    expect(err[0]).toMatch(/newer/);
  });
});

describe('usage errors exit 2', () => {
  it.each([
    [[]],
    [['upload']],
    [['encode']],
    [['decode']],
    [['encode', 't.json', '--trim', 'many']],
    [['encode', 't.json', '--base', 'ftp://x']],
    [['encode', 't.json', '--nope']],
    [['decode', 'x', '--trim', '5']],
    [['decode', 'x', 'y']],
  ])('%j', async (args) => {
    expect(await shareCommand.run(args, io)).toBe(2);
    expect(err[0]).toMatch(/^baton share: /);
    expect(err.join('\n')).toContain('Usage:');
  });

  it('--help prints usage with exit 0', async () => {
    expect(await shareCommand.run(['--help'], io)).toBe(0);
    expect(out.join('\n')).toContain('baton share encode');
  });
});
