import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generateTask } from '../../bench/masbench/generate.ts';
import { TraceSchema } from '../../core/trace.ts';
import { checkConstruction } from '../../policy/check.ts';
import type { CliIO } from '../command.ts';
import { constructCommand } from './construct.ts';

let dir: string;
let out: string[];
let err: string[];
let io: CliIO;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'baton-construct-'));
  out = [];
  err = [];
  io = { out: (l) => out.push(l), err: (l) => err.push(l), cwd: dir };
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const readTrace = async (name: string) =>
  TraceSchema.parse(JSON.parse(await readFile(join(dir, name), 'utf8')));

describe('baton construct', () => {
  it('builds a MAS for a text task, prints every step and writes a consistent trace', async () => {
    const code = await constructCommand.run(
      [
        '--policy',
        'prior',
        '--task',
        'How many legs do 3 spiders and 2 ants have?',
        '--seed',
        '1',
        '--backend',
        'cpu',
        '--out',
        't.json',
      ],
      io,
    );
    expect(err).toEqual([]);
    expect(code).toBe(0);
    const trace = await readTrace('t.json');
    expect(checkConstruction(trace)).toEqual([]);
    expect(trace.designer).toMatchObject({ kind: 'policy', checkpoint: 'prior', backend: 'cpu', seed: 1 });
    expect(out.filter((l) => /^step +\d+ /.test(l))).toHaveLength(trace.construction.length);
    expect(out.some((l) => l.includes('roles: '))).toBe(true);
    expect(out.at(-1)).toMatch(/^wrote .*t\.json$/);
  });

  it('runs a MASBench task file on the simulated sub-agents with --execute simulated', async () => {
    await writeFile(
      join(dir, 'task.json'),
      JSON.stringify(generateTask({ axis: 'depth', value: 3, seed: 1 })),
    );
    const code = await constructCommand.run(
      [
        '--policy',
        'prior',
        '--task',
        'task.json',
        '--seed',
        '1',
        '--backend',
        'cpu',
        '--execute',
        'simulated',
        '--greedy',
        '--out',
        't.json',
      ],
      io,
    );
    expect(err).toEqual([]);
    expect(code).toBe(0);
    const trace = await readTrace('t.json');
    expect(
      trace.construction.every((s) => s.intermediateCorrect !== undefined && s.actionReward !== undefined),
    ).toBe(true);
    expect(trace.execution).toMatchObject({ backend: { kind: 'simulated' }, status: 'completed' });
    expect(trace.result.correct).not.toBeNull();
    expect(trace.task.source).toMatchObject({ kind: 'masbench', axis: 'depth', value: 3 });
  });

  it('saves a checkpoint and constructs the same MAS from the file', async () => {
    const args = ['--task', 'Name three prime numbers.', '--seed', '4', '--backend', 'cpu'];
    expect(
      await constructCommand.run(
        ['--policy', 'random:3', ...args, '--out', 'a.json', '--save-policy', 'p.json'],
        io,
      ),
    ).toBe(0);
    expect(await constructCommand.run(['--policy', 'p.json', ...args, '--out', 'b.json'], io)).toBe(0);
    const [a, b] = [await readTrace('a.json'), await readTrace('b.json')];
    expect(b.construction).toEqual(a.construction);
    expect(b.designer).toMatchObject({ checkpoint: 'random:3' });
  });

  it.each([
    [['--task', 'x', '--out', 'o.json'], /--policy is required/],
    [['--policy', 'prior', '--out', 'o.json'], /--task is required/],
    [['--policy', 'prior', '--task', 'x'], /--out is required/],
    [['--policy', 'prior', '--task', 'x', '--out', 'o.json', '--seed', '1.5'], /--seed must be an integer/],
    [['--policy', 'prior', '--task', 'x', '--out', 'o.json', '--backend', 'tpu'], /--backend must be/],
    [['--policy', 'prior', '--task', 'x', '--out', 'o.json', '--execute', 'remote'], /only "simulated"/],
    [['--policy', 'prior', '--task', 'x', '--out', 'o.json', '--temperature', '0'], /--temperature must be/],
    [['--policy', 'prior', '--task', 'x', '--out', 'o.json', '--max-steps', '1'], /--max-steps must be/],
  ])('rejects %j with a usage error', async (args, message) => {
    expect(await constructCommand.run(args, io)).toBe(2);
    expect(err[0]).toMatch(message);
  });

  it('reports unreadable policies and tasks, and --execute without a MASBench task', async () => {
    await writeFile(join(dir, 'bad.json'), '{"format":"baton.policy/1"}');
    expect(await constructCommand.run(['--policy', 'bad.json', '--task', 'x', '--out', 'o.json'], io)).toBe(
      2,
    );
    expect(err.at(-1)).toMatch(/not a valid policy checkpoint/);
    expect(await constructCommand.run(['--policy', 'nope', '--task', 'x', '--out', 'o.json'], io)).toBe(2);
    expect(err.at(-1)).toMatch(/is not prior, random/);
    expect(
      await constructCommand.run(
        ['--policy', 'prior', '--task', 'x', '--execute', 'simulated', '--out', 'o.json'],
        io,
      ),
    ).toBe(2);
    expect(err.at(-1)).toMatch(/needs a MASBench task file/);
  });
});
