import { describe, expect, it } from 'vitest';
import { generateTask, taskOfMasbench } from '../../masbench/index.ts';
import { applyAction, initialState, recomputeLogProb } from '../../policy/index.ts';
import { memoryCheckpoints } from './policy-checkpoints.ts';
import { loadPolicy, type PolicyRuntime } from './policy-runtime.ts';

async function prior(): Promise<PolicyRuntime> {
  const r = await loadPolicy({ kind: 'prior' }, { storage: memoryCheckpoints(), prefer: 'cpu' });
  if (!r.ok) throw new Error(r.errors[0]?.message);
  return r.value;
}

describe('policy runtime', () => {
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
});
