import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../../tests/server/openai-server.ts';
import { solveMessages } from '../executor/agents/prompts.ts';
import { designOf } from '../executor/test-helpers.ts';
import type { CliIO } from './command.ts';
import {
  intFlag,
  openProvider,
  parseProviderArgs,
  providerFlagsIn,
  redactedJson,
  redactingIO,
} from './provider-args.ts';

const KEY = `sk-fake-args-${randomUUID()}`;
let server: OpenAIServer;
beforeAll(async () => {
  server = await startOpenAIServer({ apiKey: KEY });
});
afterAll(() => server.close());

const endpoint = { 'base-url': 'http://127.0.0.1:9/v1', model: 'm' };

describe('parseProviderArgs', () => {
  it('reads the endpoint, the concurrency and the budget when the provider is selected', () => {
    const r = parseProviderArgs(
      { ...endpoint, 'api-key-env': 'MY_KEY', concurrency: '3', 'budget-tokens': '900', 'budget-usd': '0.5' },
      '--execute remote',
    );
    expect(r).toEqual({
      ok: true,
      value: {
        endpoint: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm', apiKeyEnv: 'MY_KEY' },
        concurrency: 3,
        budget: { totalTokens: 900, totalUsd: 0.5 },
      },
    });
  });

  it('defaults: OPENAI_API_KEY, 4 agents at once, no limits; no endpoint unless selected', () => {
    expect(parseProviderArgs(endpoint, '--backend openai')).toMatchObject({
      ok: true,
      value: { endpoint: { apiKeyEnv: 'OPENAI_API_KEY' }, concurrency: 4, budget: {} },
    });
    expect(parseProviderArgs({}, null)).toEqual({
      ok: true,
      value: { endpoint: null, concurrency: 4, budget: {} },
    });
  });

  it.each([
    [{}, '--backend openai needs --base-url and --model'],
    [{ model: 'm' }, '--backend openai needs --base-url and --model'],
    [{ ...endpoint, 'base-url': 'not a url' }, '--base-url: "not a url" is not a URL'],
    [{ ...endpoint, 'base-url': 'http://user:pw@h/v1' }, '--base-url: Put the API key in the key field'],
    [{ ...endpoint, 'api-key-env': 'A-B' }, '--api-key-env must name an environment variable'],
    [{ ...endpoint, concurrency: '65' }, '--concurrency must be an integer from 1 to 64, got 65'],
    [{ ...endpoint, 'budget-tokens': '1.5' }, '--budget-tokens must be an integer'],
    [{ ...endpoint, 'budget-usd': 'lots' }, '--budget-usd must be a non-negative number, got "lots"'],
    [{ ...endpoint, 'budget-usd': '' }, '--budget-usd must be a non-negative number'],
  ])('rejects %j', (values, message) => {
    const r = parseProviderArgs(values, '--backend openai');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message.startsWith(message)).toBe(true);
  });

  it('checks limits without an endpoint too', () => {
    expect(parseProviderArgs({ concurrency: '0' }, null)).toMatchObject({ ok: false });
  });
});

describe('intFlag and providerFlagsIn', () => {
  it('parses integers in range and names the problem otherwise', () => {
    expect(intFlag(undefined, 'n', 1, 5, 2)).toBe(2);
    expect(intFlag('5', 'n', 1, 5, 2)).toBe(5);
    expect(intFlag('6', 'n', 1, 5, 2)).toBe('--n must be an integer from 1 to 5, got 6');
    expect(intFlag('-1', 'n', 1, 5, 2)).toBe('--n must be an integer from 1 to 5, got "-1"');
  });

  it('lists the shared flags given', () => {
    expect(providerFlagsIn({ model: 'm', seed: '1', 'budget-usd': '1' })).toEqual([
      '--model',
      '--budget-usd',
    ]);
    expect(providerFlagsIn({ seed: '1' })).toEqual([]);
  });
});

describe('openProvider', () => {
  it('calls the endpoint with the key from the environment and names it as a secret', async () => {
    const p = openProvider({ baseUrl: server.baseUrl, model: 'gpt-4o-mini', apiKeyEnv: 'K' }, { K: KEY });
    expect(p).toMatchObject({ key: KEY, secrets: [KEY], note: null });
    expect(p.backend.info).toEqual({
      kind: 'remote',
      provider: 'openai-compatible',
      baseUrl: server.baseUrl,
      model: 'gpt-4o-mini',
    });
    expect(JSON.stringify(p.backend.info)).not.toContain(KEY);
    const agent = designOf([{ id: 'A' }]).agents[0];
    if (!agent) throw new Error('no agent');
    const reply = await p.backend.chat({
      agent,
      label: 'answer',
      kind: 'solve',
      input: 'What is 2 + 3?',
      messages: solveMessages('What is 2 + 3?'),
      callIndex: 0,
      signal: new AbortController().signal,
    });
    expect(reply).toMatchObject({ ok: true, output: expect.stringContaining('\\boxed{5}') as unknown });
  });

  it('without the variable: no key, no secrets, and a note that says so', async () => {
    const p = openProvider({ baseUrl: server.baseUrl, model: 'm', apiKeyEnv: 'UNSET_K' }, {});
    expect(p).toMatchObject({ key: '', secrets: [] });
    expect(p.note).toBe(`note: UNSET_K is not set; calling ${server.baseUrl} without an API key.`);
  });
});

describe('redaction', () => {
  it('removes the secrets from printed lines and written JSON', () => {
    const out: string[] = [];
    const err: string[] = [];
    const io: CliIO = { out: (l) => out.push(l), err: (l) => err.push(l), cwd: '/' };
    const shown = redactingIO(io, [KEY]);
    shown.out(`key ${KEY}`);
    shown.err(`oops ${KEY}`);
    expect(out).toEqual(['key [redacted]']);
    expect(err).toEqual(['oops [redacted]']);
    expect(shown.cwd).toBe('/');
    expect(redactingIO(io, [])).toBe(io);
    expect(JSON.parse(redactedJson({ a: [KEY] }, [KEY]))).toEqual({ a: ['[redacted]'] });
    expect(redactedJson({ a: 1 }, [])).toBe(JSON.stringify({ a: 1 }, null, 2));
  });
});
