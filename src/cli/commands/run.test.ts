import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../../../tests/server/openai-server.ts';
import { generateTask, toJsonl } from '../../masbench/index.ts';
import { parseTraceJson } from '../../core/parse-trace.ts';
import { runCommand } from './run.ts';

const DESIGN = JSON.stringify({
  dom: 'high',
  agents: [
    { id: 'A', type: 'SCAgent', description: 'solve', input: '' },
    { id: 'B', type: 'ReflexionAgent', description: 'check', input: 'Check ${A}.' },
  ],
  edges: [{ from: 'A', to: 'B' }],
});

let dir: string;
let server: OpenAIServer;
const KEY = 'sk-cli-test-planted-987654321';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'baton-run-'));
  await writeFile(join(dir, 'design.json'), DESIGN);
  const tasks = [1, 2].map((seed) => generateTask({ axis: 'depth', value: 3, seed }));
  await writeFile(join(dir, 'tasks.jsonl'), toJsonl(tasks));
  server = await startOpenAIServer({ apiKey: KEY, echoKeyInErrors: true });
});
afterAll(() => server.close());

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCommand.run(args, { out: (l) => out.push(l), err: (l) => err.push(l), cwd: dir });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('baton run', () => {
  it('runs a design on a MASBench task with the simulator and writes a valid trace', async () => {
    const r = await cli([
      '--design',
      'design.json',
      '--task',
      'tasks.jsonl:2',
      '--backend',
      'simulated',
      '--out',
      'sim.json',
    ]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/start A \(SCAgent\)/);
    expect(r.out).toMatch(/end {3}B:/);
    expect(r.out).toMatch(/critical path/);
    const parsed = parseTraceJson(await readFile(join(dir, 'sim.json'), 'utf8'));
    expect(parsed.ok).toBe(true);
    if (parsed.ok) {
      expect(parsed.value.execution.backend.kind).toBe('simulated');
      expect(parsed.value.task.source).toMatchObject({ kind: 'masbench', axis: 'depth', value: 3 });
      expect(parsed.value.result.correct).not.toBeNull();
    }
  });

  it('refuses the simulator for a free-text task and reports usage errors', async () => {
    const sim = await cli([
      '--design',
      'design.json',
      '--task',
      'What is 2+3?',
      '--backend',
      'simulated',
      '--out',
      'x.json',
    ]);
    expect(sim.code).toBe(1);
    expect(sim.err).toContain('needs a generated MASBench task');
    const usage = await cli(['--design', 'design.json', '--backend', 'openai', '--out', 'x.json']);
    expect(usage.code).toBe(2);
    const noModel = await cli([
      ...['--design', 'design.json', '--task', 'x', '--backend', 'openai'],
      ...['--base-url', server.baseUrl, '--out', 'x.json'],
    ]);
    expect(noModel.code).toBe(2);
    expect(noModel.err).toContain('--backend openai needs --base-url and --model');
    const badUrl = await cli([
      ...['--design', 'design.json', '--task', 'x', '--backend', 'openai'],
      ...['--base-url', 'localhost:8787', '--model', 'm', '--out', 'x.json'],
    ]);
    expect(badUrl.code).toBe(2);
    expect(badUrl.err).toMatch(/--base-url: The base URL must start with http/);
  });

  it('reads the API key only from the environment and keeps it out of the output and the trace', async () => {
    const previous = process.env.BATON_TEST_KEY;
    try {
      for (const key of [KEY, `${KEY}-wrong`]) {
        process.env.BATON_TEST_KEY = key;
        const r = await cli([
          ...['--design', 'design.json', '--task', 'What is 2 + 3?', '--backend', 'openai'],
          ...['--base-url', server.baseUrl, '--model', 'gpt-4o-mini', '--api-key-env', 'BATON_TEST_KEY'],
          ...['--out', 'remote.json'],
        ]);
        const trace = await readFile(join(dir, 'remote.json'), 'utf8');
        expect(r.code).toBe(key === KEY ? 0 : 1);
        for (const text of [r.out, r.err, trace]) expect(text).not.toContain('987654321');
      }
    } finally {
      if (previous === undefined) delete process.env.BATON_TEST_KEY;
      else process.env.BATON_TEST_KEY = previous;
    }
  });
});
