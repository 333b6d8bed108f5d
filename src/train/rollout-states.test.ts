/** Rollouts carry the state before each step, which the learner packs instead of replaying. */
import { describe, expect, it } from 'vitest';
import type { BackendChoice } from '../gpu/index.ts';
import { BatchedPolicy, DEFAULT_POOL, PolicyNetwork, randomCheckpoint, replay } from '../policy/index.ts';
import { trainConfig } from './config.ts';
import { PRESET_TABLE, drawTasks } from './presets.ts';
import { rollout, type Rollout, type RunnersFor } from './rollout.ts';
import { rolloutMany } from './rollout-batch.ts';

const cpu: BackendChoice = { backend: 'cpu', reason: 'test', adapter: null, ctx: null };
const runners: RunnersFor = () => ({
  intermediate: (design) =>
    Promise.resolve({ answer: `${design.agents.length % 3}`, correct: design.agents.length >= 2 }),
  final: (trace) => Promise.resolve({ correct: trace.design.agents.length >= 2, tokens: 500 }),
});

describe('rollout states', () => {
  it('are the states a replay of the recorded steps gives (batched and one at a time)', async () => {
    const cp = randomCheckpoint(DEFAULT_POOL, 9);
    const tasks = drawTasks(PRESET_TABLE.mixed, 4, 4, 'train');
    const common = {
      pool: DEFAULT_POOL,
      runners,
      maxSteps: 7,
      temperature: 1,
      greedy: false,
      intermediate: true,
      rewards: trainConfig({}).actionReward,
    };
    const policy = BatchedPolicy.create(cp, cpu, { maxBatch: 8 });
    const net = await PolicyNetwork.cpu(cp);
    try {
      const episodes = tasks.flatMap((task, i) => [0, 1].map((g) => ({ task, seed: 10 * i + g })));
      const many = await rolloutMany({ ...common, policy, episodes });
      const one: Rollout[] = [];
      for (const e of episodes.slice(0, 3)) one.push(await rollout({ ...common, net, ...e }));
      for (const r of [...many, ...one]) {
        const limits = { maxAgents: cp.config.maxAgents, maxSteps: 7 };
        expect(r.states).toHaveLength(r.steps.length);
        expect(r.states).toEqual(replay(DEFAULT_POOL, limits, r.steps).states);
      }
      expect(many.some((r) => r.steps.length > 2)).toBe(true);
    } finally {
      policy.dispose();
      net.dispose();
    }
  });
});
