/**
 * The fast path's reuse of an agent's earlier run (`simulatedRunners`): only an agent with the same
 * fields whose references fill in with the same outputs reuses it. Each sequence of designs gives
 * the traced path's step results.
 */
import { describe, expect, it } from 'vitest';
import type { Design } from '../core/trace.ts';
import { generateTask, taskOfMasbench, type MasBenchTask } from '../masbench/index.ts';
import { designOf, type AgentSpec } from './test-helpers.ts';
import { simulatedRunners, tracedSimulatedRunners } from './train-runners.ts';

async function steps(task: MasBenchTask, seed: number, designs: readonly Design[]) {
  const t = taskOfMasbench(task);
  const fast = simulatedRunners(task, seed);
  const traced = tracedSimulatedRunners(task, seed);
  const got = [];
  const want = [];
  for (const d of designs) {
    got.push(await fast.intermediate(d, t));
    want.push(await traced.intermediate(d, t));
  }
  return { got, want };
}

const sc = (samples: number): AgentSpec['params'] => ({ samples });

/** Designs in which one agent keeps its id while something it depends on changes. */
const SEQUENCES: Record<string, AgentSpec[][]> = {
  'an upstream agent’s parameters change': [
    [
      { id: 'A', type: 'SCAgent', params: sc(3) },
      { id: 'B', input: 'Check ${A}.' },
    ],
    [
      { id: 'A', type: 'SCAgent', params: sc(1) },
      { id: 'B', input: 'Check ${A}.' },
    ],
    [
      { id: 'A', type: 'SCAgent', params: sc(3) },
      { id: 'B', input: 'Check ${A}.' },
    ],
  ],
  'an upstream agent’s type changes': [
    [
      { id: 'A', type: 'CoTAgent' },
      { id: 'B', input: 'Check ${A}.' },
    ],
    [
      { id: 'A', type: 'ReflexionAgent' },
      { id: 'B', input: 'Check ${A}.' },
    ],
  ],
  'the agent’s own input or parameters change': [
    [{ id: 'A' }, { id: 'B', type: 'SCAgent', input: 'Check ${A}.', params: sc(3) }],
    [{ id: 'A' }, { id: 'B', type: 'SCAgent', input: 'Verify ${A}.', params: sc(3) }],
    [{ id: 'A' }, { id: 'B', type: 'SCAgent', input: 'Verify ${A}.', params: sc(2) }],
    [{ id: 'A' }, { id: 'B', type: 'SCAgent', input: '  ', params: sc(2) }],
  ],
  'a reference starts or stops filling in': [
    [{ id: 'A' }, { id: 'B', input: 'Use ${A} and ${C}.' }],
    [{ id: 'A' }, { id: 'C', input: 'Solve s1.' }, { id: 'B', input: 'Use ${A} and ${C}.' }],
    [{ id: 'A' }, { id: 'B', input: 'Use ${A} and ${C}.' }],
  ],
};

describe('the fast path reuses an agent’s run only when nothing it depends on changed', () => {
  for (const [name, sequence] of Object.entries(SEQUENCES)) {
    it(`gives the traced path’s step results when ${name}`, async () => {
      for (const [i, axis] of (['depth', 'robustness', 'breadth'] as const).entries()) {
        const task = generateTask({ axis, value: 3, seed: 90 + i });
        for (const seed of [1, 2, 3, 4]) {
          const { got, want } = await steps(task, seed, sequence.map(designOf));
          expect(got).toEqual(want);
        }
      }
    });
  }

  it('changes a downstream answer when an upstream agent changes (the sequences test something)', async () => {
    let changed = 0;
    for (let seed = 0; seed < 20; seed++) {
      const task = generateTask({ axis: 'depth', value: 4, seed });
      const { want } = await steps(
        task,
        seed,
        (SEQUENCES['an upstream agent’s type changes'] ?? []).map(designOf),
      );
      if (want[0]?.answer !== want[1]?.answer) changed++;
    }
    expect(changed).toBeGreaterThan(0);
  });

  it('grades each output against the ground truth its runners are given, across a task’s episodes', async () => {
    const task = generateTask({ axis: 'breadth', value: 3, seed: 12 });
    const right = taskOfMasbench(task);
    const wrong = {
      ...right,
      groundTruths: (right.groundTruths ?? []).map((g) => `${g}1`),
      groundTruth: 'x',
    };
    const design = designOf([{ id: 'A' }, { id: 'B', type: 'SCAgent', input: 'Check ${A}.' }]);
    const seen = new Set<string>();
    // Episodes of one task object, in turn with the true and a changed ground truth.
    for (const seed of [1, 2, 3, 4, 5, 6])
      for (const t of [right, wrong]) {
        const got = await simulatedRunners(task, seed).intermediate(design, t);
        expect(got).toEqual(await tracedSimulatedRunners(task, seed).intermediate(design, t));
        seen.add(`${t === right}:${String(got.correct)}`);
      }
    // Right answers graded right against the truth and wrong against the changed one.
    expect(seen.has('true:true') && seen.has('false:false')).toBe(true);
  });
});
