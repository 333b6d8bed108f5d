/**
 * `baton orchestrate` end to end with a test model: a folder the project's writers make from random
 * weights (tests/server/model-fixture.ts), read from disk and through a local server in the hub's
 * URL layout. Constrained decoding gives a valid design even from random weights, which then runs on
 * the simulator; unconstrained, the same model writes no design and the error says so, with the
 * raw output kept in the trace.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../../../tests/server/model-server.ts';
import { writeModelFolder } from '../../../tests/server/model-fixture.ts';
import { TraceSchema } from '../../core/trace.ts';
import { generateTask } from '../../masbench/index.ts';
import type { CliIO } from '../command.ts';
import { NOT_RUN_TAG, orchestrateCommand } from './orchestrate.ts';

let model = '';
let server: ModelServer;
let dir: string;
let out: string[];
let err: string[];
let io: CliIO;

beforeAll(async () => {
  model = await writeModelFolder({ dtypes: ['q8'] });
  server = await startModelServer({ 'test/tiny': model });
});
afterAll(async () => {
  await server?.close();
  await rm(model, { recursive: true, force: true });
});
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'baton-orchestrate-'));
  out = [];
  err = [];
  io = {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    cwd: dir,
    now: () => new Date('2026-11-24T12:00:00Z'),
  };
  return () => rm(dir, { recursive: true, force: true });
});

const readTrace = async (name: string) =>
  TraceSchema.parse(JSON.parse(await readFile(join(dir, name), 'utf8')));

describe('baton orchestrate', () => {
  it('writes a constrained design for a MASBench task, runs it on the simulator and records the model', async () => {
    await writeFile(
      join(dir, 'task.json'),
      JSON.stringify(generateTask({ axis: 'depth', value: 2, seed: 3 })),
    );
    const code = await orchestrateCommand.run(
      ['--task', 'task.json', '--model', model, '--dom', 'low', '--max-new-tokens', '900', '--out', 't.json'],
      io,
    );
    expect(err).toEqual([]);
    expect(code).toBe(0);
    const trace = await readTrace('t.json');
    expect(trace.design.agents.length).toBeGreaterThan(0);
    expect(trace.designer).toMatchObject({
      kind: 'orchestrator',
      dtype: 'q8',
      device: 'cpu',
      constrained: true,
      valid: true,
    });
    if (trace.designer.kind !== 'orchestrator') throw new Error('designer');
    expect(trace.designer.rawOutput).toContain('<agent>');
    expect(trace.designer.timings?.tokens).toBeGreaterThan(0);
    expect(trace.designer.constraint?.['steps']).toBeGreaterThan(0);
    expect(trace.execution.backend.kind).toBe('simulated');
    expect(trace.execution.status).toBe('completed');
    expect(trace.task.source.kind).toBe('masbench');
    expect(out.some((l) => /^design: \d+ agents?, \d+ edges? \(valid/.test(l))).toBe(true);
    expect(out.some((l) => l.includes('onnx/model_quantized.onnx'))).toBe(true);
  });

  it('unconstrained, random weights write no design: exit 1, a clear error, the raw output kept in the trace', async () => {
    const code = await orchestrateCommand.run(
      [
        '--task',
        'What is 2 + 3?',
        '--model',
        model,
        '--unconstrained',
        '--max-new-tokens',
        '60',
        '--out',
        'u.json',
      ],
      io,
    );
    expect(code).toBe(1);
    expect(err[0]).toMatch(/^baton orchestrate: The model wrote no valid design: /);
    expect(err.join('\n')).toMatch(/raw output: /);
    const trace = await readTrace('u.json');
    expect(trace.tags).toContain('invalid-design');
    expect(trace.design.agents).toEqual([]);
    expect(trace.execution.status).toBe('not-run');
    if (trace.designer.kind !== 'orchestrator') throw new Error('designer');
    expect(trace.designer.valid).toBe(false);
    expect(trace.designer.constrained).toBe(false);
    expect(trace.designer.rawOutput?.length).toBeGreaterThan(0);
    expect(trace.designer.parseErrors.length).toBeGreaterThan(0);
  });

  it('on a free-text question says the design was not run and why, on stderr and in the trace', async () => {
    const code = await orchestrateCommand.run(
      [
        '--task',
        'What is 2 + 3?',
        '--dom',
        'low',
        '--model',
        model,
        '--max-new-tokens',
        '900',
        '--out',
        'f.json',
      ],
      io,
    );
    expect(code).toBe(0);
    expect(err).toHaveLength(1);
    expect(err[0]).toMatch(/^baton orchestrate: the design was not run, so the trace has no final answer/);
    expect(err[0]).toContain('a free-text question has no simulator answer');
    expect(err[0]).toContain('--execute remote');
    expect(out.some((l) => l.startsWith('final answer:'))).toBe(false);
    const trace = await readTrace('f.json');
    expect(trace.design.agents.length).toBeGreaterThan(0);
    expect(trace.execution.status).toBe('not-run');
    expect(trace.result.finalAnswer).toBeNull();
    expect(trace.tags).toContain(`${NOT_RUN_TAG}: a free-text question has no simulator answer`);
  });

  it('with --execute none on a MASBench task says only that it was not run', async () => {
    await writeFile(
      join(dir, 'task.json'),
      JSON.stringify(generateTask({ axis: 'depth', value: 2, seed: 3 })),
    );
    const code = await orchestrateCommand.run(
      [
        '--task',
        'task.json',
        '--execute',
        'none',
        '--model',
        model,
        '--dom',
        'low',
        '--max-new-tokens',
        '900',
        '--out',
        'n.json',
      ],
      io,
    );
    expect(code).toBe(0);
    expect(err).toEqual([
      'baton orchestrate: the design was not run (--execute none), so the trace has no final answer.',
    ]);
    const trace = await readTrace('n.json');
    expect(trace.tags).toContain(`${NOT_RUN_TAG} (--execute none)`);
    expect(trace.execution.status).toBe('not-run');
  });

  it('loads a model from a hub-layout URL into the cache folder it is given', async () => {
    const cache = join(dir, 'cache');
    const code = await orchestrateCommand.run(
      [
        '--task',
        'What is 2 + 3?',
        '--dom',
        'low',
        '--model',
        `${server.url}test/tiny/resolve/main/`,
        '--cache-dir',
        cache,
        '--max-new-tokens',
        '900',
        '--out',
        'h.json',
      ],
      io,
    );
    expect(err).toEqual([expect.stringMatching(/^baton orchestrate: the design was not run/)]);
    expect(code).toBe(0);
    expect(server.requests.some((r) => r.path === '/test/tiny/resolve/main/onnx/model_quantized.onnx')).toBe(
      true,
    );
    const trace = await readTrace('h.json');
    expect(trace.designer).toMatchObject({ kind: 'orchestrator', valid: true });
    expect(trace.execution.status).toBe('not-run');
  });

  it('says what is wrong with a model that is not there, and with bad flags', async () => {
    expect(await orchestrateCommand.run(['--task', 'q', '--model', 'nope nope', '--out', 'x.json'], io)).toBe(
      1,
    );
    expect(err.at(-1)).toMatch(
      /E_MODEL_SPEC: This is not a model Baton can load: "nope nope" is not a model in the manifest: baton-orchestrator-tiny/,
    );
    expect(await orchestrateCommand.run(['--task', 'q', '--out', 'x.json', '--dom', 'mid'], io)).toBe(2);
    expect(
      await orchestrateCommand.run(['--task', 'q', '--out', 'x.json', '--execute', 'simulated'], io),
    ).toBe(2);
    expect(err.at(-1)).toMatch(/needs a MASBench task file/);
    expect(
      await orchestrateCommand.run(['--task', 'q', '--out', 'x.json', '--base-url', 'http://x'], io),
    ).toBe(2);
    expect(await orchestrateCommand.run(['--task', 'q', '--out', 'x.json', '--temperature', '3'], io)).toBe(
      2,
    );
  });
});
