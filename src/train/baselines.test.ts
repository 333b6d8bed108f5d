import { describe, expect, it } from 'vitest';
import type { BackendChoice } from '../gpu/index.ts';
import { DEFAULT_POOL, priorCheckpoint, randomCheckpoint } from '../policy/index.ts';
import { baselinesMarkdown, presetBaselines } from './baselines.ts';
import type { RunnersFor } from './rollout.ts';

const cpu: BackendChoice = { backend: 'cpu', reason: 'test', adapter: null, ctx: null };
// Right when the design has at least two agents, except on a coin flip by the sampling seed.
const runners: RunnersFor = (_task, seed) => ({
  intermediate: () => Promise.resolve({ answer: 'x', correct: null }),
  final: (trace) =>
    Promise.resolve({
      correct: trace.design.agents.length >= 2 && seed % 2 === 0,
      tokens: 300 * trace.design.agents.length,
    }),
});

describe('presetBaselines', () => {
  it('scores each policy greedily and the best-of-G ceiling on the same held-out tasks', async () => {
    const rows = await presetBaselines({
      pool: DEFAULT_POOL,
      choice: cpu,
      runners,
      presets: ['depth', 'robustness'],
      n: 12,
      seed: 4,
      policies: [
        { name: 'prior', checkpoint: priorCheckpoint(DEFAULT_POOL) },
        { name: 'random:1', checkpoint: randomCheckpoint(DEFAULT_POOL, 1) },
      ],
      ceiling: { name: 'prior', checkpoint: priorCheckpoint(DEFAULT_POOL), groupSize: 4 },
    });
    expect(rows.map((r) => r.preset)).toEqual(['depth', 'robustness']);
    for (const r of rows) {
      expect(r.policies.map((p) => p.policy)).toEqual(['prior', 'random:1']);
      expect(r.bestOfG.n).toBe(12);
      expect(r.bestOfG.groupSize).toBe(4);
      const prior = r.policies[0];
      if (!prior) throw new Error('no prior row');
      // Picking the best of 4 by reward is never worse than one sample's expectation here: the coin
      // flip alone rights about half of the greedy prior's tasks, best-of-4 nearly all.
      expect(r.bestOfG.accuracy).toBeGreaterThanOrEqual(prior.accuracy);
      expect(r.bestOfG.interval[0]).toBeLessThanOrEqual(r.bestOfG.accuracy);
    }
    const md = baselinesMarkdown(rows);
    expect(md.split('\n')).toHaveLength(2 + 2 * 3);
    expect(md).toContain('best-of-4 prior');
  });
});
