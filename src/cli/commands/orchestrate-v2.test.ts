/**
 * `baton orchestrate` with the shipped v2 models (models/baton-orchestrator-tiny-v2 and its 1.05 M
 * version models/baton-orchestrator-v2-1m, format `tiny2`):
 * it loads from its folder and by its manifest id, reads the whole query, writes its thinking as
 * free text and a valid design in both DoM modes, and records the branch it took. (How good its
 * designs are is measured by `npm run bench:orchestrator-quality`, not here.)
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { TraceSchema } from '../../core/trace.ts';
import { generateTask } from '../../masbench/index.ts';
import type { CliIO } from '../command.ts';
import { orchestrateCommand } from './orchestrate.ts';

const V2 = resolve('models/baton-orchestrator-tiny-v2');
let dir: string;
let out: string[];
let err: string[];
let io: CliIO;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'baton-orchestrate-v2-'));
  out = [];
  err = [];
  io = {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    cwd: dir,
    now: () => new Date('2026-11-27T02:00:00Z'),
  };
  return () => rm(dir, { recursive: true, force: true });
});

describe('baton orchestrate with the v2 models', () => {
  for (const [dom, spec] of [
    ['high', V2],
    ['low', 'baton-orchestrator-tiny-v2'],
    // The same format on the 1.05 M-parameter model.
    ['high', 'baton-orchestrator-v2-1m'],
    ['low', 'baton-orchestrator-v2-1m'],
  ] as const) {
    it(`DoM ${dom} (--model ${spec === V2 ? 'the v2 folder' : spec}): a valid design, free-text thinking, the branch recorded`, async () => {
      // A value-12 parallel task: its query is far longer than v1's 64-token window.
      await writeFile(
        join(dir, 'task.json'),
        JSON.stringify(generateTask({ axis: 'parallel', value: 12, seed: 5 })),
      );
      const code = await orchestrateCommand.run(
        ['--task', 'task.json', '--model', spec, '--dom', dom, '--dtype', 'fp32', '--out', 't.json'],
        io,
      );
      expect(err).toEqual([]);
      expect(code).toBe(0);
      const trace = TraceSchema.parse(JSON.parse(await readFile(join(dir, 't.json'), 'utf8')));
      if (trace.designer.kind !== 'orchestrator') throw new Error('designer');
      expect(trace.designer).toMatchObject({ constrained: true, valid: true });
      expect(trace.designer.branch).toBe(
        dom === 'high' ? 'mas' : trace.design.agents.length ? 'delegate' : 'direct',
      );
      // The prompt holds the query's opening rule and its final question: nothing was cut.
      expect(trace.designer.prompt).toContain('All arithmetic is modulo');
      expect(trace.designer.prompt).toContain('Give the 12 answers');
      // The thinking is v2's free text (the plan in words), not v1's list of role names.
      const thinking = /<thinking>([^<]*)<\/thinking>/.exec(trace.designer.rawOutput ?? '')?.[1] ?? '';
      expect(thinking).not.toBe(trace.design.agents.map((a) => a.role).join(', '));
      expect(thinking.length).toBeGreaterThan(0);
    }, 120_000);
  }
});
