import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliIO } from '../command.ts';
import { ablateCommand } from './ablate.ts';
import { evalPolicyCommand } from './eval-policy.ts';

let dir: string;
let out: string[];
let err: string[];
let io: CliIO;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'baton-ablate-'));
  out = [];
  err = [];
  io = { out: (l) => out.push(l), err: (l) => err.push(l), cwd: dir };
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('baton ablate', () => {
  it('runs the chosen variants over the seeds and writes the study', async () => {
    const code = await ablateCommand.run(
      [
        '--preset',
        'depth',
        '--variants',
        'grpo',
        '--seeds',
        '2',
        '--iterations',
        '1',
        '--tasks',
        '2',
        '--group',
        '2',
        '--eval-n',
        '5',
        '--out',
        'a.json',
      ],
      io,
    );
    expect(err.join('\n')).not.toContain('baton ablate:');
    expect(code).toBe(0);
    const study = JSON.parse(await readFile(join(dir, 'a.json'), 'utf8')) as {
      format: string;
      runs: { variant: string; seed: number }[];
      variants: { variant: string; seeds: number }[];
    };
    expect(study.format).toBe('baton.ablation/1');
    expect(study.runs.map((r) => [r.variant, r.seed])).toEqual([
      ['grpo', 0],
      ['grpo', 1],
    ]);
    expect(out.join('\n')).toMatch(/\| GRPO \| 2 \|/);
    expect(err.filter((l) => l.includes('evaluated on held-out tasks'))).toHaveLength(2);
  });

  it('rejects unknown variants', async () => {
    expect(await ablateCommand.run(['--variants', 'hrpo,magic', '--out', 'a.json'], io)).toBe(2);
    expect(err.join('\n')).toMatch(/unknown: magic/);
  });
});

describe('baton eval-policy --structure', () => {
  it('prints before → after per axis and writes the comparison', async () => {
    const code = await evalPolicyCommand.run(
      [
        '--policy',
        'prior',
        '--against',
        'random:1',
        '--structure',
        '--preset',
        'mixed',
        '--n',
        '12',
        '--out',
        's.json',
      ],
      io,
    );
    expect(code).toBe(0);
    const md = out.join('\n');
    expect(md).toMatch(/^\| axis \| n \| accuracy/);
    expect(md).toContain('→');
    const json = JSON.parse(await readFile(join(dir, 's.json'), 'utf8')) as {
      format: string;
      comparison: { before: string; after: string };
    };
    expect(json.format).toBe('baton.structure/1');
    expect(json.comparison).toMatchObject({ before: 'random:1', after: 'prior' });
    expect(await evalPolicyCommand.run(['--policy', 'prior', '--against', 'random'], io)).toBe(2);
  });

  it('reads prior@T as the prior at another temperature: the same greedy designs, other samples', async () => {
    const run = async (policy: string, sampled: boolean) => {
      out.length = 0;
      const args = ['--policy', policy, '--n', '8', '--seed', '3', ...(sampled ? ['--sampled'] : [])];
      expect(await evalPolicyCommand.run(args, io)).toBe(0);
      return JSON.parse(out.join('\n')) as { policy: string; tokens: number; agents: number };
    };
    const greedy = await run('prior', false);
    const sharp = await run('prior@1', false);
    expect(sharp.policy).toBe('prior@1');
    expect([sharp.tokens, sharp.agents]).toEqual([greedy.tokens, greedy.agents]);
    expect((await run('prior@1', true)).tokens).not.toBe((await run('prior', true)).tokens);
    expect(await evalPolicyCommand.run(['--policy', 'prior@0'], io)).toBe(2);
    expect(err.join('\n')).toMatch(/temperature must be above 0/);
  });
});
