import { describe, expect, it } from 'vitest';
import { generateTask, neededSubtaskIds, type MasBenchTask } from '../../masbench/index.ts';
import type { AgentType } from '../../core/agents.ts';
import { minimalTrace } from '../../core/trace-builders.ts';
import { TraceSchema, type Design, type Trace } from '../../core/trace.ts';
import { agentInput } from '../input.ts';
import { runDesign } from '../run.ts';
import { designOf, eventsOf } from '../test-helpers.ts';
import { simulatedBackend } from './backend.ts';
import { ERROR_MODEL, SIM_MODEL, slipChance } from './model.ts';
import { knownValues, prepareTask, targetsOf } from './task.ts';

function traceOf(task: MasBenchTask): Trace {
  const trace = minimalTrace({
    query: task.question,
    groundTruth: task.answers.join(', '),
    source: { kind: 'masbench', axis: task.axis, value: task.value, taskId: task.id },
  });
  return { ...trace, task: { ...trace.task, groundTruths: task.answers.map(String) } };
}

const single = (type: AgentType): Design => designOf([{ id: 'solver', type }]);

async function simulate(task: MasBenchTask, design: Design, seed = 1): Promise<Trace> {
  return runDesign({ trace: traceOf(task), design, backend: simulatedBackend(task, seed) });
}

/** Fraction of `count` tasks on one axis value answered wrongly. */
async function errorRate(
  axis: MasBenchTask['axis'],
  value: number,
  design: Design,
  count = 200,
): Promise<number> {
  let wrong = 0;
  for (let seed = 0; seed < count; seed++) {
    const trace = await simulate(generateTask({ axis, value, seed }), design);
    if (trace.result.correct !== true) wrong += 1;
  }
  return wrong / count;
}

/** Events without the timing, which comes from the real clock. */
const untimed = (trace: Trace) =>
  trace.execution.events.map((e) => {
    const { t: _t, ...rest } = e;
    if (rest.type === 'llm.call') return { ...rest, latencyMs: 0 };
    return rest;
  });

describe('simulated backend', () => {
  const task = generateTask({ axis: 'depth', value: 4, seed: 11 });

  it('labels the run as a simulation', async () => {
    const trace = await simulate(task, single('SCAgent'), 3);
    expect(TraceSchema.safeParse(trace).success).toBe(true);
    expect(trace.execution.backend).toEqual({ kind: 'simulated', seed: 3, model: SIM_MODEL });
    expect(trace.tags).toContain('simulated');
    const calls = eventsOf(trace, 'llm.call');
    expect(calls).toHaveLength(5);
    for (const c of calls) {
      expect(c.label).toMatch(/^simulated · /);
      expect(c.model).toBe(SIM_MODEL);
      expect(c.output).toMatch(/\\boxed\{\d+\}/);
      expect(c.promptTokens).toBeGreaterThan(0);
      expect(c.completionTokens).toBeGreaterThan(0);
    }
  });

  it('is deterministic under a seed and differs across seeds', async () => {
    const design = designOf([
      { id: 'A', type: 'DebateAgent', params: { debateRoles: ['Solver', 'Checker'] } },
      { id: 'B', type: 'SCAgent', input: 'Double-check ${A}.' },
      { id: 'C', type: 'ReflexionAgent', input: 'Give the final answer using ${A} and ${B}.' },
    ]);
    const tasks = [0, 1, 2, 3, 4, 5].map((seed) => generateTask({ axis: 'robustness', value: 4, seed }));
    const runs = async (seed: number) => Promise.all(tasks.map((t) => simulate(t, design, seed)));
    const [a, b, c] = [await runs(7), await runs(7), await runs(8)];
    expect(a.map(untimed)).toEqual(b.map(untimed));
    expect(a.map(untimed)).not.toEqual(c.map(untimed));
  });

  it('reads which sub-tasks an agent is handed and which answers it already has', () => {
    const sim = prepareTask(task);
    const [s1, s2] = task.subtasks;
    expect(targetsOf(sim, task.question)).toEqual(task.asks);
    const byId = agentInput({ input: `Solve ${s2?.id ?? ''} only.` }, task.question, new Map());
    expect(targetsOf(sim, byId)).toEqual([s2?.id]);
    const byQuestion = agentInput({ input: s1?.question ?? '' }, task.question, new Map());
    expect(targetsOf(sim, byQuestion)).toEqual([s1?.id]);
    const combine = agentInput(
      { input: 'Combine ${A}.' },
      task.question,
      new Map([['A', `The number of ${sim.byId.get(s1?.id ?? '')?.name ?? ''} is 4.`]]),
    );
    expect(targetsOf(sim, combine)).toEqual(task.asks);
    expect(knownValues(sim, combine).get(s1?.id ?? '')).toBe(4);
  });

  it('passes given answers on: a wrong upstream value makes the downstream answer wrong', async () => {
    const chain = generateTask({ axis: 'depth', value: 3, seed: 5 });
    const sim = prepareTask(chain);
    const needed = neededSubtaskIds(chain);
    const root = chain.subtasks.find((s) => s.deps.length === 0 && needed.has(s.id));
    if (!root) throw new Error('fixture: no root sub-task');
    const name = sim.byId.get(root.id)?.name ?? '';
    const run = (value: number) =>
      runDesign({
        trace: traceOf(chain),
        design: designOf([{ id: 'A', input: `Use this: The number of ${name} is ${value}.` }]),
        backend: simulatedBackend(chain, 1),
      });
    const wrong = await run((root.answer + 1) % chain.modulus);
    expect(wrong.result.correct).toBe(false);
    expect(wrong.result.finalAnswer).not.toContain(`${name} is`);
  });

  it('errs more often on deeper tasks (200 tasks per depth)', async () => {
    const cot = single('CoTAgent');
    const rates = [
      await errorRate('depth', 2, cot),
      await errorRate('depth', 6, cot),
      await errorRate('depth', 12, cot),
    ];
    expect(rates[1] ?? 0).toBeGreaterThan((rates[0] ?? 0) + 0.05);
    expect(rates[2] ?? 0).toBeGreaterThan((rates[1] ?? 0) + 0.1);
  });

  it('errs less with self-consistency, at a higher token cost', async () => {
    const cotRate = await errorRate('depth', 10, single('CoTAgent'));
    const scRate = await errorRate('depth', 10, single('SCAgent'));
    expect(scRate).toBeLessThan(cotRate - 0.08);
    const t = generateTask({ axis: 'depth', value: 10, seed: 1 });
    const [cot, sc] = [await simulate(t, single('CoTAgent')), await simulate(t, single('SCAgent'))];
    expect(sc.totals.completionTokens).toBeGreaterThan(4 * cot.totals.completionTokens);
  });

  it('misleading notes raise the error rate; a downstream reviewer catches some of those errors', async () => {
    const plain = await errorRate('depth', 4, single('CoTAgent'), 150);
    const noted = await errorRate('robustness', 4, single('CoTAgent'), 150);
    expect(noted).toBeGreaterThan(plain);
    const unchecked = designOf([{ id: 'A' }, { id: 'B', input: 'State the final answer from ${A}.' }]);
    const checked = designOf([
      { id: 'A' },
      { id: 'B', type: 'ReflexionAgent', input: 'Verify ${A} and state the final answer.' },
    ]);
    const before = await errorRate('robustness', 4, unchecked, 150);
    const after = await errorRate('robustness', 4, checked, 150);
    expect(after).toBeLessThan(before - 0.1);
  });

  it('slip chance grows with the inputs and the load of a call, and is capped', () => {
    expect(slipChance(1, 1, 1)).toBeCloseTo(ERROR_MODEL.baseSlip);
    expect(slipChance(3, 1, 1)).toBeGreaterThan(slipChance(1, 1, 1));
    expect(slipChance(1, 10, 1)).toBeGreaterThan(slipChance(1, 1, 1));
    expect(slipChance(50, 500, 1)).toBe(ERROR_MODEL.maxSlip);
  });
});
