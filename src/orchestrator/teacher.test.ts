import { describe, expect, it } from 'vitest';
import type { Design } from '../core/trace.ts';
import { splitForSeed, type MasBenchTask } from '../masbench/index.ts';
import { BatchedPolicy, DEFAULT_POOL, priorCheckpoint } from '../policy/index.ts';
import {
  bestOf,
  drawTeacherTasks,
  lowCandidates,
  scoreSeed,
  teacherExamples,
  type DesignRunner,
} from './teacher.ts';
import { tinyPlanOf } from './tiny-format.ts';

const pool = DEFAULT_POOL;
const CPU = { backend: 'cpu', reason: 'test', adapter: null, ctx: null } as const;

/**
 * A scoring rule standing in for the simulator (the simulator itself is wired by the script and
 * tested with the teacher in scripts/train-orchestrator.test.ts): right when a Verifier is present
 * or, on odd seeds, when there are at least three agents; 100 tokens per agent.
 */
const rule: DesignRunner = (d: Design, _task: MasBenchTask, seed: number) =>
  Promise.resolve({
    correct: d.agents.some((a) => a.role === 'Verifier') || (seed % 2 === 1 && d.agents.length >= 3),
    tokens: 100 * d.agents.length,
  });

describe('teacher designs', () => {
  const task = drawTeacherTasks({ count: 1, baseSeed: 3, split: 'train', values: [4] })[0] as MasBenchTask;

  it('draws tasks of all five axes from the asked split only', () => {
    const train = drawTeacherTasks({ count: 20, baseSeed: 9, split: 'train', values: [2, 3, 4] });
    const test = drawTeacherTasks({ count: 20, baseSeed: 9, split: 'test', values: [2, 3, 4] });
    expect(new Set(train.map((t) => t.axis)).size).toBe(5);
    expect(train.every((t) => splitForSeed(t.seed) === 'train' && t.split === 'train')).toBe(true);
    expect(test.every((t) => t.split === 'test')).toBe(true);
    expect(new Set(train.map((t) => t.value))).toEqual(new Set([2, 3, 4]));
    const ids = new Set(train.map((t) => t.id));
    expect(test.some((t) => ids.has(t.id))).toBe(false);
  });

  it('picks the highest mean reward, breaking ties by fewer tokens', async () => {
    const low = await bestOf(task, lowCandidates(pool), rule, {
      seeds: 2,
      reward: { lambda: 0.1, costScale: 20_000 },
    });
    expect(low.plan.agents.map((a) => a.role)).toEqual(['Verifier']);
    expect(low.accuracy).toBe(1);
    // Without a Verifier every one-agent design scores the same: the first (fewest tokens, all equal) wins.
    const noVerifier = lowCandidates(pool).filter((c) => c.plan.agents[0]?.role !== 'Verifier');
    const tie = await bestOf(task, noVerifier, rule, {
      seeds: 2,
      reward: { lambda: 0.1, costScale: 20_000 },
    });
    expect(tie.plan.agents[0]?.role).toBe(pool.roles[0]?.name);
    expect(scoreSeed(task, 0)).not.toBe(scoreSeed(task, 1));
  });

  it('builds canonical high and low designs from sampled constructions, deterministically', async () => {
    const tasks = drawTeacherTasks({ count: 3, baseSeed: 4, split: 'train', values: [3, 5] });
    const make = async () => {
      const policy = BatchedPolicy.create(priorCheckpoint(pool), CPU, { maxBatch: 8 });
      const out = await teacherExamples(tasks, { pool, policy, run: rule, samples: 4, seeds: 2 });
      policy.dispose();
      return out;
    };
    const a = await make();
    expect(a.map((e) => e.task.id)).toEqual(tasks.map((t) => t.id));
    for (const e of a) {
      expect(e.low.design.agents).toHaveLength(1);
      expect(e.low.design.edges).toEqual([]);
      expect(e.high.design.agents.map((x) => x.id)).toEqual(
        e.high.design.agents.map((x, i) => `${(x.role ?? '').toLowerCase().replace(/ /g, '-')}-${i + 1}`),
      );
      expect(tinyPlanOf(e.high.design, pool)).toEqual(e.high.plan);
    }
    expect(await make()).toEqual(a);
  });
});
