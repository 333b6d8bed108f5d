import { describe, expect, it } from 'vitest';
import { generateTask, taskSeed, type Axis } from '../masbench/index.ts';
import { exitIndex } from './actions.ts';
import {
  applyAction,
  dagDepth,
  initialState,
  sinksOf,
  withResult,
  type ConstructionState,
} from './construction.ts';
import { encodeTask, stateDimFor } from './encoder.ts';
import { PolicyNetwork, encoderConfig } from './network.ts';
import { priorCheckpoint } from './prior.ts';
import { DEFAULT_POOL } from './roles.ts';
import { construct } from './episode.ts';

const pool = DEFAULT_POOL;

interface Shape {
  decomposerFirst: number;
  plannerFirst: number;
  depth: number;
  branches: number;
}

/** Averages over sampled (not greedy) constructions on generated tasks of one axis, values 3..12. */
async function measure(net: PolicyNetwork, axis: Axis): Promise<Shape> {
  const acc = { decomposerFirst: 0, plannerFirst: 0, depth: 0, branches: 0 };
  let n = 0;
  for (let value = 3; value <= 12; value++) {
    for (let i = 0; i < 4; i++) {
      const seed = taskSeed(100, value * 10 + i);
      const t = generateTask({ axis, value, seed });
      const c = await construct({
        policy: net,
        pool,
        task: { query: t.question, groundTruth: null, source: { kind: 'custom' } },
        seed,
      });
      const first = c.steps[0]?.action;
      acc.decomposerFirst += first?.kind === 'add' && first.role === 'Decomposer' ? 1 : 0;
      acc.plannerFirst += first?.kind === 'add' && first.role === 'Planner' ? 1 : 0;
      // The MAS before the summariser: its longest chain and its number of parallel branch ends.
      acc.depth += dagDepth(c.state.agents);
      acc.branches += sinksOf(c.state.agents).length;
      n++;
    }
  }
  return {
    decomposerFirst: acc.decomposerFirst / n,
    plannerFirst: acc.plannerFirst / n,
    depth: acc.depth / n,
    branches: acc.branches / n,
  };
}

describe('the prior checkpoint', () => {
  it('prefers decomposition on depth tasks and parallel branches on parallel tasks (40 tasks each)', async () => {
    const net = await PolicyNetwork.cpu(priorCheckpoint(pool));
    const deep = await measure(net, 'depth');
    const wide = await measure(net, 'parallel');
    expect(deep.decomposerFirst).toBeGreaterThanOrEqual(0.7);
    expect(wide.decomposerFirst).toBeLessThanOrEqual(0.2);
    expect(wide.plannerFirst).toBeGreaterThanOrEqual(0.7);
    expect(deep.plannerFirst).toBeLessThanOrEqual(0.2);
    expect(deep.depth).toBeGreaterThanOrEqual(wide.depth + 1.5);
    expect(wide.branches).toBeGreaterThanOrEqual(deep.branches + 2);
  });

  it('is a checkpoint like any other: its hidden path is silent (W2 = wo = 0) until trained', () => {
    const cp = priorCheckpoint(pool);
    expect(cp.name).toBe('prior');
    expect(cp.params['node.w2']?.every((x) => x === 0)).toBe(true);
    expect(cp.params['edge.wo']?.every((x) => x === 0)).toBe(true);
    expect(cp.params['node.lin']?.some((x) => x !== 0)).toBe(true);
  });
});

describe('the prior on intermediate answers', () => {
  it('favours EXIT when the last two answers agree, disfavours it after a refusal, ignores the rest', async () => {
    const net = await PolicyNetwork.cpu(priorCheckpoint(pool));
    const role = (name: string): number => pool.roles.findIndex((r) => r.name === name);
    const solver = role('Solver');
    const task = encodeTask(generateTask({ axis: 'depth', value: 6, seed: 5 }).question, 256);
    let s: ConstructionState = initialState(pool);
    s = applyAction(s, { kind: 'add', role: role('Decomposer'), links: [] }).state;
    s = applyAction(s, { kind: 'add', role: solver, links: ['decomposer-1'] }).state;
    const ran = (answers: string[]): ConstructionState =>
      answers.reduce(
        (st, a, i) => ({
          ...st,
          results: [...st.results, { step: s.step - answers.length + i, answer: a, correct: null }],
        }),
        s,
      );
    // log(p(EXIT) / p(Solver)): only the EXIT logit depends on the answer features.
    const odds = async (st: ConstructionState): Promise<number> => {
      const p = (await net.evaluate(task, st)).probs;
      return Math.log((p[exitIndex(pool)] as number) / (p[solver] as number));
    };
    const base = await odds(s);
    expect(await odds(ran(['\\boxed{12}', 'so \\boxed{ 12 }']))).toBeCloseTo(base + 3, 4);
    expect(await odds(ran(['\\boxed{12}', 'REFUSE: a needed value is missing']))).toBeCloseTo(base - 5, 4);
    // Answers that neither agree nor refuse (and correctness, which it never sees) change nothing.
    const plain = (await net.evaluate(task, s)).probs;
    expect((await net.evaluate(task, ran(['\\boxed{11}', '\\boxed{12}']))).probs).toEqual(plain);
    expect((await net.evaluate(task, withResult(s, '\\boxed{12}', true))).probs).toEqual(plain);
  });
});

describe('the prior without intermediate answers', () => {
  it('takes exactly the steps of the prior with its answer rules removed', async () => {
    const cp = priorCheckpoint(pool);
    const enc = encoderConfig(cp.config);
    const A = pool.roles.length + 2;
    const S = stateDimFor(enc, 1);
    const lin = cp.params['node.lin'] as number[];
    // The answer rules exist, and only in the RESULT rows.
    expect(lin.slice(S * A).some((x) => x !== 0)).toBe(true);
    const without = {
      ...cp,
      params: {
        ...cp.params,
        'node.lin': [...lin.slice(0, S * A), ...new Array<number>(lin.length - S * A).fill(0)],
      },
    };
    const a = await PolicyNetwork.cpu(cp);
    const b = await PolicyNetwork.cpu(without);
    for (const [axis, value, seed] of [
      ['depth', 7, 1],
      ['parallel', 5, 2],
      ['robustness', 4, 3],
    ] as const) {
      const t = generateTask({ axis, value, seed });
      const task = { query: t.question, groundTruth: null, source: { kind: 'custom' as const } };
      const x = await construct({ policy: a, pool, task, seed, createdAt: 't' });
      const y = await construct({ policy: b, pool, task, seed, createdAt: 't' });
      expect(x.steps).toEqual(y.steps);
    }
  });
});
