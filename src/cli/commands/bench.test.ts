import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fromJsonl, measureAxes, taskSeed } from '../../masbench/index.ts';
import type { CliIO } from '../command.ts';
import { benchCommand } from './bench.ts';

let dir: string;
let out: string[];
let err: string[];
let io: CliIO;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'baton-bench-'));
  out = [];
  err = [];
  io = { out: (l) => out.push(l), err: (l) => err.push(l), cwd: dir };
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('baton bench generate', () => {
  it('writes one valid task per line and prints a summary', async () => {
    const code = await benchCommand.run(
      ['generate', '--axis', 'depth', '--value', '7', '--n', '3', '--seed', '1', '--out', 'sub/t.jsonl'],
      io,
    );
    expect(code).toBe(0);
    expect(err).toEqual([]);
    const { tasks, problems } = fromJsonl(await readFile(join(dir, 'sub/t.jsonl'), 'utf8'));
    expect(problems).toEqual([]);
    expect(tasks.map((t) => t.seed)).toEqual([0, 1, 2].map((i) => taskSeed(1, i)));
    for (const t of tasks) expect(measureAxes(t).depth).toBe(7);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/^wrote 3 tasks \(depth 7, base seed 1; \d train, \d test\) to .*sub\/t\.jsonl$/);
  });

  it('writes the same file for the same arguments', async () => {
    const args = ['generate', '--axis', 'breadth', '--value', '3', '--n', '2', '--seed', '5', '--out'];
    await benchCommand.run([...args, 'a.jsonl'], io);
    await benchCommand.run([...args, 'b.jsonl'], io);
    expect(await readFile(join(dir, 'a.jsonl'), 'utf8')).toBe(await readFile(join(dir, 'b.jsonl'), 'utf8'));
  });

  it.each([
    [['--axis', 'depth', '--value', '3', '--out', 'x.jsonl'], /missing subcommand "generate"/],
    [['make', '--axis', 'depth'], /unknown subcommand "make"/],
    [['generate', '--value', '3', '--out', 'x.jsonl'], /--axis is required/],
    [
      ['generate', '--axis', 'width', '--value', '3', '--out', 'x.jsonl'],
      /--axis must be one of depth, horizon/,
    ],
    [
      ['generate', '--axis', 'depth', '--value', '13', '--out', 'x.jsonl'],
      /--value must be an integer from 2 to 12, got 13/,
    ],
    [['generate', '--axis', 'depth', '--value', 'two', '--out', 'x.jsonl'], /--value must be an integer/],
    [
      ['generate', '--axis', 'depth', '--value', '3', '--n', '0', '--out', 'x.jsonl'],
      /--n must be an integer from 1/,
    ],
    [['generate', '--axis', 'depth', '--value', '3', '--seed', '-4', '--out', 'x.jsonl'], /seed/],
    [['generate', '--axis', 'depth', '--value', '3'], /--out is required/],
    [
      ['generate', '--axis', 'depth', '--value', '3', '--out', 'x.jsonl', '--colour', 'red'],
      /Unknown option '--colour'/,
    ],
  ])('rejects %j with exit code 2', async (args, message) => {
    expect(await benchCommand.run(args, io)).toBe(2);
    expect(err[0]).toMatch(message);
    expect(err.join('\n')).toContain('Usage: baton bench generate');
    expect(out).toEqual([]);
  });

  it('reports an unwritable output path with exit code 1', async () => {
    // A file where the output's parent directory should be makes the write fail on every platform.
    await writeFile(join(dir, 'blocker'), 'not a directory');
    const code = await benchCommand.run(
      ['generate', '--axis', 'depth', '--value', '3', '--out', 'blocker/x.jsonl'],
      io,
    );
    expect(code).toBe(1);
    expect(err[0]).toMatch(/^baton bench: cannot write/);
  });
});
