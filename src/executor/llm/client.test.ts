/**
 * The client against the real local test server over real HTTP: no fetch mocks. Backoff
 * sleeps are injected (instant, recorded); timeouts use real timers with small values.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  countTokens,
  promptTokens,
  startOpenAIServer,
  type OpenAIServer,
} from '../../../tests/server/openai-server.ts';
import { Budget } from './budget.ts';
import { createLlmClient } from './client.ts';
import type { LlmError, LlmResult } from './errors.ts';
import type { Sleep } from './retry.ts';
import type { LlmClientConfig } from './types.ts';
import type { ChatMessage } from './usage.ts';

const KEY = 'sk-test-Zq8vN3kLw0pR7tY2uX5e';
const messages: ChatMessage[] = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'What is 12 + 30?' },
];
const request = { model: 'baton-test-echo', messages };
const EXPECTED = 'You asked: "What is 12 + 30?". The answer is \\boxed{42}.';

let server: OpenAIServer;
let sleeps: number[];
const instantSleep: Sleep = async (ms) => {
  sleeps.push(ms);
};

const client = (overrides: Partial<LlmClientConfig> = {}) =>
  createLlmClient({
    baseUrl: server.baseUrl,
    apiKey: KEY,
    sleep: instantSleep,
    random: () => 0.5,
    timeoutMs: 2_000,
    ...overrides,
  });

function expectError<T>(result: LlmResult<T>): LlmError {
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.value)}`);
  return result.error;
}

function expectOk<T>(result: LlmResult<T>): T {
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result.error)}`);
  return result.value;
}

const chatRequests = () => server.requests.filter((r) => r.path === '/v1/chat/completions');

beforeAll(async () => {
  server = await startOpenAIServer({ apiKey: KEY });
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
  sleeps = [];
});

describe('non-streaming', () => {
  it('returns the content, the reported usage and a price from the table', async () => {
    const value = expectOk(
      await client({ prices: { 'baton-test-echo': { inputPerMTok: 1, outputPerMTok: 2 } } }).complete(
        request,
      ),
    );
    expect(value.content).toBe(EXPECTED);
    expect(value.model).toBe('baton-test-echo');
    expect(value.id).toMatch(/^chatcmpl-test-/);
    expect(value.finishReason).toBe('stop');
    const prompt = promptTokens(messages);
    const completion = countTokens(EXPECTED);
    expect(value.usage).toEqual({
      promptTokens: prompt,
      completionTokens: completion,
      totalTokens: prompt + completion,
      estimated: false,
    });
    expect(value.costUsd).toBeCloseTo((prompt * 1 + completion * 2) / 1e6, 12);
    expect(value.attempts).toBe(1);
    expect(sleeps).toEqual([]);
  });

  it('sends the Authorization header and the request fields in wire format', async () => {
    expectOk(await client().complete({ ...request, maxTokens: 64, temperature: 0.2, seed: 7 }));
    const [sent] = chatRequests();
    expect(sent?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent?.body).toMatchObject({ model: 'baton-test-echo', max_tokens: 64, temperature: 0.2, seed: 7 });
    expect(sent?.body).not.toHaveProperty('stream');
  });

  it('estimates usage, and says so, when the server reports none', async () => {
    const value = expectOk(
      await client({ headers: { 'x-test-fault': JSON.stringify({ omitUsage: true }) } }).complete(request),
    );
    expect(value.usage.estimated).toBe(true);
    expect(value.usage.completionTokens).toBe(Math.ceil(EXPECTED.length / 4));
    expect(value.usage.totalTokens).toBe(value.usage.promptTokens + value.usage.completionTokens);
    expect(value.costUsd).toBeUndefined();
  });
});

describe('streaming', () => {
  it('delivers deltas in order and ends with the reported usage', async () => {
    const deltas: string[] = [];
    const value = expectOk(await client().stream(request, { onDelta: (t) => deltas.push(t) }));
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('')).toBe(EXPECTED);
    expect(value.content).toBe(EXPECTED);
    expect(value.usage.estimated).toBe(false);
    expect(value.usage.promptTokens).toBe(promptTokens(messages));
    expect(value.usage.completionTokens).toBe(countTokens(EXPECTED));
    expect(chatRequests()[0]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('estimates usage when streaming usage is not requested', async () => {
    const value = expectOk(await client({ streamUsage: false }).stream(request));
    expect(value.content).toBe(EXPECTED);
    expect(value.usage.estimated).toBe(true);
    expect(chatRequests()[0]?.body).not.toHaveProperty('stream_options');
  });

  it('reassembles text when reads split UTF-8 characters and SSE lines, with CRLF and comments', async () => {
    const text = 'Grüße, 数学 🧮 — naïve café ✓ \\boxed{π≈3.14}';
    const local = await startOpenAIServer({ responder: () => text, streamChunkChars: 3 });
    try {
      const faults = [
        { fragmentBytes: 1 },
        { fragmentBytes: 5, fragmentDelayMs: 1, crlf: true, comments: true },
        { fragmentBytes: 7, crlf: true },
      ];
      for (const fault of faults) {
        const deltas: string[] = [];
        const value = expectOk(
          await createLlmClient({
            baseUrl: local.baseUrl,
            headers: { 'x-test-fault': JSON.stringify(fault) },
            sleep: instantSleep,
          }).stream(request, { onDelta: (t) => deltas.push(t) }),
        );
        expect(value.content).toBe(text);
        expect(deltas.join('')).toBe(text);
        expect(deltas.every((d) => !d.includes('\uFFFD'))).toBe(true);
        expect(value.usage.estimated).toBe(false);
      }
    } finally {
      await local.close();
    }
  });
});

describe('retries', () => {
  it('waits for Retry-After (seconds) on 429, then succeeds', async () => {
    server.setFaults({ once: [{ status: 429, retryAfter: '2' }] });
    const retries: number[] = [];
    const value = expectOk(await client().complete(request, { onRetry: (e) => retries.push(e.delayMs) }));
    expect(value.content).toBe(EXPECTED);
    expect(value.attempts).toBe(2);
    expect(sleeps).toEqual([2000]);
    expect(retries).toEqual([2000]);
    expect(chatRequests()).toHaveLength(2);
  });

  it('waits for Retry-After given as an HTTP date', async () => {
    const nowMs = Date.parse('Sun, 22 Nov 2026 05:00:00 GMT');
    server.setFaults({ once: [{ status: 429, retryAfter: 'Sun, 22 Nov 2026 05:00:03 GMT' }] });
    expectOk(await client({ now: () => nowMs }).complete(request));
    expect(sleeps).toEqual([3000]);
  });

  it('retries 500 and 503 with full-jitter exponential backoff, then succeeds', async () => {
    server.setFaults({ once: [{ status: 500 }, { status: 503 }, { status: 500 }] });
    const value = expectOk(
      await client({ retry: { baseDelayMs: 100, maxDelayMs: 300 }, random: () => 0.5 }).stream(request),
    );
    expect(value.attempts).toBe(4);
    // 0.5 · min(300, 100 · 2^n) for n = 0, 1, 2
    expect(sleeps).toEqual([50, 100, 150]);
  });

  it('gives a typed http error when retries are exhausted', async () => {
    server.setFaults({ once: [{ status: 503 }, { status: 503 }, { status: 503 }] });
    const error = expectError(await client({ retry: { maxAttempts: 3 } }).complete(request));
    expect(error.kind).toBe('http');
    if (error.kind !== 'http') return;
    expect(error.status).toBe(503);
    expect(error.attempts).toBe(3);
    expect(error.message).toMatch(/server error \(HTTP 503\).*Gave up after 3 attempts/);
    expect(chatRequests()).toHaveLength(3);
  });

  it('does not retry a 400 and gives the provider message', async () => {
    server.setFaults({ once: [{ status: 400 }] });
    const error = expectError(await client().complete(request));
    expect(error).toMatchObject({ kind: 'http', status: 400, attempts: 1 });
    expect(error.kind === 'http' && error.providerMessage).toBe('Injected fault: HTTP 400.');
    expect(error.message).toMatch(/rejected the request \(HTTP 400\)\. The server said: "Injected fault/);
    expect(chatRequests()).toHaveLength(1);
  });

  it('stops when Retry-After asks for longer than the client waits', async () => {
    server.setFaults({ once: [{ status: 429, retryAfter: '3600' }] });
    const error = expectError(await client().complete(request));
    expect(error).toMatchObject({ kind: 'http', status: 429, retryAfterMs: 3_600_000, attempts: 1 });
    expect(error.message).toMatch(/asked to wait 3600 s/);
    expect(sleeps).toEqual([]);
  });
});

describe('timeouts and cancellation', () => {
  it('gives a timeout error when the server hangs', async () => {
    server.setFaults({ once: [{ hang: true }] });
    const started = Date.now();
    const error = expectError(await client({ timeoutMs: 150 }).complete(request));
    expect(error).toMatchObject({ kind: 'timeout', timeoutMs: 150, attempts: 1 });
    expect(error.message).toMatch(/within 0\.2 s|within 0\.1 s/);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('treats the stream timeout as idle time, not total time', async () => {
    const value = expectOk(
      await client({
        timeoutMs: 300,
        headers: { 'x-test-fault': JSON.stringify({ chunkDelayMs: 60 }) },
      }).stream(request),
    );
    expect(value.content).toBe(EXPECTED);
  });

  it('retries timeouts only when asked to', async () => {
    server.setFaults({ once: [{ hang: true }] });
    const value = expectOk(
      await client({ timeoutMs: 150, retry: { retryOnTimeout: true } }).complete(request),
    );
    expect(value.attempts).toBe(2);
  });

  it('gives an aborted error when the caller aborts mid-request', async () => {
    server.setFaults({ once: [{ latencyMs: 1_000 }] });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    const error = expectError(await client().complete(request, { signal: controller.signal }));
    expect(error.kind).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(800);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const error = expectError(await client().stream(request, { signal: AbortSignal.abort() }));
    expect(error).toMatchObject({ kind: 'aborted', attempts: 0 });
    expect(chatRequests()).toHaveLength(0);
  });

  it('stops retrying when aborted during a backoff wait', async () => {
    server.setFaults({ once: [{ status: 500 }, { status: 500 }] });
    const controller = new AbortController();
    const abortingSleep: Sleep = async () => controller.abort();
    const error = expectError(
      await client({ sleep: abortingSleep }).complete(request, { signal: controller.signal }),
    );
    expect(error.kind).toBe('aborted');
    expect(chatRequests()).toHaveLength(1);
  });
});

describe('broken streams and bad responses', () => {
  it('retries a stream that broke before any text reached the caller', async () => {
    server.setFaults({ once: [{ disconnectAfterChunks: 2 }] });
    const deltas: string[] = [];
    const value = expectOk(await client().complete(request));
    expect(value.attempts).toBe(2);
    server.setFaults({ once: [{ disconnectAfterChunks: 0 }] });
    const streamed = expectOk(await client().stream(request, { onDelta: (t) => deltas.push(t) }));
    expect(streamed.attempts).toBe(2);
    expect(deltas.join('')).toBe(EXPECTED);
  });

  it('reports a partial result, not a retry, when the stream broke after text was delivered', async () => {
    server.setFaults({ once: [{ disconnectAfterChunks: 2 }] });
    const deltas: string[] = [];
    const error = expectError(await client().stream(request, { onDelta: (t) => deltas.push(t) }));
    expect(error.kind).toBe('network');
    expect(error.attempts).toBe(1);
    expect(error.partial?.content).toBe(deltas.join(''));
    expect(error.partial?.content).toBe(EXPECTED.slice(0, 16));
    expect(chatRequests()).toHaveLength(1);
  });

  it('buffers without onDelta, so a broken stream is retried invisibly', async () => {
    server.setFaults({ once: [{ disconnectAfterChunks: 3 }] });
    const value = expectOk(await client().stream(request));
    expect(value.content).toBe(EXPECTED);
    expect(value.attempts).toBe(2);
  });

  it('gives invalid-response for malformed JSON, without retrying', async () => {
    server.setFaults({ once: [{ malformed: 'json' }] });
    const error = expectError(await client().complete(request));
    expect(error).toMatchObject({ kind: 'invalid-response', attempts: 1 });
    expect(error.message).toMatch(/not valid JSON/);
    expect(chatRequests()).toHaveLength(1);
  });

  it('gives invalid-response, with the issues, for JSON of the wrong shape', async () => {
    server.setFaults({ once: [{ malformed: 'shape' }] });
    const error = expectError(await client().complete(request));
    expect(error.kind).toBe('invalid-response');
    expect(error.kind === 'invalid-response' && error.issues.join(' ')).toMatch(/choices/);
  });

  it('gives invalid-response for a malformed SSE data line', async () => {
    server.setFaults({ once: [{ malformed: 'json' }] });
    const error = expectError(await client().stream(request, { onDelta: () => undefined }));
    expect(error.kind).toBe('invalid-response');
    expect(error.partial?.content.length).toBeGreaterThan(0);
  });

  it('gives a network error, with advice, when nothing listens', async () => {
    const closed = await startOpenAIServer();
    const baseUrl = closed.baseUrl;
    await closed.close();
    const error = expectError(
      await createLlmClient({ baseUrl, apiKey: KEY, sleep: instantSleep }).complete(request),
    );
    expect(error).toMatchObject({ kind: 'network', attempts: 4 });
    expect(error.message).toMatch(/Could not reach 127\.0\.0\.1.*CORS/);
  });

  it('refuses a base URL that is not http(s) with a clear message', async () => {
    const error = expectError(await createLlmClient({ baseUrl: 'ftp://example.com' }).complete(request));
    expect(error.kind).toBe('network');
    expect(error.message).toMatch(/http:\/\/ or https:\/\//);
  });
});

describe('the API key', () => {
  it('never appears in errors, even when the provider echoes it back', async () => {
    const strict = await startOpenAIServer({ apiKey: 'sk-the-right-key-000000', echoKeyInErrors: true });
    try {
      const wrong = createLlmClient({ baseUrl: strict.baseUrl, apiKey: KEY, sleep: instantSleep });
      const error = expectError(await wrong.complete(request));
      expect(error).toMatchObject({ kind: 'http', status: 401, attempts: 1 });
      expect(error.message).toMatch(/API key was rejected/);
      // The server did echo it: the redaction is what keeps it out.
      expect(strict.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(JSON.stringify(error)).not.toContain(KEY);
      expect(JSON.stringify(error)).toContain('[redacted]');
      const streamed = expectError(await wrong.stream(request));
      expect(JSON.stringify(streamed)).not.toContain(KEY);
      const models = expectError(await wrong.listModels());
      expect(JSON.stringify(models)).not.toContain(KEY);
    } finally {
      await strict.close();
    }
  });

  it('is absent from network, timeout and retry reports', async () => {
    const seen: string[] = [];
    server.setFaults({ once: [{ status: 500 }, { hang: true }] });
    const error = expectError(
      await client({ timeoutMs: 100 }).complete(request, { onRetry: (e) => seen.push(JSON.stringify(e)) }),
    );
    expect(error.kind).toBe('timeout');
    expect(seen).toHaveLength(1);
    expect([...seen, JSON.stringify(error)].some((s) => s.includes(KEY))).toBe(false);
  });

  it('is not sent when none is configured', async () => {
    const open = await startOpenAIServer();
    try {
      expectOk(await createLlmClient({ baseUrl: open.baseUrl }).complete(request));
      expect(open.requests[0]?.headers.authorization).toBeUndefined();
    } finally {
      await open.close();
    }
  });
});

describe('budget', () => {
  it('refuses a call that could exceed the token limit, before sending it', async () => {
    const budget = new Budget({ maxTokens: 50 });
    const error = expectError(await client({ budget }).complete({ ...request, maxTokens: 100 }));
    expect(error).toMatchObject({ kind: 'budget', limit: 'tokens', remaining: 50, attempts: 0 });
    expect(error.message).toMatch(/Not sent/);
    expect(chatRequests()).toHaveLength(0);
    expect(budget.spent.tokens).toBe(0);
    expect(budget.reserved.tokens).toBe(0);
  });

  it('commits the reported usage and its cost, then refuses once the limit is reached', async () => {
    const prices = { 'baton-test-echo': { inputPerMTok: 1_000, outputPerMTok: 1_000 } };
    const budget = new Budget({ maxUsd: 0.1 });
    const c = client({ budget, prices });
    const first = expectOk(await c.complete({ ...request, maxTokens: 20 }));
    expect(budget.spent.tokens).toBe(first.usage.totalTokens);
    expect(budget.spent.usd).toBeCloseTo(first.usage.totalTokens / 1_000, 12);
    expect(budget.reserved).toEqual({ tokens: 0, usd: 0 });
    let refused: LlmError | undefined;
    for (let i = 0; i < 10 && !refused; i += 1) {
      const r = await c.complete({ ...request, maxTokens: 20 });
      if (!r.ok) refused = r.error;
    }
    expect(refused).toMatchObject({ kind: 'budget', limit: 'usd' });
    expect(budget.spent.usd).toBeLessThanOrEqual(0.1);
  });

  it('refuses under a cost limit when the model has no known price', async () => {
    const error = expectError(
      await client({ budget: new Budget({ maxUsd: 1 }), prices: {} }).complete(request),
    );
    expect(error).toMatchObject({ kind: 'budget', limit: 'usd', requested: null });
    expect(error.message).toMatch(/no price is known for model "baton-test-echo"/);
    expect(chatRequests()).toHaveLength(0);
  });

  it('charges the partial output of a broken stream and releases failed calls', async () => {
    const budget = new Budget({ maxTokens: 10_000 });
    server.setFaults({ once: [{ status: 400 }] });
    expectError(await client({ budget }).complete(request));
    expect(budget.spent.tokens).toBe(0);
    server.setFaults({ once: [{ disconnectAfterChunks: 2 }] });
    const error = expectError(await client({ budget }).stream(request, { onDelta: () => undefined }));
    expect(error.partial).toBeDefined();
    expect(budget.spent.tokens).toBeGreaterThan(error.partial?.completionTokensEstimate ?? Infinity);
    expect(budget.reserved.tokens).toBe(0);
  });
});

describe('models', () => {
  it('lists the server models', async () => {
    expect(expectOk(await client().listModels())).toEqual(['baton-test-echo', 'baton-test-mini']);
    expect(server.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`);
  });
});

describe('under a 20% seeded fault rate', () => {
  const run = async (seed: number) => {
    // Every fault kind, including ones that are not retried (malformed, a stream broken after
    // text was delivered) and a hang that costs one timeout.
    const rateFaults = [
      { status: 500 },
      { status: 503 },
      { status: 429, retryAfter: '0' },
      { disconnectAfterChunks: 0 },
      { disconnectAfterChunks: 2 },
      { malformed: 'json' as const },
      { hang: true },
    ];
    const local = await startOpenAIServer({ faults: { rate: 0.2, seed, rateFaults } });
    try {
      // A hang costs one timeout; 1 s is far above a local reply even on a loaded machine, so the
      // outcomes depend on the seeded faults alone.
      const c = createLlmClient({ baseUrl: local.baseUrl, sleep: instantSleep, timeoutMs: 1000 });
      const outcomes: string[] = [];
      for (let i = 0; i < 50; i += 1) {
        const call = i % 2 === 0 ? c.complete(request) : c.stream(request, { onDelta: () => undefined });
        const result = await call;
        outcomes.push(result.ok ? `ok:${result.value.attempts}` : `error:${result.error.kind}`);
      }
      return { outcomes, requests: local.requests.length };
    } finally {
      await local.close();
    }
  };

  it('ends all 50 calls ok or with a typed error, reproducibly', async () => {
    const a = await run(20260522);
    const kinds = new Set(['http', 'timeout', 'aborted', 'network', 'invalid-response', 'budget']);
    for (const o of a.outcomes) {
      expect(o.startsWith('ok:') || kinds.has(o.slice('error:'.length))).toBe(true);
    }
    expect(a.outcomes.filter((o) => o.startsWith('ok:')).length).toBeGreaterThanOrEqual(40);
    // Faults happened: some were retried to success (more requests than calls), some ended
    // the call with a typed error.
    expect(a.requests).toBeGreaterThan(50);
    expect(a.outcomes.some((o) => /^ok:[2-4]$/.test(o))).toBe(true);
    expect(a.outcomes.some((o) => o.startsWith('error:'))).toBe(true);
    const b = await run(20260522);
    expect(b.outcomes).toEqual(a.outcomes);
  });
});
