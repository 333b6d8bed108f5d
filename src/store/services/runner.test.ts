import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../../../tests/server/openai-server.ts';
import { minimalTrace } from '../../core/trace-builders.ts';
import type { Trace } from '../../core/trace.ts';
import { generateTask, taskOfMasbench } from '../../masbench/index.ts';
import { applyAction, initialState, toValidDesign, DEFAULT_POOL } from '../../policy/index.ts';
import { configureKeys, memoryKeyStore } from './keys.ts';
import {
  activeRunMarker,
  createThrottle,
  executeRun,
  intermediateExecutorFor,
  markActiveRun,
  testConnection,
  type Clock,
} from './runner.ts';

const KEY = 'sk-test-PLANTED-0123456789abcdef';

/** A clock the test moves by hand; timers fire when time passes them. */
function fakeClock(): Clock & { advance(ms: number): void } {
  let t = 0;
  let timers: { at: number; fn: () => void; id: number }[] = [];
  let next = 1;
  return {
    now: () => t,
    setTimeout: (fn, ms) => {
      const id = next++;
      timers.push({ at: t + ms, fn, id });
      return id;
    },
    clearTimeout: (h) => {
      timers = timers.filter((x) => x.id !== h);
    },
    advance(ms) {
      t += ms;
      const due = timers.filter((x) => x.at <= t);
      timers = timers.filter((x) => x.at > t);
      for (const x of due) x.fn();
    },
  };
}

const chainTrace = (): Trace => ({
  ...minimalTrace({
    query: 'Add 2 and 3.',
    groundTruth: '5',
    createdAt: new Date().toISOString(),
    id: 'run-test',
  }),
  design: {
    dom: 'high',
    agents: [
      { id: 'a', type: 'CoTAgent', description: 'first', input: '', params: {} },
      { id: 'b', type: 'CoTAgent', description: 'second', input: '${a}', params: {} },
    ],
    edges: [{ from: 'a', to: 'b' }],
  },
});

let server: OpenAIServer;
beforeAll(async () => {
  server = await startOpenAIServer({ apiKey: KEY, echoKeyInErrors: true });
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => server.reset());

describe('createThrottle', () => {
  it('runs at once, then at most once per interval, keeping the last request', () => {
    const clock = fakeClock();
    let runs = 0;
    const t = createThrottle(() => (runs += 1), 250, clock);
    t.request();
    expect(runs).toBe(1);
    t.request();
    t.request();
    expect(runs).toBe(1);
    clock.advance(249);
    expect(runs).toBe(1);
    clock.advance(1);
    expect(runs).toBe(2);
    t.flush();
    expect(runs).toBe(3);
    t.request();
    t.cancel();
    clock.advance(1000);
    expect(runs).toBe(3);
  });
});

describe('testConnection', () => {
  it('lists the models with the right key', async () => {
    const r = await testConnection({ baseUrl: server.baseUrl, apiKey: KEY });
    expect(r).toEqual({ ok: true, models: ['baton-test-echo', 'baton-test-mini'] });
  });

  it('says why a wrong key failed, without repeating the key the server echoed', async () => {
    const wrong = 'sk-wrong-PLANTED-9999999999';
    const r = await testConnection({ baseUrl: server.baseUrl, apiKey: wrong });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.message).toContain('401');
      expect(r.message).not.toContain(wrong);
    }
  });
});

describe('executeRun', () => {
  it('saves the trace at the start, on every agent end and at the finish; the key is in none of them', async () => {
    server.setFaults({ latencyMs: 20 });
    const saved: Trace[] = [];
    const seen: string[] = [];
    const final = await executeRun({
      trace: chainTrace(),
      backend: {
        kind: 'remote',
        provider: 'custom',
        baseUrl: server.baseUrl,
        model: 'baton-test-echo',
        apiKey: KEY,
        prices: {},
      },
      budget: {},
      concurrency: 2,
      signal: new AbortController().signal,
      onEvent: (e) => seen.push(e.type),
      save: async (t) => {
        saved.push(t);
      },
    });
    expect(final.execution.status).toBe('completed');
    expect(seen).not.toContain('run.end');
    expect(saved[0]?.execution.events).toHaveLength(0);
    expect(saved.at(-1)).toBe(final);
    // One save per agent end at least, whatever the throttle skipped.
    const ends = saved.filter((t) => t.execution.events.at(-1)?.type === 'agent.end');
    expect(ends.length).toBeGreaterThanOrEqual(2);
    for (const t of saved.slice(1, -1)) expect(t.execution.status).toBe('running');
    expect(JSON.stringify(saved)).not.toContain(KEY);
    expect(server.requests.some((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
  });

  it('redacts the key when a failing call echoes it, and ends every agent', async () => {
    const saved: Trace[] = [];
    const final = await executeRun({
      trace: chainTrace(),
      backend: {
        kind: 'remote',
        provider: 'custom',
        baseUrl: server.baseUrl,
        model: 'm',
        apiKey: `${KEY}-wrong`,
        prices: {},
      },
      budget: {},
      concurrency: 1,
      signal: new AbortController().signal,
      save: async (t) => {
        saved.push(t);
      },
    });
    expect(final.execution.status).toBe('failed');
    const errors = final.execution.events.filter((e) => e.type === 'agent.error');
    expect(errors.map((e) => e.agentId)).toEqual(['a', 'b']);
    expect(JSON.stringify(saved)).not.toContain(KEY);
  });

  it('stops when the signal aborts: the run ends cancelled', async () => {
    server.setFaults({ latencyMs: 2_000 });
    const controller = new AbortController();
    const run = executeRun({
      trace: chainTrace(),
      backend: {
        kind: 'remote',
        provider: 'custom',
        baseUrl: server.baseUrl,
        model: 'm',
        apiKey: KEY,
        prices: {},
      },
      budget: {},
      concurrency: 1,
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === 'agent.start') setTimeout(() => controller.abort(), 50);
      },
      save: async () => undefined,
    });
    const final = await run;
    expect(final.execution.status).toBe('cancelled');
    expect(final.execution.events.some((e) => e.type === 'agent.error' && e.agentId === 'a')).toBe(true);
  });
});

describe('intermediateExecutorFor', () => {
  it('runs a partial design on the simulator and grades it', async () => {
    const mb = generateTask({ axis: 'depth', value: 2, seed: 5 });
    const task = taskOfMasbench(mb);
    let state = initialState(DEFAULT_POOL);
    state = applyAction(state, { kind: 'add', role: 2, links: [] }).state;
    const design = toValidDesign(state);
    if (!design) throw new Error('no design');
    const { executor: ex, runner } = intermediateExecutorFor({ kind: 'simulated', task: mb, seed: 0 });
    const r = await ex.run(design, task);
    expect(r.status).toBe('completed');
    expect(typeof r.correct).toBe('boolean');
    expect(r.answer).not.toBeNull();
    // The simulator is free and not cached: a second run makes its calls again.
    const again = await ex.run(design, task);
    expect(again.usage.cachedCalls).toBe(0);
    expect(again.usage.calls).toBe(r.usage.calls);
    expect(ex.cacheSize()).toBe(0);
    // The episode's runner gives the same answer, with the run record a step keeps.
    const step = await runner(design, task);
    expect(step).toMatchObject({ answer: r.answer, correct: r.correct });
    expect(step.run).toMatchObject({ backend: 'simulated', status: 'completed', calls: r.usage.calls });
    expect(step.run).not.toHaveProperty('runs');
  });
  it('runs partial designs on a provider, paying only for the calls a step changed', async () => {
    const server = await startOpenAIServer({ responder: () => 'Working. \\boxed{42}' });
    try {
      const key = `sk-test-${Math.random().toString(36).slice(2)}`;
      const { executor: ex } = intermediateExecutorFor({
        kind: 'remote',
        backend: {
          kind: 'remote',
          provider: 'custom',
          baseUrl: server.baseUrl,
          model: 'm',
          apiKey: key,
          prices: {},
        },
        budget: { totalTokens: 100_000 },
        concurrency: 2,
      });
      const task = { query: 'What is 6 * 7?', groundTruth: '42', source: { kind: 'custom' as const } };
      let state = initialState(DEFAULT_POOL);
      state = applyAction(state, { kind: 'add', role: 2, links: [] }).state;
      const first = await ex.run(toValidDesign(state) ?? fail('no design'), task);
      expect(first.status).toBe('completed');
      expect(first.correct).toBe(true);
      const sentFirst = chats(server);
      expect(first.usage.calls).toBe(sentFirst);
      state = applyAction(state, { kind: 'add', role: 3, links: [state.agents[0]?.id ?? ''] }).state;
      const second = await ex.run(toValidDesign(state) ?? fail('no design'), task);
      // The Solver's call is answered from the cache; the Calculator and the summariser are new.
      expect(second.usage.cachedCalls).toBeGreaterThanOrEqual(1);
      expect(chats(server) - sentFirst).toBe(second.usage.calls);
      expect(JSON.stringify([first, second])).not.toContain(key);
      expect(ex.usage().calls).toBe(first.usage.calls + second.usage.calls);
    } finally {
      await server.close();
    }
  });
});

/** Chat-completion requests the server received. */
function chats(server: OpenAIServer): number {
  return server.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/chat/completions')).length;
}

function fail(why: string): never {
  throw new Error(why);
}

describe('active-run marker', () => {
  it('is kept per tab and cleared', () => {
    const session = memoryKeyStore();
    const previous = configureKeys({ session, local: memoryKeyStore() });
    try {
      markActiveRun('t-1');
      expect(activeRunMarker()).toBe('t-1');
      expect(Object.keys(session.dump())).toEqual(['baton.run.active']);
      markActiveRun(null);
      expect(activeRunMarker()).toBeNull();
    } finally {
      configureKeys(previous);
    }
  });
});
