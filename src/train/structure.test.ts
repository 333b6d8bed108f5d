import { describe, expect, it } from 'vitest';
import type { BackendChoice } from '../gpu/index.ts';
import { DEFAULT_POOL, PolicyNetwork, priorCheckpoint, randomCheckpoint } from '../policy/index.ts';
import { trainConfig } from './config.ts';
import { evaluatePolicy } from './evaluate.ts';
import { designDepth } from './metrics.ts';
import type { RunnersFor } from './rollout.ts';
import { compareStructure, heldOutRollouts, structureMarkdown, structureOf } from './structure.ts';

const cpu: BackendChoice = { backend: 'cpu', reason: 'test', adapter: null, ctx: null };
// Stand-in executor: a design with a Verifier answers robustness tasks; two or more agents answer the rest.
const runners: RunnersFor = (task) => ({
  intermediate: () => Promise.resolve({ answer: 'x', correct: null }),
  final: (trace) => {
    const d = trace.design;
    const ok =
      task.axis === 'robustness' ? d.agents.some((a) => a.role === 'Verifier') : d.agents.length >= 2;
    return Promise.resolve({ correct: ok, tokens: 500 * d.agents.length });
  },
});
const config = trainConfig({ preset: 'mixed' });

async function table(name: 'prior' | 'random') {
  const cp = name === 'prior' ? priorCheckpoint(DEFAULT_POOL) : randomCheckpoint(DEFAULT_POOL, 2);
  const net = await PolicyNetwork.create(cp, cpu);
  try {
    const o = { net, pool: DEFAULT_POOL, config, runners, n: 24, seed: 5, greedy: true };
    const rows = await heldOutRollouts(o);
    return {
      rows,
      eval: await evaluatePolicy(o),
      t: structureOf(rows, DEFAULT_POOL, { policy: name, preset: 'mixed', greedy: true }),
    };
  } finally {
    net.dispose();
  }
}

describe('structure', () => {
  it('scores the same tasks as evaluatePolicy and agrees with it on accuracy and tokens', async () => {
    const { rows, eval: e, t } = await table('prior');
    expect(rows).toHaveLength(24);
    expect(t.overall.n).toBe(24);
    expect(t.overall.accuracy).toBeCloseTo(e.accuracy, 12);
    expect(t.overall.tokens).toBeCloseTo(e.tokens, 9);
    expect(t.overall.agents).toBeCloseTo(e.agents, 12);
    for (const [axis, s] of Object.entries(e.perAxis)) {
      expect(t.perAxis[axis]?.n).toBe(s.n);
      expect(t.perAxis[axis]?.accuracy).toBeCloseTo(s.accuracy, 12);
    }
  });

  it('counts roles, depth and per-value groups from the designs themselves', async () => {
    const { rows, t } = await table('prior');
    const robust = rows.filter((r) => r.task.axis === 'robustness');
    const withVerifier = robust.filter((r) =>
      r.rollout.design.agents.some((a) => a.role === 'Verifier'),
    ).length;
    expect(t.perAxis.robustness?.roleUse.Verifier).toBeCloseTo(withVerifier / robust.length, 12);
    const depth = rows.reduce((a, r) => a + designDepth(r.rollout.design), 0) / rows.length;
    expect(t.overall.depth).toBeCloseTo(depth, 12);
    for (const ax of Object.values(t.perAxis)) {
      const sum = Object.values(ax.perValue).reduce((a, v) => a + v.n, 0);
      expect(sum).toBe(ax.n);
    }
    const shares = Object.values(t.overall.roleShare).reduce((a, b) => a + b, 0);
    expect(shares).toBeCloseTo(1, 9);
  });

  it('compares two policies axis by axis and prints before → after', async () => {
    const before = (await table('random')).t;
    const after = (await table('prior')).t;
    const c = compareStructure(before, after);
    expect(Object.keys(c.perAxis).sort()).toEqual(Object.keys(before.perAxis).sort());
    expect(c.overall.delta.agents).toBeCloseTo(after.overall.agents - before.overall.agents, 12);
    expect(c.overall.delta.accuracy).toBeCloseTo(after.overall.accuracy - before.overall.accuracy, 12);
    const md = structureMarkdown(before, after);
    expect(md.split('\n')).toHaveLength(2 + Object.keys(before.perAxis).length + 1);
    expect(md).toContain(`${before.overall.agents.toFixed(2)} → ${after.overall.agents.toFixed(2)}`);
  });
});
