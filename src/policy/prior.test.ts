import { describe, expect, it } from 'vitest';
import { minimalTrace } from '../core/trace-builders.ts';
import { runDesign } from '../executor/run.ts';
import { simulatedBackend } from '../executor/sim/index.ts';
import { generateTask, taskOfMasbench, taskSeed, type Axis, type MasBenchTask } from '../masbench/index.ts';
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
import { PolicyNetwork, encoderConfig, policyConfig } from './network.ts';
import { PRIOR_TEMPERATURE, priorCheckpoint, priorParams } from './prior.ts';
import { DEFAULT_POOL } from './roles.ts';
import { construct } from './episode.ts';
import type { IntermediateRunner } from './step-types.ts';

const pool = DEFAULT_POOL;

interface Shape {
  decomposerFirst: number;
  plannerFirst: number;
  depth: number;
  branches: number;
}

/** Averages over constructions (sampled, or greedy) on generated tasks of one axis, values 3..12. */
async function measure(net: PolicyNetwork, axis: Axis, greedy = false): Promise<Shape> {
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
        greedy,
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

const AXES: readonly Axis[] = ['depth', 'breadth', 'parallel', 'horizon', 'robustness'];

/** Runs each partial MAS on the simulator with the construction's seed. */
const simulator =
  (mb: MasBenchTask, seed: number): IntermediateRunner =>
  async (design, task) => {
    const t = await runDesign({
      trace: minimalTrace({ query: task.query }),
      design,
      task,
      backend: simulatedBackend(mb, seed),
      startedAt: new Date(0).toISOString(),
    });
    return { answer: t.result.finalAnswer, correct: t.result.correct };
  };

const entropy = (ps: readonly number[]): number => -ps.reduce((a, p) => (p > 0 ? a + p * Math.log(p) : a), 0);

describe('the prior checkpoint', () => {
  it('decomposes depth tasks and branches parallel ones when greedy (40 tasks each)', async () => {
    const net = await PolicyNetwork.cpu(priorCheckpoint(pool));
    const deep = await measure(net, 'depth', true);
    const wide = await measure(net, 'parallel', true);
    expect(deep.decomposerFirst).toBe(1);
    expect(wide.plannerFirst).toBe(1);
    expect(deep.depth).toBeGreaterThanOrEqual(wide.depth + 1.5);
    expect(wide.branches).toBeGreaterThanOrEqual(deep.branches + 2);
    net.dispose();
  });

  it('sampled, still prefers those shapes but explores other first actions (40 tasks each)', async () => {
    const net = await PolicyNetwork.cpu(priorCheckpoint(pool));
    const deep = await measure(net, 'depth');
    const wide = await measure(net, 'parallel');
    // Measured at T = 4: Decomposer first on 57% of depth tasks, Planner first on 75% of parallel
    // ones (95% and 100% at T = 1, where sampling hardly ever left the greedy path).
    expect(deep.decomposerFirst).toBeGreaterThanOrEqual(0.4);
    expect(deep.decomposerFirst).toBeLessThanOrEqual(0.85);
    expect(wide.plannerFirst).toBeGreaterThanOrEqual(0.5);
    expect(wide.plannerFirst).toBeLessThanOrEqual(0.9);
    expect(wide.decomposerFirst).toBeLessThanOrEqual(0.2);
    expect(deep.plannerFirst).toBeLessThanOrEqual(0.2);
    expect(deep.depth).toBeGreaterThanOrEqual(wide.depth + 1.5);
    expect(wide.branches).toBeGreaterThanOrEqual(deep.branches + 2);
    net.dispose();
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
    // In table units +3 and −5; the node head divides them by the temperature.
    const base = await odds(s);
    expect(await odds(ran(['\\boxed{12}', 'so \\boxed{ 12 }']))).toBeCloseTo(base + 3 / PRIOR_TEMPERATURE, 4);
    expect(await odds(ran(['\\boxed{12}', 'REFUSE: a needed value is missing']))).toBeCloseTo(
      base - 5 / PRIOR_TEMPERATURE,
      4,
    );
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

describe('the temperature of the prior', () => {
  it('divides exactly the node terms of the table by T, a power of two, and leaves the edge terms alone', () => {
    expect(Math.log2(PRIOR_TEMPERATURE) % 1).toBe(0);
    const cfg = policyConfig(pool);
    const table = priorParams(cfg, { temperature: 1 });
    const prior = priorParams(cfg);
    for (const k of ['node.lin', 'node.b2'] as const) {
      const t = table[k] as Float32Array;
      const p = prior[k] as Float32Array;
      expect(p.some((x) => x !== 0)).toBe(true);
      // Exact in f32 both ways: multiplying back gives the table bit for bit.
      expect(Array.from(p, (x) => x * PRIOR_TEMPERATURE)).toEqual(Array.from(t));
    }
    for (const k of ['edge.roleLin', 'edge.stateLin'] as const) expect(prior[k]).toEqual(table[k]);
    expect(() => priorParams(cfg, { temperature: 0 })).toThrow(/positive/);
  });

  it('keeps every greedy construction of the table, with and without intermediate answers (60 tasks)', async () => {
    const table = await PolicyNetwork.cpu(priorCheckpoint(pool, {}, { temperature: 1 }));
    const prior = await PolicyNetwork.cpu(priorCheckpoint(pool));
    let compared = 0;
    for (const axis of AXES) {
      for (const value of [2, 4, 6, 8, 10, 12]) {
        for (let k = 0; k < 2; k++) {
          const mb = generateTask({ axis, value, seed: taskSeed(404, k) });
          const task = taskOfMasbench(mb);
          // Odd tasks also run every partial MAS, so the answer features take part.
          const runner = k === 1 ? simulator(mb, 9) : undefined;
          const opts = { pool, task, seed: 9, greedy: true, createdAt: 't', ...(runner ? { runner } : {}) };
          const a = await construct({ policy: table, ...opts });
          const b = await construct({ policy: prior, ...opts });
          const what = (steps: typeof a.steps) => steps.map((x) => [x.action, x.intermediateAnswer]);
          expect(what(b.steps), `${axis} ${value} #${k}`).toEqual(what(a.steps));
          expect(b.design).toEqual(a.design);
          // The distributions differ (that is the point), their argmax does not.
          if (a.steps.length > 1)
            expect(b.steps[0]?.roleDistribution).not.toEqual(a.steps[0]?.roleDistribution);
          compared += 1;
        }
      }
    }
    expect(compared).toBe(60);
    table.dispose();
    prior.dispose();
  });

  it('keeps sampling exploratory: no greedy state is near-certain, and step 1 has entropy on every axis', async () => {
    const check = async (temperature: number): Promise<{ top: number; firstEntropy: number }> => {
      const net = await PolicyNetwork.cpu(priorCheckpoint(pool, {}, { temperature }));
      let top = 0;
      let firstEntropy = Infinity;
      for (const axis of AXES) {
        const first: number[] = [];
        for (const value of [3, 5, 7, 9]) {
          for (let k = 0; k < 3; k++) {
            const mb = generateTask({ axis, value, seed: taskSeed(505, k) });
            const c = await construct({ policy: net, pool, task: taskOfMasbench(mb), seed: 1, greedy: true });
            for (const step of c.steps) {
              const allowed = step.roleDistribution.filter((d) => d.p > 0).map((d) => d.p);
              if (allowed.length > 1) top = Math.max(top, ...allowed);
            }
            first.push(entropy(c.steps[0]?.roleDistribution.map((d) => d.p) ?? []));
          }
        }
        firstEntropy = Math.min(firstEntropy, first.reduce((x, y) => x + y, 0) / first.length);
      }
      net.dispose();
      return { top, firstEntropy };
    };
    // Measured: at T = 4 the most probable action of a state with a choice has p ≤ 0.91 and the
    // mean node entropy at step 1 is ≥ 1.0 nats on every axis; the table (T = 1) reaches p = 1.000
    // and 0.02 nats (parallel tasks: Planner 0.997).
    const prior = await check(PRIOR_TEMPERATURE);
    expect(prior.top).toBeLessThanOrEqual(0.95);
    expect(prior.firstEntropy).toBeGreaterThanOrEqual(0.9);
    const table = await check(1);
    expect(table.top).toBeGreaterThan(0.99);
    expect(table.firstEntropy).toBeLessThan(0.1);
  });
});
