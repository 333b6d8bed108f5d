/**
 * The simulator's fast forms against their reference forms: the one-pass reading of stated values,
 * the per-task preparation and memos shared by a task's runs, and the per-description reading of
 * instructions. Each must give exactly what the reference gives.
 */
import { describe, expect, it } from 'vitest';
import { minimalTrace } from '../../core/trace-builders.ts';
import type { Design, Trace } from '../../core/trace.ts';
import { createRng } from '../../core/rng.ts';
import { generateTask, taskOfMasbench, type Axis, type MasBenchTask } from '../../masbench/index.ts';
import { DEFAULT_POOL, roleInstruction } from '../../policy/index.ts';
import { agentInput } from '../input.ts';
import { runDesign } from '../run.ts';
import { designOf } from '../test-helpers.ts';
import { simulatedBackend } from './backend.ts';
import { instructionOf, readInstruction } from './roles.ts';
import {
  knownValues,
  knownValuesScanned,
  namesId,
  prepareTask,
  preparedTask,
  readInput,
  readKnownValues,
  readTargets,
  targetsOf,
  valueSentence,
  type SimTask,
} from './task.ts';

const AXES: Axis[] = ['depth', 'parallel', 'robustness', 'breadth', 'horizon'];

/** A generated task whose sub-task names are replaced (their questions name the quantity). */
function withNames(names: readonly (readonly [string, string])[]): MasBenchTask {
  const task = generateTask({ axis: 'depth', value: names.length, seed: 5 });
  return {
    ...task,
    subtasks: task.subtasks.map((s, i) => {
      const [item, owner] = names[i % names.length] as readonly [string, string];
      return { ...s, question: `The facts. How many ${item} does each ${owner} have?` };
    }),
  };
}

/** Random text from pieces that make, break and overlap statements of the task's quantities. */
function randomText(sim: SimTask, seed: number): string {
  const rng = createRng(seed);
  const names = [...sim.byId.values()].map((s) => s.name);
  const pieces = [
    ...names,
    ...names.map((n) => `${n} is `),
    ...names.map((n) => `The number of ${n} is ${rng.int(30)}.`),
    ' is ',
    ' is -',
    'is ',
    '-',
    '--4',
    '7',
    '12',
    '-3',
    '٣',
    ' ',
    '\n',
    'each ',
    "'s ",
    ' equals ',
    'The overall task:\n',
  ];
  let text = '';
  const n = 1 + rng.int(24);
  for (let i = 0; i < n; i++) text += pieces[rng.int(pieces.length)] as string;
  return text;
}

const entries = (m: ReadonlyMap<string, number>) => [...m.entries()];

describe('stated values, read in one pass', () => {
  it('equal a regular-expression scan per sub-task on generated tasks and their agents’ inputs', async () => {
    let stated = 0;
    for (let i = 0; i < 25; i++) {
      const task = generateTask({ axis: AXES[i % 5] as Axis, value: 2 + (i % 4), seed: 40 + i });
      const sim = prepareTask(task);
      const subs = [...sim.byId.values()];
      const outputs = new Map([
        ['A', subs.map((s, j) => valueSentence(s, (j * 7) % task.modulus)).join('\n')],
        ['B', `From the earlier result: ${valueSentence(subs[0] as (typeof subs)[0], -2)}\n\\boxed{3}`],
      ]);
      const texts = [
        task.question,
        agentInput({ input: 'Check ${A}.' }, task.question, outputs),
        agentInput({ input: '${B} then ${A} then ${B}' }, task.question, outputs),
        ...Array.from({ length: 40 }, (_, k) => randomText(sim, 1000 * i + k)),
      ];
      for (const text of texts) {
        const got = knownValues(sim, text);
        expect(entries(got)).toEqual(entries(knownValuesScanned(sim, text)));
        stated += got.size;
      }
    }
    // The comparison covered texts that state values, not only texts that state none.
    expect(stated).toBeGreaterThan(500);
  });

  it('equal the scan when one name ends another, or a statement holds its own name again', () => {
    const sim = prepareTask(
      withNames([
        ['Pen', 'Bob'],
        ['Pen', "X's each Bob"],
        ["a is 1 each a's a", 'a'],
        ['Ink', 'Bob is 4 each Bob'],
      ]),
    );
    const fixed = [
      "each X's each Bob's Pen is 5",
      "each a's a is 1 each a's a is 1 each a's a is 2",
      "each a's a is 1 each a's a is 1 each a's a is 1 each a's a is 3 and -",
      "each Bob is 4 each Bob's Ink is 4 each Bob's Ink is 9",
      "each Bob's Pen is -0 each Bob's Pen is --1",
    ];
    const texts = [...fixed, ...Array.from({ length: 3000 }, (_, k) => randomText(sim, k))];
    let stated = 0;
    for (const text of texts) {
      const got = knownValues(sim, text);
      expect(entries(got)).toEqual(entries(knownValuesScanned(sim, text)));
      stated += got.size;
    }
    expect(stated).toBeGreaterThan(1000);
    // Overlapping statements read as the scan reads them: one that starts inside an earlier match
    // (the `… is 2` of the second text) is not a statement; the next one after it is.
    const self = [...sim.byId.values()].find((s) => s.item === "a is 1 each a's a")?.id ?? '';
    expect(knownValues(sim, fixed[1] as string).get(self)).toBe(1);
    expect(knownValues(sim, fixed[2] as string).get(self)).toBe(3);
  });
});

describe('sub-task ids named in a text, found without the pattern', () => {
  it('agree with the id pattern next to word characters, other characters and the ends', () => {
    const ids = ['s1', 's12', 'a.b', 'x-1', 'Q_2'];
    const pieces = [...ids, 's', '1', '2', '_', 'x', '.', '-', ' ', '\n', '(', 'é', '٣', 'S1', 'ab'];
    let found = 0;
    for (let k = 0; k < 4000; k++) {
      const rng = createRng(k);
      let text = '';
      for (let n = rng.int(10); n >= 0; n--) text += rng.pick(pieces);
      for (const id of ids) {
        const idRe = new RegExp(
          `(^|[^A-Za-z0-9_])${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9_])`,
        );
        const hit = namesId(text, { id, idRe });
        expect(hit).toBe(idRe.test(text));
        if (hit) found++;
      }
    }
    expect(found).toBeGreaterThan(1000);
  });
});

describe('per-task preparation, shared by a task’s runs', () => {
  it('is the same object for the same task and equals a fresh preparation', () => {
    const task = generateTask({ axis: 'breadth', value: 4, seed: 3 });
    expect(preparedTask(task)).toBe(preparedTask(task));
    expect(preparedTask(task)).toEqual(prepareTask(task));
    expect(preparedTask({ ...task })).not.toBe(preparedTask(task));
  });

  it('gives the assignment phrases the reader would build per call (mixed case, accents, Σ)', () => {
    const sim = prepareTask(
      withNames([
        ['ΣΟΦΙΑΣ', 'ΟΔΟΣ'],
        ['Éclair', 'İstanbul Shop'],
        ['Pen', 'Bob'],
      ]),
    );
    for (const s of sim.byId.values()) {
      const item = s.item.toLowerCase();
      const owner = s.owner.toLowerCase();
      expect(s.askedPhrases).toEqual([
        `many ${item} does each ${owner}`,
        `many ${item} each ${owner}`,
        `${item} per ${owner}`,
      ]);
      expect(s.namedPhrase).toBe(`${s.owner}'s ${s.item}`.toLowerCase());
    }
    const s2 = sim.byId.get('s2');
    const asked = agentInput(
      { input: `how many ${s2?.item ?? ''} does each ${s2?.owner ?? ''}` },
      'Q',
      new Map(),
    );
    const same = sim.order.filter((id) => sim.byId.get(id)?.name === s2?.name);
    expect(same).toContain('s2');
    expect(targetsOf(sim, asked)).toEqual(same);
  });

  it('reads a text’s targets and stated values from one memo entry, whichever is asked first', () => {
    const task = generateTask({ axis: 'depth', value: 4, seed: 11 });
    const first = task.subtasks[0];
    if (!first) throw new Error('no sub-task');
    const text = agentInput(
      { input: `${valueSentence(prepareTask(task).byId.get(first.id) ?? { name: 'x' }, 7)} Now s2.` },
      'Q',
      new Map(),
    );
    // Targets first on one copy of the task, stated values first on another: the same readings,
    // and a later `readInput` hands back the very objects each reader kept.
    const a = prepareTask(structuredClone(task));
    const b = prepareTask(structuredClone(task));
    const ta = readTargets(a, text);
    const kb = readKnownValues(b, text);
    const ra = readInput(a, text);
    const rb = readInput(b, text);
    expect(ra.targets).toBe(ta);
    expect(rb.given).toBe(kb);
    expect(ra.given).toBe(readKnownValues(a, text));
    expect(rb.targets).toBe(readTargets(b, text));
    expect([...ra.targets]).toEqual([...rb.targets]);
    expect([...ra.given]).toEqual([...rb.given]);
    expect([...ra.given]).toEqual([...knownValuesScanned(a, text)]);
    expect(ra.targets.length).toBeGreaterThan(0);
  });

  it('runs after other seeds’ runs of the same task object equal runs on a fresh copy', async () => {
    const design: Design = designOf([
      { id: 'A', type: 'SCAgent' },
      { id: 'B', type: 'ReflexionAgent', input: 'Check ${A}.' },
      { id: 'C', type: 'DebateAgent', input: 'Decide from ${A} and ${B}.' },
    ]);
    const run = (task: MasBenchTask, seed: number): Promise<Trace> =>
      runDesign({
        trace: minimalTrace({ query: task.question }),
        design,
        task: taskOfMasbench(task),
        backend: simulatedBackend(task, seed),
        startedAt: new Date(0).toISOString(),
        now: () => 0,
      });
    for (const [i, axis] of AXES.entries()) {
      const task = generateTask({ axis, value: 3, seed: 70 + i });
      const warm: Trace[] = [];
      for (const seed of [1, 2, 3]) warm.push(await run(task, seed));
      for (const [k, seed] of [1, 2, 3].entries()) {
        const cold = await run(structuredClone(task), seed);
        expect(warm[k]).toEqual(cold);
      }
    }
  });
});

describe('what an assignment asks for, with the parts it skips', () => {
  it('skips plan lines, stated values, boxes and placeholders that name a sub-task, and only those', () => {
    for (let i = 0; i < 10; i++) {
      const task = generateTask({ axis: AXES[i % 5] as Axis, value: 4, seed: 20 + i });
      const sim = prepareTask(task);
      const s = [...sim.byId.values()].find((x) => !task.asks.includes(x.id));
      if (!s) continue;
      const input = (part: string) => agentInput({ input: part }, task.question, new Map());
      const question = `How many ${s.item} does each ${s.owner} have?`;
      // Named outside the skipped parts, the sub-task is the assignment.
      expect(targetsOf(sim, input(`Answer this: ${question}`))).toEqual([s.id]);
      expect(targetsOf(sim, input(`Work on ${s.id}.`))).toEqual([s.id]);
      expect(targetsOf(sim, input(`Use each ${s.owner}'s ${s.item}.`))).toContain(s.id);
      // Inside them, it is not: the whole task is.
      for (const part of [
        `Sub-question: ${question}`,
        `Work item: ${question}`,
        `${valueSentence(s, 3)} Go on.`,
        `So \\boxed{${s.id}}.`,
        `[no output: agent ${s.id} failed (timeout); work without it]`,
      ])
        expect(targetsOf(sim, input(part))).toEqual(task.asks);
    }
  });
});

describe('instructions, read once per description', () => {
  it('equal a fresh reading for every role of the pool, the summariser and an empty description', () => {
    const agents = [
      ...DEFAULT_POOL.roles.map((r) => ({ type: r.agentType, description: roleInstruction(r) })),
      { type: 'SummarizerAgent' as const, description: '' },
      { type: 'CoTAgent' as const, description: '' },
      { type: 'SummarizerAgent' as const, description: roleInstruction(DEFAULT_POOL.roles[0]!) },
    ];
    for (let pass = 0; pass < 2; pass++)
      for (const a of agents) expect(readInstruction(a)).toEqual(instructionOf(a));
    // Not every role reads alike: the comparison covered several duties.
    expect(new Set(agents.map((a) => readInstruction(a).duty)).size).toBeGreaterThan(3);
  });
});
