import { describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../../../tests/server/openai-server.ts';
import { generateTask, taskOfMasbench } from '../../masbench/index.ts';
import { applyAction, initialState } from '../../policy/construction.ts';
import { recomputeLogProb } from '../../policy/check.ts';
import { randomCheckpoint } from '../../policy/network.ts';
import { DEFAULT_POOL } from '../../policy/roles.ts';
import {
  actionLabel,
  checkpointFromText,
  loadPolicy,
  memoryCheckpoints,
  intermediateExecutorFor,
  type PolicyRuntime,
} from './policy.ts';

async function prior(): Promise<PolicyRuntime> {
  const r = await loadPolicy({ kind: 'prior' }, { storage: memoryCheckpoints(), prefer: 'cpu' });
  if (!r.ok) throw new Error(r.errors[0]?.message);
  return r.value;
}

/** Chat-completion requests the server received. */
function chats(server: OpenAIServer): number {
  return server.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/chat/completions')).length;
}

function fail(why: string): never {
  throw new Error(why);
}

describe('policy service', () => {
  it('loads prior and random policies on the CPU, and reports a missing checkpoint', async () => {
    const p = await prior();
    expect(p.name).toBe('prior');
    expect(p.backend).toBe('cpu');
    const r = await loadPolicy({ kind: 'random', seed: 3 }, { storage: memoryCheckpoints(), prefer: 'cpu' });
    expect(r.ok && r.value.name).toBe('random:3');
    const missing = await loadPolicy(
      { kind: 'checkpoint', name: 'nope' },
      { storage: memoryCheckpoints(), prefer: 'cpu' },
    );
    expect(missing.ok).toBe(false);
  });

  it('previews exactly what a step with the same pick then takes', async () => {
    const p = await prior();
    const task = taskOfMasbench(generateTask({ axis: 'depth', value: 6, seed: 2 }));
    const enc = p.encode(task.query);
    let state = initialState(p.pool, { maxAgents: p.maxAgents, maxSteps: p.maxSteps });
    state = applyAction(state, { kind: 'add', role: 0, links: [] }).state;
    state = applyAction(state, { kind: 'add', role: 2, links: ['decomposer-1'] }).state;
    for (const seed of [0, 1, 2, 3, 4]) {
      const pv = await p.preview(enc, state, { seed, temperature: 1, role: 2 });
      expect(pv.role).toBe(2);
      expect(pv.edges.map((e) => e.from)).toEqual(['decomposer-1', 'solver-2']);
      expect(pv.distribution.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
      const out = await p.step(enc, state, { seed, temperature: 1 }, { action: 2 });
      expect(out.step.action.kind === 'add' && out.step.action.links).toEqual(pv.sampledLinks);
      expect(out.step.edgeProbabilities).toEqual(pv.edges);
      expect(out.step.roleDistribution.map((d) => d.p)).toEqual(pv.distribution);
      expect(recomputeLogProb(out.step)).toBeCloseTo(out.step.logProb as number, 9);
      expect(out.ms).toBeGreaterThanOrEqual(0);
    }
    const greedy = await p.preview(enc, state, { seed: 0, temperature: 1, role: 2 });
    const g = await p.step(enc, state, { seed: 0, temperature: 1, greedy: true }, { action: 2 });
    expect(g.step.action.kind === 'add' && g.step.action.links).toEqual(greedy.greedyLinks);
  });

  it('previews the most probable role when nothing is picked, and no edges after EXIT', async () => {
    const p = await prior();
    const enc = p.encode('What is 2 + 2?');
    const s0 = initialState(p.pool, { maxAgents: p.maxAgents, maxSteps: p.maxSteps });
    const pv = await p.preview(enc, s0, { seed: 0, temperature: 1, role: null });
    const roles = p.pool.roles.length;
    const best = pv.distribution.slice(0, roles).indexOf(Math.max(...pv.distribution.slice(0, roles)));
    expect(pv.role).toBe(best);
    expect(pv.edges).toEqual([]);
    const s1 = applyAction(s0, { kind: 'add', role: 2, links: [] }).state;
    const done = applyAction(s1, { kind: 'exit' }).state;
    const after = await p.preview(enc, done, { seed: 0, temperature: 1, role: null });
    expect(after.role).toBeNull();
    expect(after.distribution.every((x) => x === 0)).toBe(true);
  });

  it('accepts a checkpoint for the default pool and refuses other pools and broken files', () => {
    expect(checkpointFromText(JSON.stringify(randomCheckpoint(DEFAULT_POOL, 1))).ok).toBe(true);
    const other = randomCheckpoint({ version: 'x', roles: [DEFAULT_POOL.roles[0]!] }, 1);
    const r = checkpointFromText(JSON.stringify(other));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]?.message).toMatch(/made for roles/);
    const broken = checkpointFromText('{"format":"baton.policy/1"}');
    expect(broken.ok).toBe(false);
    if (!broken.ok) expect(broken.errors.every((e) => e.code === 'E_POLICY_FILE')).toBe(true);
  });

  it('keeps checkpoints in storage and parses them again when read', async () => {
    const store = memoryCheckpoints();
    const cp = { ...randomCheckpoint(DEFAULT_POOL, 2), name: 'mine' };
    expect((await store.save(cp)).ok).toBe(true);
    const list = await store.list();
    expect(list.ok && list.value).toEqual(['mine']);
    const back = await store.load('mine');
    expect(back.ok && back.value.params['node.b2']).toEqual(cp.params['node.b2']);
    await store.remove('mine');
    expect((await store.load('mine')).ok).toBe(false);
  });

  it('runs a partial design on the simulator and grades it', async () => {
    const mb = generateTask({ axis: 'depth', value: 2, seed: 5 });
    const task = taskOfMasbench(mb);
    let state = initialState(DEFAULT_POOL);
    state = applyAction(state, { kind: 'add', role: 2, links: [] }).state;
    const { toValidDesign } = await import('../../policy/construction.ts');
    const design = toValidDesign(state);
    if (!design) throw new Error('no design');
    const ex = intermediateExecutorFor({ kind: 'simulated', task: mb, seed: 0 });
    const r = await ex.run(design, task);
    expect(r.status).toBe('completed');
    expect(typeof r.correct).toBe('boolean');
    expect(r.answer).not.toBeNull();
    // The simulator is free and not cached: a second run makes its calls again.
    const again = await ex.run(design, task);
    expect(again.usage.cachedCalls).toBe(0);
    expect(again.usage.calls).toBe(r.usage.calls);
    expect(ex.cacheSize()).toBe(0);
  });

  it('runs partial designs on a provider, paying only for the calls a step changed', async () => {
    const server = await startOpenAIServer({ responder: () => 'Working. \\boxed{42}' });
    try {
      const key = `sk-test-${Math.random().toString(36).slice(2)}`;
      const ex = intermediateExecutorFor({
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
      const { toValidDesign } = await import('../../policy/construction.ts');
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

  it('names actions in head order', () => {
    expect(actionLabel(DEFAULT_POOL, 0)).toBe('Decomposer');
    expect(actionLabel(DEFAULT_POOL, DEFAULT_POOL.roles.length)).toBe('DELETE');
    expect(actionLabel(DEFAULT_POOL, DEFAULT_POOL.roles.length + 1)).toBe('EXIT');
  });
});
