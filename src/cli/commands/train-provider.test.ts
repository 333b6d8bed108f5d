import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../../../tests/server/openai-server.ts';
import { parseCheckpoint } from '../../policy/index.ts';
import type { CliIO } from '../command.ts';
import { trainCommand } from './train.ts';

const KEY = 'sk-train-test-SECRET-0042';
let server: OpenAIServer;
let dir: string;
let out: string[];
let err: string[];
let io: CliIO;

beforeAll(async () => {
  server = await startOpenAIServer({ apiKey: KEY });
  process.env.BATON_TRAIN_TEST_KEY = KEY;
});
afterAll(async () => {
  delete process.env.BATON_TRAIN_TEST_KEY;
  await server.close();
});
beforeEach(async () => {
  server.reset();
  dir = await mkdtemp(join(tmpdir(), 'baton-train-provider-'));
  out = [];
  err = [];
  io = { out: (l) => out.push(l), err: (l) => err.push(l), cwd: dir };
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const provider = (budget: string[]): string[] => [
  '--preset',
  'depth',
  '--execute',
  'openai',
  '--base-url',
  server.baseUrl,
  '--model',
  'test-model',
  '--api-key-env',
  'BATON_TRAIN_TEST_KEY',
  ...budget,
  '--out',
  'ck.json',
];
const chats = (): number => server.requests.filter((r) => r.path === '/v1/chat/completions').length;

describe('baton train --execute openai', () => {
  it('trains on the provider within the budget, with injected faults, and writes the checkpoint', async () => {
    server.setFaults({
      rate: 0.05,
      seed: 3,
      rateFaults: [{ status: 503 }, { status: 429, retryAfter: '0' }],
    });
    const code = await trainCommand.run(
      [...provider(['--budget-tokens', '5000000']), '--iterations', '1'],
      io,
    );
    expect(err.join('\n')).not.toContain('baton train:');
    expect(code).toBe(0);
    expect(err[0]).toMatch(/budget 5000000 tokens \(no dollar limit\) for the whole run/);
    const cp = parseCheckpoint(await readFile(join(dir, 'ck.json'), 'utf8'));
    expect(cp.ok).toBe(true);
    const spend = /provider spend (\d+) requests, (\d+) tokens/.exec(out.join('\n'));
    expect(spend).not.toBeNull();
    expect(Number(spend?.[1])).toBeGreaterThan(10);
    expect(Number(spend?.[2])).toBeLessThanOrEqual(5_000_000);
    // Every request carried the key (no 401s) and retries cover the injected faults.
    expect(chats()).toBeGreaterThanOrEqual(Number(spend?.[1]));
    expect([...out, ...err].join('\n')).not.toContain(KEY);
  });

  it('stops with exit code 3 and a clear message when the budget would be exceeded', async () => {
    const code = await trainCommand.run(
      [...provider(['--budget-tokens', '4000', '--budget-usd', '5']), '--iterations', '3'],
      io,
    );
    expect(code).toBe(3);
    const text = err.join('\n');
    expect(err[0]).toMatch(/budget 4000 tokens, \$5 for the whole run/);
    expect(text).toMatch(/training stopped: the budget \(4000 tokens, \$5\) would be exceeded/);
    expect(text).toMatch(/no iteration finished within the budget/);
    await expect(stat(join(dir, 'ck.json'))).rejects.toThrow();
    expect(text).not.toContain(KEY);
  });

  it('keeps the checkpoint of the last finished iteration when the budget runs out later', async () => {
    // The spend of one iteration, measured; then a budget for about one and a half of them.
    expect(
      await trainCommand.run([...provider(['--budget-tokens', '5000000']), '--iterations', '1'], io),
    ).toBe(0);
    const one = Number(/provider spend \d+ requests, (\d+) tokens/.exec(out.join('\n'))?.[1]);
    expect(one).toBeGreaterThan(0);
    out.length = 0;
    err.length = 0;
    await rm(join(dir, 'ck.json'));
    const budget = String(Math.round(one * 1.5));
    const code = await trainCommand.run([...provider(['--budget-tokens', budget]), '--iterations', '3'], io);
    expect(code).toBe(3);
    expect(out.join('\n')).toMatch(/stopped by the budget after 1 finished iterations/);
    const cp = parseCheckpoint(await readFile(join(dir, 'ck.json'), 'utf8'));
    expect(cp.ok && JSON.stringify(cp.value.meta)).toContain('"iterations":1');
  });

  it('refuses a provider run without a token budget, and provider flags without --execute openai', async () => {
    expect(await trainCommand.run(provider([]), io)).toBe(2);
    expect(err.join('\n')).toMatch(/needs --budget-tokens/);
    expect(await trainCommand.run(['--budget-tokens', '10', '--out', 'x.json'], io)).toBe(2);
    expect(err.join('\n')).toMatch(/--budget-tokens go with --execute openai/);
    expect(chats()).toBe(0);
  });
});
