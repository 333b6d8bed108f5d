import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetReadObjects } from 'hyparquet';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VERL_COLUMNS, orchestratorSystemPrompt } from '../../interop/index.ts';
import { generateTasks } from '../../masbench/index.ts';
import type { CliIO } from '../command.ts';
import { benchCommand } from './bench.ts';

let dir: string;
let out: string[];
let err: string[];
let io: CliIO;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'baton-verl-'));
  out = [];
  err = [];
  io = { out: (l) => out.push(l), err: (l) => err.push(l), cwd: dir };
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('baton bench generate --format verl', () => {
  it('writes a Parquet verl dataset that reads back with the tasks it was asked for', async () => {
    const code = await benchCommand.run(
      [
        'generate',
        '--axis',
        'robustness',
        '--value',
        '3',
        '--n',
        '5',
        '--seed',
        '9',
        '--format',
        'verl',
        '--dom',
        'low',
        '--out',
        'tasks.parquet',
      ],
      io,
    );
    expect(err).toEqual([]);
    expect(code).toBe(0);
    expect(out[0]).toMatch(/^wrote 5 tasks as a verl dataset \(robustness 3, base seed 9;/);
    const buf = await readFile(join(dir, 'tasks.parquet'));
    const file = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer;
    const rows = (await parquetReadObjects({ file })) as Record<string, unknown>[];
    expect(rows).toHaveLength(5);
    expect(Object.keys(rows[0]!)).toEqual([...VERL_COLUMNS]);
    const tasks = generateTasks({ axis: 'robustness', value: 3, baseSeed: 9, count: 5 });
    expect(rows.map((r) => (r.reward_model as { ground_truth: string }).ground_truth)).toEqual(
      tasks.map((t) => t.answers.join(', ')),
    );
    expect((rows[0]!.prompt as { content: string }[])[0]!.content).toBe(orchestratorSystemPrompt('low'));
  });

  it('refuses an unknown format or --dom without verl', async () => {
    const base = ['generate', '--axis', 'depth', '--value', '3', '--out', 'x'];
    expect(await benchCommand.run([...base, '--format', 'csv'], io)).toBe(2);
    expect(await benchCommand.run([...base, '--dom', 'low'], io)).toBe(2);
  });
});
