import { describe, expect, it } from 'vitest';
import { generateTask, taskOfMasbench, type Axis } from '../masbench/index.ts';
import {
  DEFAULT_POOL,
  PolicyNetwork,
  construct,
  priorCheckpoint,
  randomCheckpoint,
  type PolicyCheckpoint,
} from '../policy/index.ts';
import { simulatedRunners, tracedSimulatedRunners } from './train-runners.ts';

const AXES: Axis[] = ['depth', 'parallel', 'robustness', 'breadth', 'horizon'];

async function compare(cp: PolicyCheckpoint, n: number, seed0: number) {
  const net = await PolicyNetwork.cpu(cp);
  let finals = 0;
  const outcomes = new Set<string>();
  for (let i = 0; i < n; i++) {
    const task = generateTask({ axis: AXES[i % AXES.length] as Axis, value: 2 + (i % 5), seed: seed0 + i });
    const seed = (seed0 * 7919 + i) >>> 0;
    const run = async (runners: ReturnType<typeof simulatedRunners>) => {
      const c = await construct({
        policy: net,
        pool: DEFAULT_POOL,
        task: taskOfMasbench(task),
        seed,
        maxSteps: 10,
        runner: runners.intermediate,
      });
      return { trace: c.trace, final: await runners.final(c.trace) };
    };
    const traced = await run(tracedSimulatedRunners(task, seed));
    const fast = await run(simulatedRunners(task, seed));
    // Steps (actions, intermediate answers, correctness, run records, action rewards) and the final outcome.
    expect(fast.trace).toEqual(traced.trace);
    expect(fast.final).toEqual(traced.final);
    // Without intermediate runs the final design is run from scratch by the fast path.
    const cold = simulatedRunners(task, seed);
    expect(await cold.final(traced.trace)).toEqual(traced.final);
    finals++;
    outcomes.add(`${String(traced.final.correct)}`);
    expect(traced.final.tokens).toBeGreaterThan(0);
  }
  return { finals, outcomes };
}

describe('the simulator fast path (simulatedRunners)', () => {
  it('gives the traced path its numbers: intermediate answers, final correctness and tokens (prior)', async () => {
    const r = await compare(priorCheckpoint(DEFAULT_POOL), 15, 100);
    expect(r.finals).toBe(15);
    // Both right and wrong final answers were compared.
    expect(r.outcomes.has('true') && r.outcomes.has('false')).toBe(true);
  });

  it('gives the traced path its numbers for random policies (other designs)', async () => {
    for (const s of [1, 2]) await compare(randomCheckpoint(DEFAULT_POOL, s), 10, 300 + 50 * s);
  });
});
