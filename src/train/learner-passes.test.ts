/**
 * The old-policy and reference log-probabilities of an iteration come from one pass over the rows
 * that packs each minibatch once for both graphs (`Learner.oldAndReference`): the numbers must be
 * those of the two separate passes (`logProbs`), bit for bit.
 */
import { describe, expect, it } from 'vitest';
import type { BackendChoice } from '../gpu/index.ts';
import { taskOfMasbench } from '../masbench/index.ts';
import {
  DEFAULT_POOL,
  PolicyNetwork,
  encodeTask,
  priorCheckpoint,
  type EpisodeSteps,
} from '../policy/index.ts';
import { trainConfig } from './config.ts';
import { Learner } from './learner.ts';
import { PRESET_TABLE, drawTasks } from './presets.ts';
import { rollout, type RunnersFor } from './rollout.ts';

const cpu: BackendChoice = { backend: 'cpu', reason: 'test', adapter: null, ctx: null };
const runners: RunnersFor = () => ({
  intermediate: (design) =>
    Promise.resolve({ answer: `${design.agents.length}`, correct: design.agents.length >= 2 }),
  final: (trace) => Promise.resolve({ correct: trace.design.agents.length >= 2, tokens: 1000 }),
});

async function episodes(cp: ReturnType<typeof priorCheckpoint>, n: number): Promise<EpisodeSteps[]> {
  const net = await PolicyNetwork.cpu(cp);
  const out: EpisodeSteps[] = [];
  for (const [i, task] of drawTasks(PRESET_TABLE.mixed, 11, n, 'train').entries()) {
    const r = await rollout({
      net,
      pool: DEFAULT_POOL,
      task,
      seed: 900 + i,
      runners,
      maxSteps: 8,
      temperature: 1.3,
      greedy: false,
      intermediate: true,
      rewards: trainConfig({}).actionReward,
    });
    out.push({
      task: encodeTask(taskOfMasbench(task).query, cp.config.hashDim),
      steps: r.steps,
      limits: { maxAgents: cp.config.maxAgents, maxSteps: 8 },
    });
  }
  net.dispose();
  return out;
}

const bits = (a: Float64Array): string => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('hex');

describe('the learner’s old-policy and reference passes', () => {
  it('give the log-probabilities of two separate passes, bit for bit, after an update moved the policy', async () => {
    const cp = priorCheckpoint(DEFAULT_POOL);
    const config = trainConfig({ minibatch: 8, maxSteps: 8, klCoef: 0.05 });
    const eps = await episodes(cp, 6);
    const learner = await Learner.create(cp, cp, DEFAULT_POOL, config, cpu);
    try {
      const full = learner.batch(eps);
      expect(full.batch).toBeGreaterThan(2 * config.minibatch);
      const first = await learner.oldAndReference(full);
      // Current and reference parameters are one checkpoint so far: the two passes agree.
      expect(bits(first.old)).toBe(bits(first.ref as Float64Array));
      const pick = Array.from({ length: 8 }, (_, i) => i + 3);
      await learner.update(
        full,
        pick,
        first.old,
        first.ref,
        Float64Array.from(first.old, (_, i) => (i % 5) - 2),
      );
      const both = await learner.oldAndReference(full);
      const old = await learner.logProbs(full);
      const ref = await learner.logProbs(full, 'reference');
      expect(bits(both.old)).toBe(bits(old));
      expect(bits(both.ref as Float64Array)).toBe(bits(ref));
      expect(bits(old)).not.toBe(bits(ref));
      // The snapshot's parameters are the arena's numbers (as Array.from reads them).
      const snap = await learner.snapshot('after');
      for (const [k, t] of Object.entries(learner.graph.params))
        expect(snap.params[k]).toEqual(Array.from(await learner.model.read(t)));
      expect(snap.params).not.toEqual(cp.params);
    } finally {
      learner.dispose();
    }
  });

  it('without a KL term there is no reference pass', async () => {
    const cp = priorCheckpoint(DEFAULT_POOL);
    const config = trainConfig({ minibatch: 8, maxSteps: 8, klCoef: 0 });
    const learner = await Learner.create(cp, cp, DEFAULT_POOL, config, cpu);
    try {
      const full = learner.batch(await episodes(cp, 2));
      const both = await learner.oldAndReference(full);
      expect(both.ref).toBeNull();
      expect(bits(both.old)).toBe(bits(await learner.logProbs(full)));
    } finally {
      learner.dispose();
    }
  });
});
