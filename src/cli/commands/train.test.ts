import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TraceSchema } from '../../core/trace.ts';
import { parseCheckpoint } from '../../policy/index.ts';
import type { CliIO } from '../command.ts';
import { constructCommand } from './construct.ts';
import { evalPolicyCommand } from './eval-policy.ts';
import { trainCommand } from './train.ts';

let dir: string;
let out: string[];
let err: string[];
let io: CliIO;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'baton-train-'));
  out = [];
  err = [];
  io = { out: (l) => out.push(l), err: (l) => err.push(l), cwd: dir };
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('baton train → construct → eval-policy', () => {
  it('writes a checkpoint with its provenance that construct and eval-policy read', async () => {
    const code = await trainCommand.run(
      [
        '--preset',
        'depth',
        '--from',
        'prior',
        '--iterations',
        '1',
        '--seed',
        '3',
        '--out',
        'ck.json',
        '--log',
        'm.jsonl',
      ],
      io,
    );
    expect(code).toBe(0);
    const cp = parseCheckpoint(await readFile(join(dir, 'ck.json'), 'utf8'));
    expect(cp.ok).toBe(true);
    if (!cp.ok) return;
    expect(JSON.stringify(cp.value.meta)).toContain('"iterations":1');
    const log = (await readFile(join(dir, 'm.jsonl'), 'utf8')).trim().split('\n');
    expect(log.length).toBeGreaterThan(0);
    for (const line of log) expect(Number.isFinite((JSON.parse(line) as { loss: number }).loss)).toBe(true);

    const built = await constructCommand.run(
      [
        '--policy',
        'ck.json',
        '--task',
        'How many legs do 3 spiders have?',
        '--seed',
        '1',
        '--backend',
        'cpu',
        '--out',
        't.json',
      ],
      io,
    );
    expect(built).toBe(0);
    const trace = TraceSchema.parse(JSON.parse(await readFile(join(dir, 't.json'), 'utf8')));
    expect(trace.designer).toMatchObject({ kind: 'policy', checkpoint: cp.value.name });

    out = [];
    const scored = await evalPolicyCommand.run(
      ['--policy', 'ck.json', '--preset', 'depth', '--n', '3', '--seed', '1'],
      io,
    );
    expect(scored).toBe(0);
    expect(out.join('\n')).toMatch(/accuracy/i);
  }, 120_000);

  it('reads settings from --config, with the flags winning, and names a bad setting or file', async () => {
    await writeFile(
      join(dir, 's.json'),
      JSON.stringify({ preset: 'parallel', lambda: 0.3, tasksPerIteration: 1, groupSize: 2, epochs: 1 }),
    );
    const code = await trainCommand.run(
      ['--config', 's.json', '--preset', 'depth', '--iterations', '1', '--out', 'ck.json'],
      io,
    );
    expect(code).toBe(0);
    const written = JSON.parse(await readFile(join(dir, 'ck.json'), 'utf8')) as { meta: { config: string } };
    expect(JSON.parse(written.meta.config)).toMatchObject({ preset: 'depth', lambda: 0.3, groupSize: 2 });

    await writeFile(join(dir, 'bad.json'), JSON.stringify({ lambda: 2, advantageNorm: 'median' }));
    expect(await trainCommand.run(['--config', 'bad.json', '--out', 'x.json'], io)).toBe(2);
    expect(err.join('\n')).toMatch(/lambda/);
    expect(err.join('\n')).toMatch(/advantageNorm/);
    await writeFile(join(dir, 'list.json'), '[1, 2]');
    expect(await trainCommand.run(['--config', 'list.json', '--out', 'x.json'], io)).toBe(2);
    expect(err.join('\n')).toMatch(/JSON object/);
    await writeFile(join(dir, 'cut.json'), '{"lambda": 0.');
    expect(await trainCommand.run(['--config', 'cut.json', '--out', 'x.json'], io)).toBe(2);
    expect(err.join('\n')).toMatch(/not JSON/);
  }, 120_000);

  it('--sim-threads spreads the simulated sub-agents over worker threads with the same numbers', async () => {
    await writeFile(join(dir, 's.json'), JSON.stringify({ tasksPerIteration: 3, groupSize: 2, epochs: 1 }));
    const common = ['--config', 's.json', '--iterations', '2', '--seed', '4'];
    expect(await trainCommand.run([...common, '--out', 'one.json', '--log', 'one.jsonl'], io)).toBe(0);
    expect(err.join('\n')).not.toMatch(/simulated sub-agents on/);
    expect(
      await trainCommand.run(
        [...common, '--sim-threads', '3', '--out', 'three.json', '--log', 'three.jsonl'],
        io,
      ),
    ).toBe(0);
    expect(err.join('\n')).toMatch(/simulated sub-agents on 3 threads/);
    expect(err.join('\n')).not.toMatch(/stopped/);
    expect(await readFile(join(dir, 'three.jsonl'), 'utf8')).toBe(
      await readFile(join(dir, 'one.jsonl'), 'utf8'),
    );
    const params = async (f: string): Promise<unknown> =>
      (JSON.parse(await readFile(join(dir, f), 'utf8')) as { params: unknown }).params;
    expect(Object.keys((await params('one.json')) as object).length).toBeGreaterThan(0);
    expect(await params('three.json')).toEqual(await params('one.json'));
    for (const bad of ['9', '0', 'many']) {
      expect(await trainCommand.run(['--sim-threads', bad, '--out', 'x.json'], io)).toBe(2);
      expect(err.join('\n')).toMatch(/--sim-threads must be 1 to 8 or auto/);
    }
  }, 120_000);

  it('--rollout-threads samples blocks of each iteration on worker threads with the same numbers', async () => {
    await writeFile(join(dir, 'r.json'), JSON.stringify({ tasksPerIteration: 3, groupSize: 2, epochs: 1 }));
    const common = ['--config', 'r.json', '--iterations', '2', '--seed', '6'];
    expect(await trainCommand.run([...common, '--out', 'r1.json', '--log', 'r1.jsonl'], io)).toBe(0);
    expect(err.join('\n')).not.toMatch(/rollouts on/);
    expect(
      await trainCommand.run(
        [...common, '--rollout-threads', '3', '--out', 'r3.json', '--log', 'r3.jsonl'],
        io,
      ),
    ).toBe(0);
    expect(err.join('\n')).toMatch(/rollouts on 3 threads/);
    expect(err.join('\n')).not.toMatch(/stopped/);
    const log = await readFile(join(dir, 'r1.jsonl'), 'utf8');
    expect(log.split('\n').length).toBeGreaterThan(2);
    expect(await readFile(join(dir, 'r3.jsonl'), 'utf8')).toBe(log);
    const params = async (f: string): Promise<unknown> =>
      (JSON.parse(await readFile(join(dir, f), 'utf8')) as { params: unknown }).params;
    expect(await params('r3.json')).toEqual(await params('r1.json'));
    for (const bad of ['9', '0', 'many']) {
      expect(await trainCommand.run(['--rollout-threads', bad, '--out', 'x.json'], io)).toBe(2);
      expect(err.join('\n')).toMatch(/--rollout-threads must be 1 to 8 or auto/);
    }
    expect(
      await trainCommand.run(['--rollout-threads', '2', '--sim-threads', '2', '--out', 'x.json'], io),
    ).toBe(2);
    expect(err.join('\n')).toMatch(/one or the other/);
  }, 120_000);

  it('refuses an unknown algorithm as a usage error', async () => {
    expect(await trainCommand.run(['--algo', 'sgd', '--out', 'ck.json'], io)).toBe(2);
    expect(err.join('\n')).toMatch(/algo/);
  });
});
