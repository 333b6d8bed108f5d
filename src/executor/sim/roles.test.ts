import { describe, expect, it } from 'vitest';
import { checkAnswer } from '../../answers/index.ts';
import { minimalTrace } from '../../core/trace-builders.ts';
import type { Design, Trace } from '../../core/trace.ts';
import { generateTask, taskOfMasbench, taskSeed, type MasBenchTask } from '../../masbench/index.ts';
import type { PolicyAction } from '../../policy/index.ts';
import {
  applyAction,
  initialState,
  toValidDesign,
  type ConstructionState,
  PolicyNetwork,
  priorCheckpoint,
  DEFAULT_POOL,
  roleInstruction,
  construct,
} from '../../policy/index.ts';
import { runDesign } from '../run.ts';
import { simulatedBackend } from './backend.ts';
import { instructionOf, type Instruction } from './roles.ts';
import { partsOf, prepareTask, targetsOf } from './task.ts';

const pool = DEFAULT_POOL;
const role = (name: string): number => pool.roles.findIndex((r) => r.name === name);

/** Applies ADDs (role name, links) and EXIT/DELETE in order, as a construction would. */
function build(steps: readonly (readonly [string, readonly string[]] | 'exit')[]): ConstructionState {
  let s = initialState(pool);
  for (const step of steps) {
    const action: PolicyAction =
      step === 'exit' ? { kind: 'exit' } : { kind: 'add', role: role(step[0]), links: [...step[1]] };
    s = applyAction(s, action).state;
  }
  return s;
}

async function simulate(task: MasBenchTask, design: Design, seed = 1): Promise<Trace> {
  return runDesign({
    trace: minimalTrace({ query: task.question }),
    design,
    task: taskOfMasbench(task),
    backend: simulatedBackend(task, seed),
    startedAt: new Date(0).toISOString(),
  });
}

/** The partial MAS of a state, run on the simulator. */
async function partial(task: MasBenchTask, state: ConstructionState, seed = 1): Promise<Trace> {
  const design = toValidDesign(state);
  if (!design) throw new Error('no agents');
  return simulate(task, design, seed);
}

/** The answer checker finds nothing to grade in the text (no box, no number, no answer phrase). */
const noAnswerIn = (text: string | null): boolean => checkAnswer(text ?? '', '0').method === 'none';

describe('role instructions (the default pool)', () => {
  it('gives every role of the pool the duty and refuse rules its instruction states', () => {
    const expected: Record<string, Instruction> = {
      Decomposer: { duty: 'decompose', refuse: ['already-split', 'single-step'] },
      Planner: { duty: 'plan', refuse: ['one-part'] },
      Solver: { duty: 'solve', refuse: [] },
      Calculator: { duty: 'solve', refuse: [] },
      'Consensus Solver': { duty: 'solve', refuse: [] },
      Verifier: { duty: 'solve', refuse: ['no-answer-in-input'] },
      Critic: { duty: 'critique', refuse: ['no-answer-in-input'] },
      'Debate Panel': { duty: 'solve', refuse: [] },
      Researcher: { duty: 'solve', refuse: ['self-contained'] },
      Extractor: { duty: 'extract', refuse: ['no-answer-in-input'] },
    };
    expect(pool.roles.map((r) => r.name).sort()).toEqual(Object.keys(expected).sort());
    for (const r of pool.roles) {
      const got = instructionOf({ type: r.agentType, description: roleInstruction(r) });
      expect({ ...got, refuse: [...got.refuse].sort() }, r.name).toEqual(expected[r.name]);
    }
    // Designs written by hand or imported keep solving; the summariser combines.
    expect(instructionOf({ type: 'CoTAgent', description: 'agent A' })).toEqual({
      duty: 'solve',
      refuse: [],
    });
    expect(instructionOf({ type: 'SummarizerAgent', description: 'anything' }).duty).toBe('combine');
  });
});

describe('a partial MAS whose sink does not answer', () => {
  // The task from the report: MASBench parallel 3, task seed 5 (answers 19, 12, 20).
  const wide = generateTask({ axis: 'parallel', value: 3, seed: 5 });

  it('a lone Planner lists the independent parts, answers nothing, and is graded wrong', async () => {
    const t = await partial(wide, build([['Planner', []]]));
    expect(t.result.correct).toBe(false);
    expect(noAnswerIn(t.result.finalAnswer)).toBe(true);
    expect(t.result.finalAnswer).toContain('Work item: How many Heart does each Gecko have?');
    expect(t.result.finalAnswer?.match(/^Work item: /gm)).toHaveLength(3);
    // A Solver reading the plan works on the whole task, so the answer appears at step 2.
    const solved = await partial(
      wide,
      build([
        ['Planner', []],
        ['Solver', ['planner-1']],
      ]),
    );
    const input = solved.execution.events.flatMap((e) =>
      e.type === 'agent.start' && e.agentId === 'solver-2' ? [e.input] : [],
    )[0];
    expect(input).toContain('Work item: ');
    expect(targetsOf(prepareTask(wide), input ?? '')).toEqual(wide.asks);
    expect(solved.result.finalAnswer).toMatch(/\\boxed\{\d+, \d+, \d+\}/);
  });

  it('a Decomposer lists the needed sub-questions in dependency order and answers none', async () => {
    const deep = generateTask({ axis: 'depth', value: 5, seed: 3 });
    const t = await partial(deep, build([['Decomposer', []]]));
    expect(t.result.correct).toBe(false);
    expect(noAnswerIn(t.result.finalAnswer)).toBe(true);
    const lines = (t.result.finalAnswer ?? '').split('\n').filter((l) => l.startsWith('Sub-question: '));
    expect(lines).toHaveLength(5);
    const sim = prepareTask(deep);
    const last = sim.byId.get(deep.asks[0] ?? '');
    expect(lines[4]).toBe(`Sub-question: How many ${last?.item} does each ${last?.owner} have?`);
  });

  it('a Critic reviews the answer it reads without giving one, so a MAS ending in it is wrong', async () => {
    const deep = generateTask({ axis: 'depth', value: 3, seed: 8 });
    const solver = await partial(deep, build([['Solver', []]]));
    expect(solver.result.correct).toBe(true);
    const t = await partial(
      deep,
      build([
        ['Solver', []],
        ['Critic', ['solver-1']],
      ]),
    );
    expect(t.result.correct).toBe(false);
    expect(noAnswerIn(t.result.finalAnswer)).toBe(true);
    expect(t.result.finalAnswer).toMatch(/^Review of the proposed solution:/);
  });

  it('the summariser over sinks that gave no answer has nothing to combine', async () => {
    const t = await partial(
      wide,
      build([
        ['Planner', []],
        ['Decomposer', []],
      ]),
    );
    expect(t.design.agents.map((a) => a.id)).toContain('summarizer');
    expect(t.result.correct).toBe(false);
    expect(noAnswerIn(t.result.finalAnswer)).toBe(true);
    // With one answering sink it states that sink's answer.
    const mixed = await partial(
      wide,
      build([
        ['Planner', []],
        ['Solver', []],
      ]),
    );
    const solverOut = (await partial(wide, build([['Solver', []]]))).result.finalAnswer ?? '';
    expect(
      checkAnswer(mixed.result.finalAnswer ?? '', checkAnswer(solverOut, '0').extracted ?? '').correct,
    ).toBe(true);
  });
});

describe('refusals, as each role instruction states them', () => {
  const deep = generateTask({ axis: 'depth', value: 4, seed: 2 });
  const wide = generateTask({ axis: 'parallel', value: 4, seed: 2 });
  const refusal = async (task: MasBenchTask, steps: Parameters<typeof build>[0]): Promise<string> =>
    (await partial(task, build(steps))).result.finalAnswer ?? '';

  it('a Planner refuses a task with one part, not one with several', async () => {
    expect(partsOf(prepareTask(deep))).toHaveLength(1);
    expect(await refusal(deep, [['Planner', []]])).toMatch(/^REFUSE: the task has only one part/);
    const horizon = generateTask({ axis: 'horizon', value: 4, seed: 2 });
    expect(partsOf(prepareTask(horizon))).toHaveLength(1);
    expect(await refusal(horizon, [['Planner', []]])).toMatch(/^REFUSE: /);
    expect(partsOf(prepareTask(wide))).toHaveLength(4);
    expect(await refusal(wide, [['Planner', []]])).toMatch(/^Independent parts/);
  });

  it('a Decomposer refuses an input that already is a list of sub-questions', async () => {
    expect(
      await refusal(deep, [
        ['Decomposer', []],
        ['Decomposer', ['decomposer-1']],
      ]),
    ).toMatch(/^REFUSE: the input is already a list of sub-questions/);
  });

  it('Verifier, Critic and Extractor refuse when no input proposes an answer', async () => {
    for (const name of ['Verifier', 'Critic', 'Extractor']) {
      expect(await refusal(deep, [[name, []]]), name).toMatch(/^REFUSE: /);
      expect(
        await refusal(deep, [
          ['Planner', []],
          [name, ['planner-1']],
        ]),
        `${name} after a plan`,
      ).toMatch(/^REFUSE: /);
    }
    const verified = await partial(
      deep,
      build([
        ['Solver', []],
        ['Verifier', ['solver-1']],
      ]),
    );
    expect(verified.result.finalAnswer).not.toMatch(/^REFUSE/);
  });

  it('a Researcher refuses a generated task: it states every fact it needs', async () => {
    expect(await refusal(deep, [['Researcher', []]])).toMatch(/^REFUSE: the task is self-contained/);
  });

  it('refusals hold no number for the answer checker to grade', async () => {
    for (const steps of [[['Researcher', []]], [['Planner', []]], [['Verifier', []]]] as const) {
      const text = await refusal(deep, steps);
      expect(text).toMatch(/^REFUSE: /);
      expect(noAnswerIn(text), text).toBe(true);
    }
  });

  it('an Extractor restates the answer it is given without recomputing it', async () => {
    const ask = prepareTask(deep).byId.get(deep.asks[0] ?? '');
    if (!ask) throw new Error('fixture: no asked sub-task');
    const wrong = (ask.answer + 1) % deep.modulus;
    const extractor = pool.roles[role('Extractor')];
    if (!extractor) throw new Error('no Extractor in the pool');
    // A is handed a wrong value for the asked quantity and passes it on; the Extractor copies it.
    const t = await simulate(deep, {
      dom: 'high',
      agents: [
        {
          id: 'A',
          type: 'CoTAgent',
          description: 'agent A',
          input: `Given: The number of ${ask.name} is ${wrong}.`,
          params: {},
        },
        {
          id: 'B',
          type: 'ExtractAgent',
          description: roleInstruction(extractor),
          input: 'Extract from ${A}.',
          params: {},
        },
      ],
      edges: [{ from: 'A', to: 'B' }],
    });
    expect(t.result.finalAnswer).toMatch(/^The answer the inputs give/);
    expect(t.result.finalAnswer).toContain(`\\boxed{${wrong}}`);
    expect(t.result.correct).toBe(false);
  });
});

describe('intermediate answers of the prior on the simulator', () => {
  it('a first agent that splits the task is never right on its own (parallel tasks, 24 constructions)', async () => {
    const net = await PolicyNetwork.cpu(priorCheckpoint(pool));
    let planners = 0;
    let laterRight = 0;
    for (const value of [3, 4, 5, 6]) {
      for (let k = 0; k < 6; k++) {
        const mb = generateTask({ axis: 'parallel', value, seed: taskSeed(31, k) });
        const c = await construct({
          policy: net,
          pool,
          task: taskOfMasbench(mb),
          seed: k,
          greedy: true,
          runner: async (design, task) => {
            const t = await runDesign({
              trace: minimalTrace({ query: task.query }),
              design,
              task,
              backend: simulatedBackend(mb, k),
              startedAt: new Date(0).toISOString(),
            });
            return { answer: t.result.finalAnswer, correct: t.result.correct };
          },
        });
        const first = c.steps[0];
        if (first?.action.kind === 'add' && first.action.role === 'Planner') {
          planners += 1;
          expect(first.intermediateCorrect).toBe(false);
          expect(noAnswerIn(first.intermediateAnswer ?? null)).toBe(true);
        }
        if (c.steps.slice(1).some((s) => s.intermediateCorrect === true)) laterRight += 1;
      }
    }
    // The greedy prior starts every parallel task with a Planner, and later steps do get right.
    expect(planners).toBe(24);
    expect(laterRight).toBeGreaterThan(0);
    net.dispose();
  });
});
