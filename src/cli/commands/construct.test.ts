import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../../../tests/server/openai-server.ts';
import { generateTask } from '../../masbench/index.ts';
import { minimalTrace } from '../../core/trace-builders.ts';
import { TraceSchema, type Design, type Task, type Trace } from '../../core/trace.ts';
import { solveMessages, withRole } from '../../executor/agents/prompts.ts';
import { reservationFor } from '../../executor/intermediate.ts';
import { createLlmClient } from '../../executor/llm/index.ts';
import { remoteBackend } from '../../executor/remote.ts';
import { runDesign } from '../../executor/run.ts';
import type { PolicyAction } from '../../policy/index.ts';
import {
  checkConstruction,
  applyAction,
  initialState,
  toValidDesign,
  actionRewards,
  DEFAULT_POOL,
  roleInstruction,
  serializeRolePool,
  withContentVersion,
} from '../../policy/index.ts';
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

/** The required flags of a construction. */
const BASE = ['--policy', 'prior', '--task', 'x', '--out', 'o.json'];
/** A well-formed remote selection (nothing listens there: only parsing is under test). */
const REMOTE_FLAGS = ['--execute', 'remote', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm'];

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

  it('builds from a role pool file: the edited prompts reach the agents, the version the trace', async () => {
    const pool = withContentVersion({
      ...DEFAULT_POOL,
      roles: [
        ...DEFAULT_POOL.roles.map((r) =>
          r.name === 'Solver' ? { ...r, prompt: 'Solve it like a careful accountant.' } : r,
        ),
        {
          name: 'Unit Checker',
          agentType: 'CoTAgent' as const,
          prompt: 'Check the units of every quantity.',
          does: 'Checks units.',
          refuseWhen: 'Reply exactly "REFUSE: <reason>" when no quantity has a unit.',
        },
      ],
    });
    await writeFile(join(dir, 'roles.json'), serializeRolePool(pool), 'utf8');
    const args = ['--task', 'How many legs do 3 spiders and 2 ants have?', '--backend', 'cpu', '--seed', '2'];
    expect(
      await constructCommand.run(
        ['--policy', 'prior', ...args, '--roles', 'roles.json', '--out', 'r.json'],
        io,
      ),
    ).toBe(0);
    const trace = await readTrace('r.json');
    expect(trace.designer).toMatchObject({ kind: 'policy', roles: pool.version });
    expect(trace.construction[0]?.roleDistribution).toHaveLength(DEFAULT_POOL.roles.length + 3);
    expect(checkConstruction(trace)).toEqual([]);
    // Every built agent carries its role's instruction from the file's pool.
    const built = trace.design.agents.filter((x) => x.type !== 'SummarizerAgent');
    expect(built.length).toBeGreaterThan(0);
    for (const x of built) {
      const role = pool.roles.find((r) => r.name === x.role);
      expect(role && x.description).toBe(role ? roleInstruction(role) : 'missing role');
    }

    // A checkpoint made for the built-in pool cannot drive this one; a broken pool file is explained.
    expect(
      await constructCommand.run(
        ['--policy', 'random:1', ...args, '--out', 'a.json', '--save-policy', 'p.json'],
        io,
      ),
    ).toBe(0);
    err = [];
    expect(
      await constructCommand.run(
        ['--policy', 'p.json', ...args, '--roles', 'roles.json', '--out', 'b.json'],
        io,
      ),
    ).toBe(2);
    expect(err.join('\n')).toMatch(/made for roles/);
    await writeFile(join(dir, 'bad.json'), '{"format":"baton.roles/1","roles":[]}', 'utf8');
    err = [];
    expect(
      await constructCommand.run(
        ['--policy', 'prior', ...args, '--roles', 'bad.json', '--out', 'c.json'],
        io,
      ),
    ).toBe(2);
    expect(err.join('\n')).toMatch(/not a valid role pool/);
  });

  it.each([
    [['--task', 'x', '--out', 'o.json'], /--policy is required/],
    [['--policy', 'prior', '--out', 'o.json'], /--task is required/],
    [['--policy', 'prior', '--task', 'x'], /--out is required/],
    [[...BASE, '--seed', '1.5'], /--seed must be an integer/],
    [[...BASE, '--backend', 'tpu'], /--backend must be/],
    [[...BASE, '--execute', 'cloud'], /"simulated" or "remote"/],
    [[...BASE, '--execute', 'remote'], /--execute remote needs --base-url and --model/],
    [[...BASE, '--execute', 'remote', '--base-url', 'http://h/v1'], /needs --base-url and --model/],
    [
      [...BASE, '--execute', 'remote', '--base-url', 'ftp://h', '--model', 'm'],
      /--base-url: The base URL must start with http/,
    ],
    [[...BASE, '--model', 'm'], /--model only apply with --execute remote/],
    [
      [...BASE, '--execute', 'simulated', '--budget-tokens', '9'],
      /--budget-tokens only apply with --execute/,
    ],
    [[...BASE, ...REMOTE_FLAGS, '--budget-usd=-1'], /--budget-usd must be a non-negative number/],
    [[...BASE, ...REMOTE_FLAGS, '--budget-tokens', '0'], /--budget-tokens must be/],
    [[...BASE, ...REMOTE_FLAGS, '--concurrency', '0'], /--concurrency must be/],
    [[...BASE, ...REMOTE_FLAGS, '--api-key-env', '1-X'], /--api-key-env must name/],
    [[...BASE, '--temperature', '0'], /--temperature must be/],
    [[...BASE, '--max-steps', '1'], /--max-steps must be/],
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
    expect(err.at(-1)).toMatch(/is not prior, prior@T, random/);
    expect(
      await constructCommand.run(
        ['--policy', 'prior', '--task', 'x', '--execute', 'simulated', '--out', 'o.json'],
        io,
      ),
    ).toBe(2);
    expect(err.at(-1)).toMatch(/needs a MASBench task file/);
  });
});

describe('baton construct --execute remote', () => {
  // An obviously fake key, made for this run; the server insists on it and echoes wrong ones.
  const KEY = `sk-fake-construct-${randomUUID()}`;
  const ENV = 'BATON_CONSTRUCT_TEST_KEY';
  const TASK = { query: 'What is 17 + 25?', groundTruth: '42' };
  let server: OpenAIServer;
  let previous: string | undefined;

  beforeAll(async () => {
    server = await startOpenAIServer({ apiKey: KEY, echoKeyInErrors: true });
    previous = process.env[ENV];
  });
  afterAll(async () => {
    if (previous === undefined) delete process.env[ENV];
    else process.env[ENV] = previous;
    await server.close();
  });

  const chatRequests = (): number => server.requests.filter((r) => r.path === '/v1/chat/completions').length;
  const remote = (extra: string[] = []): string[] => [
    ...['--policy', 'prior', '--task', 'task.json', '--seed', '1', '--backend', 'cpu'],
    ...['--execute', 'remote', '--base-url', server.baseUrl, '--model', 'gpt-4o-mini'],
    ...['--api-key-env', ENV, '--out', 't.json', ...extra],
  ];

  /** The partial design after every step, replayed from the trace's actions. */
  function partialDesigns(trace: Trace): (Design | null)[] {
    let s = initialState(DEFAULT_POOL);
    return trace.construction.map((step) => {
      const a = step.action;
      const action: PolicyAction =
        a.kind === 'add'
          ? { kind: 'add', role: DEFAULT_POOL.roles.findIndex((r) => r.name === a.role), links: a.links }
          : { kind: a.kind };
      s = applyAction(s, action).state;
      return toValidDesign(s);
    });
  }

  it('runs every partial MAS on the provider with a call cache, grades it and writes a valid trace', async () => {
    process.env[ENV] = KEY;
    await writeFile(join(dir, 'task.json'), JSON.stringify(TASK));
    server.reset();
    const code = await constructCommand.run(remote(), io);
    expect(err).toEqual([]);
    expect(code).toBe(0);
    const text = await readFile(join(dir, 't.json'), 'utf8');
    const trace = TraceSchema.parse(JSON.parse(text));
    expect(checkConstruction(trace)).toEqual([]);
    expect(trace.execution).toMatchObject({
      status: 'completed',
      backend: { kind: 'remote', model: 'gpt-4o-mini' },
    });
    expect(trace.result.correct).not.toBeNull();
    const steps = trace.construction;
    expect(steps.length).toBeGreaterThanOrEqual(2);
    for (const step of steps) {
      expect(step.intermediateRun).toMatchObject({ backend: 'remote', status: 'completed' });
      expect(step.intermediateAnswer).toEqual(expect.any(String));
      expect(step.intermediateCorrect).toEqual(expect.any(Boolean));
      expect(step.actionReward).toEqual(expect.any(Number));
    }
    // Rewards follow the recorded correctness (the empty MAS counts as wrong).
    expect(steps.map((s) => s.actionReward)).toEqual(
      actionRewards(steps.map((s) => s.intermediateCorrect ?? null)),
    );

    // Requests: the intermediate runs' fresh calls, then the final run's.
    const total = chatRequests();
    const intermediate = total - trace.totals.llmCalls;
    expect(intermediate).toBe(steps.reduce((n, s) => n + (s.intermediateRun?.calls ?? 0), 0));
    // What re-running every partial design without a cache takes, on the same server.
    server.reset();
    const task: Task = { ...TASK, source: { kind: 'custom' } };
    for (const design of partialDesigns(trace)) {
      if (!design) continue;
      const client = createLlmClient({ baseUrl: server.baseUrl, apiKey: KEY });
      await runDesign({
        trace: minimalTrace({ query: TASK.query }),
        design,
        task,
        backend: remoteBackend(client, 'gpt-4o-mini'),
      });
    }
    const uncached = chatRequests();
    expect(intermediate).toBeLessThan(uncached);
    expect(uncached).toBe(
      steps.reduce((n, s) => n + (s.intermediateRun?.calls ?? 0) + (s.intermediateRun?.cachedCalls ?? 0), 0),
    );

    // Every step prints its answer and its spend; the construction's spend comes at the end.
    expect(out.filter((l) => /^ +answer: /.test(l))).toHaveLength(steps.length);
    expect(
      out.filter((l) => /^ +remote: completed · \d+ calls?, \d+ tokens, \$\d+\.\d{4} · \d+ cached$/.test(l)),
    ).toHaveLength(steps.length);
    expect(
      out.some((l) => l.startsWith(`intermediate spend: ${steps.length} runs, ${intermediate} call`)),
    ).toBe(true);
    for (const t of [out.join('\n'), err.join('\n'), text]) expect(t).not.toContain(KEY);
  });

  it('records answers ungraded for a text task', async () => {
    process.env[ENV] = KEY;
    const code = await constructCommand.run(
      remote().map((a) => (a === 'task.json' ? TASK.query : a)),
      io,
    );
    expect(code).toBe(0);
    const trace = await readTrace('t.json');
    expect(trace.construction.every((s) => typeof s.intermediateAnswer === 'string')).toBe(true);
    expect(trace.construction.every((s) => s.intermediateCorrect === null && s.actionReward === null)).toBe(
      true,
    );
    expect(out.some((l) => /no ground truth: answers are recorded ungraded/.test(l))).toBe(true);
  });

  it('skips steps once the token budget is spent and still writes a valid trace', async () => {
    process.env[ENV] = KEY;
    await writeFile(join(dir, 'task.json'), JSON.stringify(TASK));
    // Room for one request that reads the question (its estimated prompt, with the longest role
    // instruction the first agent can carry, + the 1024-token cap).
    const room = Math.max(
      ...DEFAULT_POOL.roles.map((r) => {
        const worst = reservationFor({
          messages: withRole(solveMessages(TASK.query), roleInstruction(r), 'solve'),
        });
        return worst.promptTokens + worst.completionTokens;
      }),
    );
    server.reset();
    const code = await constructCommand.run(remote(['--budget-tokens', String(room)]), io);
    expect(err).toEqual([]);
    const text = await readFile(join(dir, 't.json'), 'utf8');
    const trace = TraceSchema.parse(JSON.parse(text));
    expect(checkConstruction(trace)).toEqual([]);
    const statuses = trace.construction.map((s) => s.intermediateRun?.status);
    expect(statuses[0]).toBe('completed');
    expect(statuses.slice(1)).toContain('skipped');
    const skipped = trace.construction.filter((s) => s.intermediateRun?.status === 'skipped');
    for (const s of skipped) {
      expect(s).toMatchObject({ intermediateAnswer: null, intermediateCorrect: null, actionReward: null });
      expect(s.intermediateRun).toMatchObject({ calls: 0, promptTokens: 0 });
    }
    expect(
      out.filter((l) =>
        /^ +remote: skipped — not run: no room left in the construction's budget \(\d+ tokens\): Not sent/.test(
          l,
        ),
      ),
    ).toHaveLength(skipped.length);
    // Nothing was sent past the budget, and the final run got what was left (not enough here).
    const spent = trace.construction.reduce(
      (n, s) => n + (s.intermediateRun?.promptTokens ?? 0) + (s.intermediateRun?.completionTokens ?? 0),
      0,
    );
    expect(spent).toBeLessThanOrEqual(room);
    expect(out).toContain(`final run with the remaining budget: ${room - spent} tokens`);
    expect(trace.execution.status).toBe('failed');
    expect(out.some((l) => /^final run: Not sent/.test(l))).toBe(true);
    expect(code).toBe(1);
    expect(text).not.toContain(KEY);
  });

  it('without the key in the environment: a note, 401s reported per step, no key anywhere', async () => {
    delete process.env[ENV];
    await writeFile(join(dir, 'task.json'), JSON.stringify(TASK));
    const code = await constructCommand.run(remote(), io);
    expect(out[0]).toBe(`note: ${ENV} is not set; calling ${server.baseUrl} without an API key.`);
    expect(code).toBe(1);
    const trace = await readTrace('t.json');
    expect(trace.construction.every((s) => s.intermediateRun?.status === 'failed')).toBe(true);
    expect(out.some((l) => /^ +remote: failed · .* — .*http/.test(l))).toBe(true);
    expect(trace.execution.status).toBe('failed');
  });

  it('keeps a wrong key, echoed back by the provider, out of the output and the trace', async () => {
    const wrong = `${KEY}-wrong`;
    process.env[ENV] = wrong;
    await writeFile(join(dir, 'task.json'), JSON.stringify(TASK));
    const code = await constructCommand.run(remote(), io);
    expect(code).toBe(1);
    const text = await readFile(join(dir, 't.json'), 'utf8');
    expect(text).toMatch(/Incorrect API key/);
    for (const t of [out.join('\n'), err.join('\n'), text]) expect(t).not.toContain(KEY);
  });
});
