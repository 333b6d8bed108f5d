/**
 * A provider as the orchestrator, against the real local OpenAI-wire test server (no fetch mocks):
 * the repair loop over scripted broken designs, the attempt record, the server's bill against the
 * trace's orchestrator cost, the shared budget, fault injection, streaming and interrupts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { minimalTrace } from '../../src/core/trace-builders.ts';
import { TraceSchema } from '../../src/core/trace.ts';
import { Budget, createLlmClient, type LlmClientConfig } from '../../src/executor/llm/index.ts';
import { designBudgetPreview } from '../../src/executor/provider-design-read.ts';
import { designWithProvider, type ProviderDesignOptions } from '../../src/executor/provider-designer.ts';
import { orchestratorMessages } from '../../src/interop/index.ts';
import { BROKEN_DESIGNS, GOOD_DESIGN, designScriptResponder } from '../server/design-script.ts';
import { defaultResponder, startOpenAIServer, type OpenAIServer } from '../server/openai-server.ts';

const KEY = 'sk-test-orchestrator-9fQ2xLm7Tz';
const MODEL = 'gpt-4.1-mini';
const PRICES = { [MODEL]: { inputPerMTok: 0.4, outputPerMTok: 1.6 } };
const QUERY = 'Compare the GDP growth of France and Germany in 2023';

let server: OpenAIServer;
let bill = { prompt: 0, completion: 0, usd: 0, calls: 0 };

beforeAll(async () => {
  server = await startOpenAIServer({
    apiKey: KEY,
    responder: designScriptResponder(defaultResponder),
    onBilled: (u, model) => {
      const p = PRICES[model as typeof MODEL];
      bill.prompt += u.prompt_tokens;
      bill.completion += u.completion_tokens;
      bill.usd += (u.prompt_tokens * p.inputPerMTok + u.completion_tokens * p.outputPerMTok) / 1e6;
      bill.calls += 1;
    },
  });
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
  bill = { prompt: 0, completion: 0, usd: 0, calls: 0 };
});

const client = (over: Partial<LlmClientConfig> = {}) =>
  createLlmClient({
    baseUrl: server.baseUrl,
    apiKey: KEY,
    prices: PRICES,
    sleep: async () => {},
    timeoutMs: 2_000,
    ...over,
  });

const design = (over: Partial<ProviderDesignOptions> = {}) =>
  designWithProvider({
    client: client(),
    model: MODEL,
    provider: '127.0.0.1',
    query: QUERY,
    dom: 'auto',
    messages: orchestratorMessages,
    ...over,
  });

const chats = () => server.requests.filter((r) => r.path === '/v1/chat/completions');

describe('the repair loop', () => {
  it('reaches a valid design within N turns after five broken designs, listing each attempt with its problems', async () => {
    const r = await design({ repairTurns: 5 });
    expect(r.failure).toBeUndefined();
    expect(r.design?.agents.map((a) => a.id)).toEqual(['france', 'germany', 'compare']);
    const d = r.designer;
    expect(d.usedAttempt).toBe(5);
    expect(d.valid).toBe(true);
    expect(d.attempts).toHaveLength(6);
    BROKEN_DESIGNS.forEach((b, i) => {
      const a = d.attempts?.[i];
      expect(a?.valid, b.what).toBe(false);
      expect(a?.rawOutput, b.what).toBe(b.xml);
      for (const rule of b.rules)
        expect(
          a?.problems.some((p) => p.startsWith(`rule ${rule}:`)),
          b.what,
        ).toBe(true);
      expect(a?.promptTokens).toBeGreaterThan(0);
      expect(a?.latencyMs).toBeGreaterThanOrEqual(0);
    });
    expect(d.attempts?.[5]).toMatchObject({ valid: true, problems: [], rawOutput: GOOD_DESIGN });
    // The trace holds the record.
    const trace = { ...minimalTrace({ query: QUERY, designer: d }), design: r.design! };
    expect(TraceSchema.safeParse(trace).success).toBe(true);
  });

  it('asks with the hub prompt and sends the numbered problems back as text', async () => {
    await design({ repairTurns: 1 });
    const bodies = chats().map((c) => c.body as { messages: { role: string; content: string }[] });
    expect(bodies).toHaveLength(2);
    expect(bodies[0]?.messages).toEqual(orchestratorMessages(QUERY, 'high'));
    const repair = bodies[1]?.messages ?? [];
    expect(repair.slice(0, 2)).toEqual(orchestratorMessages(QUERY, 'high'));
    expect(repair[2]).toEqual({ role: 'assistant', content: BROKEN_DESIGNS[0]?.xml });
    expect(repair[3]?.role).toBe('user');
    expect(repair[3]?.content).toMatch(/^That design is not valid\./);
    expect(repair[3]?.content).toMatch(/\n1\. rule 9: /);
  });

  it('stops after N repair turns with the problems of every attempt and no design used', async () => {
    const r = await design();
    expect(r.design).toBeNull();
    expect(r.designer.repairTurns).toBe(2);
    expect(r.designer.attempts).toHaveLength(3);
    expect(r.designer.usedAttempt).toBeNull();
    expect(r.designer.valid).toBe(false);
    expect(r.failure).toBe('no valid design after 3 attempts (2 repair turns)');
    expect(r.designer.failure).toBe(r.failure);
    expect(r.errors).toEqual(r.designer.attempts?.[2]?.problems);
    expect(r.errors.length).toBeGreaterThan(0);
  });

  it("bills exactly what the server billed: the trace's orchestrator cost equals the server's tokens × price", async () => {
    const r = await design({ repairTurns: 5 });
    const u = r.designer.usage!;
    expect(bill.calls).toBe(6);
    expect(u.calls).toBe(6);
    expect(u.promptTokens).toBe(bill.prompt);
    expect(u.completionTokens).toBe(bill.completion);
    expect(u.costUsd).toBeCloseTo(bill.usd, 12);
    expect(u.costUsd).toBeGreaterThan(0);
  });

  it('streams each attempt through the callback, as written', async () => {
    const seen: string[] = [];
    const r = await design({ repairTurns: 5, onDelta: (t, i) => (seen[i] = (seen[i] ?? '') + t) });
    expect(seen).toEqual(r.designer.attempts?.map((a) => a.rawOutput));
  });

  it('keeps what was written when interrupted mid-stream', async () => {
    server.setFaults({ once: [{ chunkDelayMs: 5 }] });
    const controller = new AbortController();
    let got = '';
    const r = await design({
      signal: controller.signal,
      onDelta: (t) => {
        got += t;
        if (got.length > 100) controller.abort();
      },
    });
    expect(r.design).toBeNull();
    expect(r.designer.stopReason).toBe('interrupted');
    expect(r.failure).toMatch(/^interrupted during attempt 1/);
    expect(r.designer.attempts?.[0]?.rawOutput.length).toBeGreaterThan(100);
    expect(BROKEN_DESIGNS[0]?.xml.startsWith(r.designer.attempts?.[0]?.rawOutput ?? 'x')).toBe(true);
  });
});

describe('the budget', () => {
  it("counts the orchestrator's calls and refuses one that could cross it, saying what is spent and held", async () => {
    const budget = new Budget({ maxTokens: 3_000 });
    const r = await design({ client: client({ budget }), budget, maxTokens: 1_000 });
    expect(r.design).toBeNull();
    expect(r.failure).toMatch(/^attempt \d was not sent: budget: Not sent/);
    expect(r.failure).toMatch(/spent \d+ tokens \(\$\d+\.\d{4}\), held by calls in flight 0 tokens/);
    expect(budget.spent.tokens).toBeLessThanOrEqual(3_000);
    expect(budget.spent.tokens).toBe(bill.prompt + bill.completion);
  });

  it('shows the worst case before the run: every attempt at its prompt plus max tokens', () => {
    const p = designBudgetPreview({
      messages: orchestratorMessages(QUERY, 'high'),
      maxTokens: 2048,
      repairTurns: 2,
      model: MODEL,
      prices: PRICES,
    });
    expect(p.calls).toBe(3);
    expect(p.tokens).toBeGreaterThan(3 * 2048);
    expect(p.usd).toBeGreaterThan(0);
    expect(
      designBudgetPreview({ messages: [], maxTokens: 10, repairTurns: 0, model: 'x', prices: {} }).usd,
    ).toBe(undefined);
  });
});

describe('under 20% injected faults', () => {
  it('20 orchestrations each finish or fail cleanly with the reason recorded, none over budget', async () => {
    server.setFaults({
      rate: 0.2,
      seed: 11,
      rateFaults: [
        { hang: true },
        { status: 429, retryAfter: '0' },
        { status: 500 },
        { status: 503 },
        { disconnectAfterChunks: 3 },
      ],
    });
    const outcomes: string[] = [];
    for (let i = 0; i < 20; i++) {
      const budget = new Budget({ maxTokens: 40_000, maxUsd: 0.05 });
      const r = await design({
        client: client({ budget, timeoutMs: 250, retry: { maxAttempts: 2 } }),
        budget,
        repairTurns: 5,
        maxTokens: 1_000,
      });
      expect(budget.spent.tokens).toBeLessThanOrEqual(40_000);
      expect(budget.spent.usd).toBeLessThanOrEqual(0.05);
      expect(budget.reserved.tokens).toBe(0);
      // The query and settings are kept in the record whatever happened.
      expect(r.designer.prompt).toContain(QUERY);
      expect(r.designer.repairTurns).toBe(5);
      if (r.design) {
        expect(r.designer.usedAttempt).toBe(r.designer.attempts!.length - 1);
        outcomes.push('designed');
      } else {
        expect(r.failure).toMatch(/^attempt \d+ failed: (timeout|http|network|invalid-response): /);
        expect(r.designer.attempts?.at(-1)?.error).toBeTruthy();
        outcomes.push(r.failure!.split(':')[1]!.trim());
      }
    }
    expect(outcomes).toHaveLength(20);
    expect(outcomes.filter((o) => o === 'designed').length).toBeGreaterThan(0);
    expect(outcomes.filter((o) => o !== 'designed').length).toBeGreaterThan(0);
    // Every kind of fault was injected: timeouts (hangs), 429, 5xx and mid-stream cuts.
    const faults = chats().map((c) => JSON.stringify(c.fault ?? null));
    for (const f of [
      '{"hang":true}',
      '{"status":429,"retryAfter":"0"}',
      '{"status":500}',
      '{"disconnectAfterChunks":3}',
    ])
      expect(faults).toContain(f);
  }, 60_000);
});

describe('secrets', () => {
  it('the API key is in no trace, link or export these orchestrations make', async () => {
    const { encodeTraceLink } = await import('../../src/share/index.ts');
    const { toOtlpJson } = await import('../../src/interop/index.ts');
    server.setFaults({ once: [{ status: 401 }] });
    const rs = [await design(), await design({ repairTurns: 5 })];
    for (const r of rs) {
      const trace = TraceSchema.parse({
        ...minimalTrace({ query: QUERY, designer: r.designer }),
        ...(r.design ? { design: r.design } : {}),
      });
      const texts = [
        JSON.stringify(trace),
        encodeTraceLink(trace).fragment,
        JSON.stringify(toOtlpJson([trace])),
        r.failure ?? '',
      ];
      for (const t of texts) expect(t).not.toContain(KEY);
    }
    expect(chats().every((c) => c.headers.authorization === `Bearer ${KEY}`)).toBe(true);
  });
});
