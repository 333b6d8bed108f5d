import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../../tests/server/openai-server.ts';
import { TraceSchema, type Trace, type TraceEvent } from '../core/trace.ts';
import { ORIGINAL_TASK_HEADING, SUBTASK_HEADING, isPlaceholder } from './input.ts';
import { runDesign } from './run.ts';
import type { ChatBackend } from './types.ts';
import { designOf, eventsOf, spanOf, testBackend, traceFor } from './test-helpers.ts';

let server: OpenAIServer;
beforeAll(async () => {
  server = await startOpenAIServer({
    responder: (body) => {
      const user = [...(body.messages ?? [])].reverse().find((m) => m.role === 'user')?.content ?? '';
      return `Read ${user.length} characters. \\boxed{5}`;
    },
  });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const QUERY = 'What is 2 + 3?';

/** Agents running at the same time, at the busiest moment. */
function maxOverlap(trace: Trace): number {
  let running = 0;
  let most = 0;
  for (const e of trace.execution.events) {
    if (e.type === 'agent.start') most = Math.max(most, ++running);
    if (e.type === 'agent.end' || e.type === 'agent.error') running -= 1;
  }
  return most;
}

/** The invariants every run keeps, however it went. */
function expectWellFormed(trace: Trace): void {
  expect(TraceSchema.safeParse(trace).success).toBe(true);
  const events = trace.execution.events;
  const started = new Set<string>();
  const ended = new Set<string>();
  let last = 0;
  for (const e of events) {
    // Appended in the order they happened: an llm.call is known when it returns (t + latency).
    const happened = e.type === 'llm.call' ? e.t + e.latencyMs : e.t;
    expect(happened).toBeGreaterThanOrEqual(last - 1e-6);
    last = happened;
    if (e.type === 'agent.start') started.add(e.agentId);
    if (e.type === 'llm.call' || e.type === 'agent.note') {
      expect(started.has(e.agentId)).toBe(true);
      expect(ended.has(e.agentId)).toBe(false);
    }
    if (e.type === 'agent.end' || e.type === 'agent.error') {
      expect(started.has(e.agentId)).toBe(true);
      expect(ended.has(e.agentId)).toBe(false);
      ended.add(e.agentId);
    }
  }
  expect([...started].sort()).toEqual([...ended].sort());
  expect(events.at(-1)?.type).toBe('run.end');
  for (const e of eventsOf(trace, 'agent.error')) {
    expect(e.error.length).toBeGreaterThan(0);
    expect(isPlaceholder(e.placeholder)).toBe(true);
  }
}

describe('runDesign', () => {
  it('runs independent agents in parallel, substitutes ${ID} and carries the original task', async () => {
    server.setFaults({ latencyMs: 150 });
    const design = designOf([
      { id: 'A', input: 'Compute the first part.' },
      { id: 'B' },
      { id: 'C', input: 'Combine ${A} with ${B}.' },
    ]);
    const seen: TraceEvent[] = [];
    let snapshot: Trace | undefined;
    const trace = await runDesign({
      trace: traceFor(QUERY, '5'),
      design,
      backend: testBackend(server.baseUrl),
      onEvent: (e, snap) => {
        seen.push(e);
        if (e.type === 'agent.end' && e.agentId === 'A') snapshot = snap();
      },
    });
    expectWellFormed(trace);
    const a = spanOf(trace, 'A');
    const b = spanOf(trace, 'B');
    expect(a.start < b.end && b.start < a.end).toBe(true);
    const starts = eventsOf(trace, 'agent.start');
    const inputOf = (id: string) => starts.find((s) => s.agentId === id)?.input ?? '';
    expect(inputOf('B')).toBe(QUERY);
    expect(inputOf('A')).toBe(
      `${ORIGINAL_TASK_HEADING}\n${QUERY}\n\n${SUBTASK_HEADING}\nCompute the first part.`,
    );
    const outputs = eventsOf(trace, 'agent.end');
    const outA = outputs.find((e) => e.agentId === 'A')?.output ?? '';
    const outB = outputs.find((e) => e.agentId === 'B')?.output ?? '';
    expect(inputOf('C')).toContain(`Combine ${outA} with ${outB}.`);
    expect(inputOf('C')).toContain(QUERY);
    // Every event went out through onEvent, in the same order as the trace holds them.
    expect(seen).toEqual(trace.execution.events);
    expect(snapshot?.execution.status).toBe('running');
    expect(TraceSchema.safeParse(snapshot).success).toBe(true);
    expect(trace.result).toEqual({
      finalAnswer: outputs.find((e) => e.agentId === 'C')?.output,
      answerAgent: 'C',
      correct: true,
    });
    expect(trace.totals.llmCalls).toBe(3);
    expect(trace.totals.criticalPathMs).toBeLessThanOrEqual(trace.totals.wallMs + 1);
  });

  it('keeps at most `concurrency` agents running', async () => {
    server.setFaults({ latencyMs: 40 });
    const design = designOf([
      ...['A', 'B', 'C', 'D', 'E'].map((id) => ({ id })),
      { id: 'F', input: '${A} ${B} ${C} ${D} ${E}' },
    ]);
    const two = await runDesign({
      trace: traceFor(QUERY),
      design,
      backend: testBackend(server.baseUrl),
      concurrency: 2,
    });
    expectWellFormed(two);
    expect(maxOverlap(two)).toBe(2);
    const all = await runDesign({
      trace: traceFor(QUERY),
      design,
      backend: testBackend(server.baseUrl),
      concurrency: 8,
    });
    expect(maxOverlap(all)).toBe(5);
  });

  it('gives dependents a placeholder when an agent fails, and runs them', async () => {
    // Four failures: every attempt of the first call (the client tries four times).
    server.setFaults({ once: [{ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 }] });
    const design = designOf([
      { id: 'A' },
      { id: 'B', input: 'Check ${A}.' },
      { id: 'C', input: 'Finish ${B}.' },
    ]);
    const trace = await runDesign({
      trace: traceFor(QUERY, '5'),
      design,
      backend: testBackend(server.baseUrl),
    });
    expectWellFormed(trace);
    const error = eventsOf(trace, 'agent.error')[0];
    expect(error?.agentId).toBe('A');
    expect(error?.error).toMatch(/^http: .*HTTP 500/);
    const inputB = eventsOf(trace, 'agent.start').find((e) => e.agentId === 'B')?.input ?? '';
    expect(inputB).toContain(error?.placeholder ?? '<none>');
    expect(eventsOf(trace, 'agent.end').map((e) => e.agentId)).toEqual(['B', 'C']);
    expect(eventsOf(trace, 'llm.call').find((c) => c.agentId === 'A')?.error).toMatch(/^http/);
    expect(trace.execution.status).toBe('completed');
  });

  it('cancels mid-run: running calls are aborted and nothing new starts', async () => {
    server.setFaults({ latencyMs: 2_000 });
    const design = designOf([{ id: 'A' }, { id: 'B', input: 'Use ${A}.' }]);
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort(), 100);
    const trace = await runDesign({
      trace: traceFor(QUERY),
      design,
      backend: testBackend(server.baseUrl),
      signal: controller.signal,
    });
    expect(performance.now() - started).toBeLessThan(1_500);
    expectWellFormed(trace);
    expect(trace.execution.status).toBe('cancelled');
    expect(eventsOf(trace, 'agent.error')[0]?.error).toMatch(/^cancelled/);
    expect(eventsOf(trace, 'agent.start').map((e) => e.agentId)).toEqual(['A']);
    expect(trace.result.finalAnswer).toBeNull();
  });

  it('fails an agent with a budget reason when its call would cross the per-agent budget', async () => {
    const design = designOf([{ id: 'A' }, { id: 'B', input: 'Use ${A}.', params: { maxTokens: 10 } }]);
    const trace = await runDesign({
      trace: traceFor(QUERY),
      design,
      backend: testBackend(server.baseUrl),
      budget: { perAgentTokens: 400 },
    });
    expectWellFormed(trace);
    const error = eventsOf(trace, 'agent.error');
    expect(error.map((e) => e.agentId)).toEqual(['A']);
    expect(error[0]?.error).toMatch(/^budget: Not sent/);
    expect(eventsOf(trace, 'agent.note').find((n) => n.agentId === 'A')?.kind).toBe('budget');
    expect(server.requests.filter((r) => r.path.endsWith('/chat/completions'))).toHaveLength(1);
    expect(trace.execution.status).toBe('completed');
  });

  it('says a refused parallel call found the budget reserved by calls in flight, not spent', async () => {
    // Five Self-Consistency samples go out together; each reserves ~prompt + 100 tokens, so the
    // later ones are refused while the first are still in flight and nothing is spent yet.
    const design = designOf([{ id: 'A', type: 'SCAgent', params: { samples: 5, maxTokens: 100 } }]);
    const trace = await runDesign({
      trace: traceFor(QUERY),
      design,
      backend: testBackend(server.baseUrl),
      budget: { perAgentTokens: 450 },
    });
    const notes = eventsOf(trace, 'agent.note').filter((n) => n.kind === 'budget');
    expect(notes.length).toBeGreaterThan(0);
    expect(notes[0]?.text).toMatch(/budget are left \(0 spent, \d+ reserved by [1-4] calls? in flight\)\.$/);
  });

  it('refuses calls past the run token budget', async () => {
    // A needs about 130 tokens; B's long input pushes it past what is left of 300.
    const design = designOf([
      { id: 'A', params: { maxTokens: 50 } },
      { id: 'B', input: `Use \${A}. ${'Long context. '.repeat(60)}`, params: { maxTokens: 50 } },
    ]);
    const trace = await runDesign({
      trace: traceFor(QUERY),
      design,
      backend: testBackend(server.baseUrl),
      budget: { totalTokens: 300 },
    });
    expectWellFormed(trace);
    expect(eventsOf(trace, 'agent.error').map((e) => e.agentId)).toEqual(['B']);
    expect(trace.execution.status).toBe('failed');
  });

  it('turns an exception into an agent error and keeps going when a listener throws', async () => {
    const real = testBackend(server.baseUrl);
    const flaky: ChatBackend = {
      ...real,
      chat: (call) =>
        call.agent.id === 'A' ? Promise.reject(new Error('backend exploded')) : real.chat(call),
    };
    const design = designOf([{ id: 'A' }, { id: 'B', input: 'Use ${A}.' }]);
    const trace = await runDesign({
      trace: traceFor(QUERY),
      design,
      backend: flaky,
      onEvent: () => {
        throw new Error('storage full');
      },
    });
    expectWellFormed(trace);
    expect(eventsOf(trace, 'agent.error')[0]?.error).toBe('exception: backend exploded');
    expect(trace.execution.status).toBe('completed');
  });

  it('under a 20% fault rate every agent ends, with a reason when it fails, and no event is lost', async () => {
    const design = designOf([
      { id: 'root' },
      ...['p1', 'p2', 'p3', 'p4'].map((id) => ({
        id,
        type: 'SCAgent' as const,
        input: `Part ${id} of \${root}.`,
        params: { samples: 3 },
      })),
      { id: 'sink', type: 'ReflexionAgent', input: '${p1} ${p2} ${p3} ${p4}', params: { maxRounds: 1 } },
    ]);
    let failures = 0;
    for (const seed of [1, 2, 3, 4, 5]) {
      server.reset();
      server.setFaults({ rate: 0.2, seed, latencyMs: 5 });
      const seen: TraceEvent[] = [];
      const trace = await runDesign({
        trace: traceFor(QUERY, '5'),
        design,
        // Two attempts per call, so some calls fail for good.
        backend: testBackend(server.baseUrl, { retry: { maxAttempts: 2 } }),
        onEvent: (e) => seen.push(e),
      });
      expectWellFormed(trace);
      expect(seen).toEqual(trace.execution.events);
      expect(eventsOf(trace, 'agent.start')).toHaveLength(design.agents.length);
      failures += eventsOf(trace, 'llm.call').filter((c) => c.error !== undefined).length;
      const requests = server.requests.filter((r) => r.path.endsWith('/chat/completions')).length;
      expect(requests).toBeGreaterThanOrEqual(eventsOf(trace, 'llm.call').length);
    }
    expect(failures).toBeGreaterThan(0);
  });
});

describe('secrets', () => {
  const KEY = 'sk-planted-0123456789abcdef';

  it('never lets the API key into the trace, its events or error texts', async () => {
    const keyed = await startOpenAIServer({ apiKey: KEY, echoKeyInErrors: true });
    try {
      const design = designOf([{ id: 'A' }, { id: 'B', input: 'Use ${A}.' }]);
      const seen: string[] = [];
      for (const key of [KEY, `${KEY}-wrong`]) {
        const trace = await runDesign({
          trace: traceFor(QUERY),
          design,
          backend: testBackend(keyed.baseUrl, { apiKey: key }),
          secrets: [key],
          onEvent: (e, snap) => seen.push(JSON.stringify(e), JSON.stringify(snap())),
        });
        seen.push(JSON.stringify(trace));
        if (key !== KEY) expect(eventsOf(trace, 'agent.error').length).toBeGreaterThan(0);
        else expect(trace.execution.status).toBe('completed');
      }
      const all = seen.join('\n');
      expect(all).not.toContain(KEY);
      expect(all).not.toContain('0123456789abcdef');
    } finally {
      await keyed.close();
    }
  });
});

describe('streaming output', () => {
  it('reports each call’s text as it arrives, ending with exactly the recorded output', async () => {
    const design = designOf([{ id: 'a' }, { id: 'b', input: 'Check ${a}' }]);
    const seen = new Map<string, string[]>();
    const trace = await runDesign({
      trace: traceFor(QUERY),
      design,
      backend: testBackend(server.baseUrl),
      onDelta: (agentId, label, text) => {
        const list = seen.get(`${agentId}/${label}`) ?? [];
        list.push(text);
        seen.set(`${agentId}/${label}`, list);
      },
    });
    expectWellFormed(trace);
    const calls = eventsOf(trace, 'llm.call');
    expect(calls.length).toBe(2);
    for (const call of calls) {
      const texts = seen.get(`${call.agentId}/${call.label}`) ?? [];
      // The server sends small chunks, so a call streams in several pieces, each extending the last.
      expect(texts.length).toBeGreaterThan(1);
      texts.slice(1).forEach((t, i) => expect(t.startsWith(texts[i] as string)).toBe(true));
      expect(texts[texts.length - 1]).toBe(call.output);
    }
    // Without a listener the executor asks for plain completions.
    server.reset();
    await runDesign({ trace: traceFor(QUERY), design, backend: testBackend(server.baseUrl) });
    expect(server.requests.every((r) => (r.body as { stream?: boolean }).stream !== true)).toBe(true);
  });
});
