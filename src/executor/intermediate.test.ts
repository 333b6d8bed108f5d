import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { promptTokens, startOpenAIServer, type OpenAIServer } from '../../tests/server/openai-server.ts';
import { generateTask } from '../masbench/index.ts';
import type { ChatMessage, Design, Task, Trace } from '../core/trace.ts';
import {
  DEFAULT_POOL,
  applyAction,
  initialState,
  toValidDesign,
  type BuiltAgent,
  type ConstructionState,
  SUMMARIZER_PROMPT,
  type PolicyAction,
} from '../policy/index.ts';
import {
  cachingBackend,
  callKey,
  createIntermediateExecutor,
  type IntermediateResult,
  type IntermediateUsage,
} from './intermediate.ts';
import { createLlmClient, estimatePromptTokens } from './llm/index.ts';
import { remoteBackend } from './remote.ts';
import { runDesign } from './run.ts';
import { simulatedBackend } from './sim/index.ts';
import { designOf, eventsOf, testBackend, traceFor } from './test-helpers.ts';
import type { ChatCall } from './types.ts';
import { SYSTEM, solveMessages, withRole } from './agents/prompts.ts';

let server: OpenAIServer;
beforeAll(async () => {
  server = await startOpenAIServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

/** The default responder sums the integers of the last user message: 17 + 25 → \boxed{42}. */
const TASK: Task = { query: 'What is 17 + 25?', groundTruth: '42', source: { kind: 'custom' } };

/** Chat-completions requests the server has received. */
const chatRequests = (): { messages: { role: string; content: string }[]; temperature?: number }[] =>
  server.requests
    .filter((r) => r.path === '/v1/chat/completions')
    .map((r) => r.body as { messages: { role: string; content: string }[]; temperature?: number });

const role = (name: string): number => {
  const i = DEFAULT_POOL.roles.findIndex((r) => r.name === name);
  if (i < 0) throw new Error(`no role ${name}`);
  return i;
};

/** A construction as the policy's state machine applies it: the design after every action. */
function construction(actions: readonly ((ids: string[]) => PolicyAction)[]): Design[] {
  let s: ConstructionState = initialState(DEFAULT_POOL);
  const ids: string[] = [];
  return actions.map((next) => {
    const applied = applyAction(s, next(ids));
    s = applied.state;
    if (applied.record.kind === 'add') ids.push(applied.record.agentId);
    const d = toValidDesign(s);
    if (!d) throw new Error('empty design');
    return d;
  });
}

const add =
  (name: string, links: (ids: string[]) => string[] = () => []) =>
  (ids: string[]): PolicyAction => ({ kind: 'add', role: role(name), links: links(ids) });
const DELETE = (): PolicyAction => ({ kind: 'delete' });

const EXIT = (): PolicyAction => ({ kind: 'exit' });

/**
 * The design `toValidDesign` makes of Solver agents with these links (a summariser when there is
 * more than one sink), for states the state machine's DELETE never leaves (a middle agent gone).
 */
function partial(links: Record<string, string[]>): Design {
  const agents: BuiltAgent[] = Object.entries(links).map(([id, from], addedAt) => ({
    id,
    role: role('Solver'),
    type: 'CoTAgent',
    links: from,
    depth: 0,
    addedAt,
  }));
  const d = toValidDesign({ ...initialState(DEFAULT_POOL), agents, step: agents.length });
  if (!d) throw new Error('empty design');
  return d;
}

/**
 * What makes an agent's calls the same as before: the agent itself and, recursively, the agents it
 * reads (the server answers deterministically, so the same inputs give the same outputs).
 */
function signatures(d: Design): Map<string, string> {
  const sig = new Map<string, string>();
  for (const a of d.agents) {
    const ups = d.edges
      .filter((e) => e.to === a.id)
      .map((e) => sig.get(e.from) ?? '?')
      .sort();
    sig.set(a.id, JSON.stringify([a.id, a.type, a.description, a.input, a.params, ups]));
  }
  return sig;
}

const callsPerAgent = (t: Trace): Map<string, number> => {
  const m = new Map<string, number>();
  for (const e of eventsOf(t, 'llm.call')) m.set(e.agentId, (m.get(e.agentId) ?? 0) + 1);
  return m;
};

/** What a request reserves: its estimated prompt and the default completion cap (1024). */
const reservationOf = (messages: ChatMessage[]): number =>
  estimatePromptTokens(
    messages.map((m) => ({ role: m.role === 'tool' ? 'user' : m.role, content: m.content })),
  ) + 1024;

const sumUsage = (rs: readonly IntermediateResult[]): IntermediateUsage =>
  rs.reduce(
    (s, r) => ({
      runs: s.runs + r.usage.runs,
      calls: s.calls + r.usage.calls,
      cachedCalls: s.cachedCalls + r.usage.cachedCalls,
      promptTokens: s.promptTokens + r.usage.promptTokens,
      completionTokens: s.completionTokens + r.usage.completionTokens,
      costUsd: s.costUsd + r.usage.costUsd,
    }),
    { runs: 0, calls: 0, cachedCalls: 0, promptTokens: 0, completionTokens: 0, costUsd: 0 },
  );

function call(overrides: Partial<ChatCall> = {}): ChatCall {
  const agent = designOf([{ id: 'A' }]).agents[0];
  if (!agent) throw new Error('no agent');
  return {
    agent,
    label: 'answer',
    kind: 'solve',
    input: TASK.query,
    messages: solveMessages(TASK.query),
    callIndex: 0,
    signal: new AbortController().signal,
    ...overrides,
  };
}

describe('createIntermediateExecutor on a provider', () => {
  it('sends only the calls an ADD, DELETE or EXIT changed, and answers as uncached runs do', async () => {
    const designs = construction([
      add('Solver'),
      add('Consensus Solver'), // a second branch: the summariser appears
      add('Calculator', (ids) => [ids[0] as string]), // reads the solver: the summariser's input changes
      add('Verifier', (ids) => [ids[2] as string, ids[1] as string]), // one sink again: no summariser
      DELETE, // back to the design of step 2
      EXIT, // the summariser over the same sinks as step 2
    ]);
    expect(designs[1]?.agents.map((a) => a.type)).toEqual(['CoTAgent', 'SCAgent', 'SummarizerAgent']);

    // Reference: every partial design run on its own, without a cache.
    const reference: Trace[] = [];
    for (const design of designs)
      reference.push(
        await runDesign({
          trace: traceFor(TASK.query),
          design,
          task: TASK,
          backend: testBackend(server.baseUrl),
        }),
      );
    const uncachedRequests = chatRequests().length;
    expect(uncachedRequests).toBe(reference.reduce((s, t) => s + t.totals.llmCalls, 0));
    server.reset();

    const ex = createIntermediateExecutor({ backend: testBackend(server.baseUrl) });
    const seen = new Set<string>();
    const results: IntermediateResult[] = [];
    for (const [k, design] of designs.entries()) {
      const ref = reference[k] as Trace;
      const before = chatRequests().length;
      const r = await ex.run(design, TASK);
      results.push(r);
      const sent = chatRequests().length - before;
      // Expected: the calls of every agent whose signature no earlier step had.
      const perAgent = callsPerAgent(ref);
      let expected = 0;
      for (const [id, sig] of signatures(design)) {
        if (!seen.has(sig)) expected += perAgent.get(id) ?? 0;
        seen.add(sig);
      }
      expect({ step: k, sent }).toEqual({ step: k, sent: expected });
      expect(r.usage.calls).toBe(sent);
      expect(r.usage.cachedCalls).toBe(ref.totals.llmCalls - sent);
      expect(r.status).toBe('completed');
      expect(r.answer).toBe(ref.result.finalAnswer);
      expect(r.correct).toBe(ref.result.correct);
    }
    const sent = results.map((r) => r.usage.calls);
    // ADD: the new agent (and the summariser when it changed) only; DELETE and EXIT: nothing new.
    const perAgent1 = callsPerAgent(reference[1] as Trace);
    expect(sent[1]).toBe(
      (perAgent1.get(designs[1]?.agents[1]?.id ?? '') ?? 0) + (perAgent1.get('summarizer') ?? 0),
    );
    expect(sent[4]).toBe(0);
    expect(sent[5]).toBe(0);
    expect(results[4]?.usage).toMatchObject({ promptTokens: 0, completionTokens: 0, costUsd: 0 });
    expect(results[4]?.usage.cachedCalls).toBeGreaterThan(0);
    expect(sent.reduce((s, n) => s + n, 0)).toBeLessThan(uncachedRequests);
    // Totals are the sum of the runs, and the tokens are what the server counted for the requests.
    expect(ex.usage()).toEqual(sumUsage(results));
    expect(ex.usage().promptTokens).toBe(chatRequests().reduce((s, b) => s + promptTokens(b.messages), 0));
    expect(ex.cacheSize()).toBe(chatRequests().length);
  });

  it('re-sends only what a DELETE changed: agents that lost a link, and the summariser', async () => {
    const ex = createIntermediateExecutor({ backend: testBackend(server.baseUrl) });
    expect((await ex.run(partial({ a: [], b: [], c: [] }), TASK)).usage.calls).toBe(4);
    // b deleted: a and c are unchanged; the summariser now reads two sinks.
    const before = chatRequests().length;
    const withoutB = await ex.run(partial({ a: [], c: [] }), TASK);
    expect(chatRequests().length - before).toBe(1);
    expect(chatRequests().at(-1)?.messages[0]?.content).toBe(
      withRole([{ role: 'system', content: SYSTEM.summarizer }], SUMMARIZER_PROMPT, 'decide')[0]?.content,
    );
    expect(withoutB.usage).toMatchObject({ calls: 1, cachedCalls: 2 });

    // A reader of the deleted agent loses its link (and its input changes): it is re-sent too.
    server.reset();
    const ex2 = createIntermediateExecutor({ backend: testBackend(server.baseUrl) });
    expect((await ex2.run(partial({ a: [], b: ['a'], c: [] }), TASK)).usage.calls).toBe(4);
    const withoutA = await ex2.run(partial({ b: [], c: [] }), TASK);
    expect(withoutA.usage).toMatchObject({ calls: 2, cachedCalls: 1 });
    expect(
      chatRequests()
        .slice(4)
        // The archive's prompt, before the role appended to it.
        .map((b) => b.messages[0]?.content.split('\n\n')[0])
        .sort(),
    ).toEqual([SYSTEM.solver, SYSTEM.summarizer].sort());
  });

  it('shares one request between identical concurrent calls', async () => {
    server.setFaults({ latencyMs: 80 });
    const design = construction([add('Solver'), add('Calculator')])[1] as Design;
    const ex = createIntermediateExecutor({ backend: testBackend(server.baseUrl) });
    const [a, b] = await Promise.all([ex.run(design, TASK), ex.run(design, TASK)]);
    // Three calls per run (two agents and the summariser), each sent once.
    expect(chatRequests()).toHaveLength(3);
    expect(a?.usage.calls + (b?.usage.calls ?? 0)).toBe(3);
    expect((a?.usage.cachedCalls ?? 0) + (b?.usage.cachedCalls ?? 0)).toBe(3);
    expect(a?.answer).toBe(b?.answer);

    // The same through cachingBackend: one fresh reply, one shared.
    server.reset();
    server.setFaults({ latencyMs: 80 });
    const seen: boolean[] = [];
    const cached = cachingBackend(testBackend(server.baseUrl), (_r, hit) => seen.push(hit));
    const [x, y] = await Promise.all([cached.chat(call()), cached.chat(call())]);
    expect(chatRequests()).toHaveLength(1);
    expect(x?.ok && y?.ok && x.output === y.output).toBe(true);
    expect(seen.sort()).toEqual([false, true]);
    expect(y?.ok ? y.promptTokens + x.promptTokens : -1).toBe(
      promptTokens(chatRequests()[0]?.messages ?? []),
    );

    // A caller cancelled while it waits does not wait for the other's request.
    server.reset();
    server.setFaults({ latencyMs: 300 });
    const fresh = cachingBackend(testBackend(server.baseUrl));
    const abort = new AbortController();
    const first = fresh.chat(call());
    const second = fresh.chat(call({ signal: abort.signal }));
    setTimeout(() => abort.abort(), 20);
    const t0 = performance.now();
    const waited = await second;
    expect(performance.now() - t0).toBeLessThan(250);
    expect(waited).toMatchObject({ ok: false, kind: 'aborted' });
    expect((await first).ok).toBe(true);
    expect(chatRequests()).toHaveLength(1);
  });

  it('does not cache failed replies: a later run sends the call again and succeeds', async () => {
    const backend = testBackend(server.baseUrl, { retry: { maxAttempts: 1 } });
    const ex = createIntermediateExecutor({ backend });
    const [one, two] = construction([add('Solver'), add('Calculator')]);
    server.setFaults({ once: [{ status: 500 }] });
    const failed = await ex.run(one as Design, TASK);
    expect(failed).toMatchObject({
      status: 'failed',
      answer: null,
      correct: null,
      usage: { runs: 1, calls: 1 },
    });
    expect(failed.problem).toMatch(/http/);
    expect(ex.cacheSize()).toBe(0);
    const later = await ex.run(two as Design, TASK);
    // The solver's call again, the calculator's and the summariser's: nothing came from the cache.
    expect(later).toMatchObject({ status: 'completed', correct: expect.any(Boolean) as unknown });
    expect(later.usage).toMatchObject({ calls: 3, cachedCalls: 0 });
    expect(chatRequests()).toHaveLength(4);
    expect(ex.cacheSize()).toBe(3);
  });

  it('shares one token budget: skips runs once it is spent, replays free runs from the cache', async () => {
    const designs = construction([
      add('Solver'),
      add('Calculator'),
      add('Critic', (ids) => [ids[0] as string]),
      DELETE,
      DELETE, // the solver alone: everything cached
      EXIT, // needs the summariser: a request
    ]);
    // The first call's reservation (estimated prompt + the default completion cap) and what it spends.
    const solver = designs[0]?.agents[0]?.description ?? '';
    const reserve = reservationOf(withRole(solveMessages(TASK.query), solver, 'solve'));
    const probe = createIntermediateExecutor({ backend: testBackend(server.baseUrl) });
    const first = (await probe.run(designs[0] as Design, TASK)).usage;
    const limit = reserve + first.promptTokens + first.completionTokens + 5;
    server.reset();

    const ex = createIntermediateExecutor({
      backend: testBackend(server.baseUrl),
      budget: { totalTokens: limit },
    });
    const results: IntermediateResult[] = [];
    const requests: number[] = [];
    for (const d of designs) {
      const before = chatRequests().length;
      results.push(await ex.run(d, TASK));
      requests.push(chatRequests().length - before);
    }
    expect(results.map((r) => r.status)).toEqual([
      'completed',
      'failed',
      'skipped',
      'skipped',
      'completed',
      'skipped',
    ]);
    // Step 1: the calculator fits, the summariser does not; the run stops there.
    expect(results[1]?.problem).toMatch(/budget \(\d+ tokens\) ran out/);
    expect(requests).toEqual([1, 1, 0, 0, 0, 0]);
    for (const r of [results[2], results[3], results[5]]) {
      expect(r).toMatchObject({ answer: null, correct: null, usage: { runs: 0, calls: 0 } });
      expect(r?.problem).toMatch(
        new RegExp(`not run: no room left in the construction's budget \\(${limit} tokens\\)`),
      );
    }
    // The solver alone after the budget ran out: from the cache, free, and graded.
    expect(results[4]).toMatchObject({
      correct: true,
      usage: { runs: 1, calls: 0, cachedCalls: 1, promptTokens: 0 },
    });
    const total = ex.usage();
    expect(total).toEqual(sumUsage(results));
    expect(total.runs).toBe(3);
    expect(total.promptTokens + total.completionTokens).toBeLessThanOrEqual(limit);
    expect(ex.remaining().tokens).toBe(limit - total.promptTokens - total.completionTokens);
  });

  it('waits for requests in flight rather than refusing on their reservations', async () => {
    server.setFaults({ latencyMs: 50 });
    // Three samples reserve their worst case at once; the limit holds two of them, plus a little.
    const design = designOf([{ id: 'S', type: 'SCAgent', params: { samples: 3 } }]);
    const sampler = design.agents[0]?.description ?? '';
    const reserve = reservationOf(withRole(solveMessages(TASK.query), sampler, 'solve'));
    const ex = createIntermediateExecutor({
      backend: testBackend(server.baseUrl),
      budget: { totalTokens: 2 * reserve + 50 },
    });
    const r = await ex.run(design, TASK);
    expect(r).toMatchObject({ status: 'completed', usage: { calls: 3 } });
    expect(chatRequests()).toHaveLength(3);
    // The third request went out only after one of the first two had come back.
    const arrivals = server.requests.map((q) => q.receivedAt).sort((a, b) => a - b);
    expect((arrivals[2] ?? 0) - (arrivals[0] ?? 0)).toBeGreaterThanOrEqual(40);
  });

  it('counts USD only for requests, and refuses a model without a price under a USD limit', async () => {
    const prices = { 'test-model': { inputPerMTok: 1000, outputPerMTok: 2000 } };
    const client = createLlmClient({ baseUrl: server.baseUrl, prices, sleep: async () => undefined });
    const priced = remoteBackend(client, 'test-model', prices, { baseUrl: server.baseUrl });
    const [one, two] = construction([add('Solver'), add('Calculator')]);
    const ex = createIntermediateExecutor({ backend: priced, budget: { totalUsd: 10 } });
    const a = await ex.run(one as Design, TASK);
    const b = await ex.run(two as Design, TASK);
    const c = await ex.run(two as Design, TASK);
    const usd = (u: IntermediateUsage) => (u.promptTokens * 1000 + u.completionTokens * 2000) / 1e6;
    expect(a.usage.costUsd).toBeCloseTo(usd(a.usage), 12);
    expect(b.usage.costUsd).toBeCloseTo(usd(b.usage), 12);
    expect(c.usage).toMatchObject({ calls: 0, cachedCalls: 3, costUsd: 0 });
    expect(ex.usage().costUsd).toBeCloseTo(a.usage.costUsd + b.usage.costUsd, 12);
    expect(ex.remaining().usd).toBeCloseTo(10 - ex.usage().costUsd, 12);

    const unpriced = createIntermediateExecutor({
      backend: testBackend(server.baseUrl),
      budget: { totalUsd: 10 },
    });
    server.reset();
    const refused = await unpriced.run(one as Design, TASK);
    expect(refused.status).toBe('skipped');
    expect(refused.problem).toMatch(/no price is known for model "test-model"/);
    expect(chatRequests()).toHaveLength(0);
  });

  it('keeps the samples of an SC agent apart: identical messages, different call indexes', async () => {
    const design = designOf([{ id: 'S', type: 'SCAgent', params: { samples: 3 } }]);
    const ex = createIntermediateExecutor({ backend: testBackend(server.baseUrl) });
    const first = await ex.run(design, TASK);
    const bodies = chatRequests();
    expect(bodies).toHaveLength(3);
    expect(new Set(bodies.map((b) => JSON.stringify(b.messages))).size).toBe(1);
    expect(first.usage).toMatchObject({ calls: 3, cachedCalls: 0 });
    expect(ex.cacheSize()).toBe(3);
    const again = await ex.run(design, TASK);
    expect(again.usage).toMatchObject({ calls: 0, cachedCalls: 3 });
    expect(again.answer).toBe(first.answer);
    // The key tells samples apart by their index even when everything else is the same.
    expect(callKey(call({ callIndex: 0 }), 'm')).not.toBe(callKey(call({ callIndex: 1 }), 'm'));
    expect(callKey(call({ temperature: 0.8 }), 'm')).not.toBe(callKey(call(), 'm'));
    expect(callKey(call(), 'm')).not.toBe(callKey(call(), 'other-model'));
    expect(callKey(call(), 'm')).toBe(callKey(call({ signal: new AbortController().signal }), 'm'));
  });

  it('stops at once when cancelled', async () => {
    const abort = new AbortController();
    abort.abort();
    const ex = createIntermediateExecutor({ backend: testBackend(server.baseUrl), signal: abort.signal });
    const r = await ex.run(designOf([{ id: 'A' }]), TASK);
    expect(r).toMatchObject({
      status: 'cancelled',
      answer: null,
      correct: null,
      usage: { runs: 0, calls: 0 },
    });
    expect(chatRequests()).toHaveLength(0);
  });
});

describe('createIntermediateExecutor on the simulator', () => {
  it('does not cache by default: every run re-simulates every call', async () => {
    const mb = generateTask({ axis: 'depth', value: 3, seed: 2 });
    const task: Task = { query: mb.question, groundTruth: mb.answers.join(', '), source: { kind: 'custom' } };
    const design = construction([add('Solver'), add('Calculator')])[1] as Design;
    const ex = createIntermediateExecutor({ backend: simulatedBackend(mb, 1) });
    const a = await ex.run(design, task);
    const b = await ex.run(design, task);
    expect(a.status).toBe('completed');
    expect(a.usage.calls).toBe(3);
    expect(b.usage).toEqual(a.usage);
    expect(ex.cacheSize()).toBe(0);
    expect(ex.usage().cachedCalls).toBe(0);
    // Asked for, the cache works on the simulator too.
    const cached = createIntermediateExecutor({ backend: simulatedBackend(mb, 1), cache: true });
    await cached.run(design, task);
    expect((await cached.run(design, task)).usage).toMatchObject({ calls: 0, cachedCalls: 3 });
  });
});

describe('secrets', () => {
  it('removes the secrets from answers and problems', async () => {
    const key = `sk-fake-${randomUUID()}`;
    // A second secret the client does not know about: only the executor can remove it.
    const other = `org-fake-${randomUUID()}`;
    const echo = await startOpenAIServer({
      apiKey: key,
      echoKeyInErrors: true,
      // A provider that repeats secrets in its reply.
      responder: () => `The key was ${key}, the organisation ${other}. \\boxed{42}`,
    });
    try {
      const design = designOf([{ id: 'A' }]);
      const ok = createIntermediateExecutor({
        backend: testBackend(echo.baseUrl, { apiKey: key }),
        secrets: [key, other],
      });
      const r = await ok.run(design, TASK);
      expect(r).toMatchObject({ status: 'completed', correct: true });
      expect(r.answer).toMatch(/The key was \[redacted\], the organisation \[redacted\]/);
      expect(JSON.stringify(r)).not.toContain(key);
      expect(JSON.stringify(r)).not.toContain(other);

      // A wrong key, echoed back in the 401 body.
      const wrong = `${key}-wrong`;
      const bad = createIntermediateExecutor({
        backend: testBackend(echo.baseUrl, { apiKey: wrong, retry: { maxAttempts: 1 } }),
        secrets: [wrong],
      });
      const f = await bad.run(design, TASK);
      expect(f.status).toBe('failed');
      expect(f.problem).toMatch(/http/);
      expect(JSON.stringify(f)).not.toContain(key.slice(8));
    } finally {
      await echo.close();
    }
  });
});
