import { describe, expect, it } from 'vitest';
import { generateTask, taskSeed, type Axis } from '../bench/masbench/index.ts';
import { dagDepth, sinksOf } from './construction.ts';
import { PolicyNetwork } from './network.ts';
import { priorCheckpoint } from './prior.ts';
import { DEFAULT_POOL } from './roles.ts';
import { construct } from './sample.ts';

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
