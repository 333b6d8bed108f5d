import { describe, expect, it } from 'vitest';
import { generateTask, generateTasks, splitForSeed, taskSeed } from './generate.ts';
import { measureAxes } from './measure.ts';
import { AXES, MasBenchTaskSchema, type Axis, type MasBenchTask } from './schema.ts';

/**
 * An evaluator that knows nothing of the generator's internals: it reads each sub-task's sentence
 * back from its question text, resolves the quantities it names to sub-tasks, and computes the
 * answers modulo the stated modulus.
 */
function evaluateFromText(task: MasBenchTask): Map<string, number> {
  const head =
    /^The number of (each .+?'s .+?) equals (.+)\. Arithmetic is modulo (\d+)\. How many .+ does each .+ have\?$/;
  const parsed = task.subtasks.map((s) => {
    const m = head.exec(s.question);
    if (!m) throw new Error(`unparsed question: ${s.question}`);
    return { id: s.id, name: m[1] as string, rhs: m[2] as string, modulus: Number(m[3]) };
  });
  const idByName = new Map(parsed.map((p) => [p.name, p.id] as const));
  const ref = (name: string): string => {
    const id = idByName.get(name);
    if (id === undefined) throw new Error(`unknown quantity "${name}"`);
    return id;
  };
  const values = new Map<string, number>();
  const valueOf = (id: string): number => {
    const known = values.get(id);
    if (known !== undefined) return known;
    const p = parsed.find((x) => x.id === id);
    if (!p) throw new Error(`no sub-task ${id}`);
    const mod = (x: number) => ((x % p.modulus) + p.modulus) % p.modulus;
    const refs: string[] = [];
    let v: number;
    let m: RegExpExecArray | null;
    if ((m = /^(\d+)$/.exec(p.rhs))) v = Number(m[1]);
    else if ((m = /^(\d+) more than (each .+)$/.exec(p.rhs))) {
      refs.push(ref(m[2] as string));
      v = Number(m[1]) + valueOf(refs[0] as string);
    } else if ((m = /^(\d+) times as much as (each .+)$/.exec(p.rhs))) {
      refs.push(ref(m[2] as string));
      v = Number(m[1]) * valueOf(refs[0] as string);
    } else if ((m = /^the sum of (.+)$/.exec(p.rhs))) {
      refs.push(...(m[1] as string).split(/, | and /).map(ref));
      v = refs.reduce((s, r) => s + valueOf(r), 0);
    } else if ((m = /^(each .+) minus (each .+)$/.exec(p.rhs))) {
      refs.push(ref(m[1] as string), ref(m[2] as string));
      v = valueOf(refs[0] as string) - valueOf(refs[1] as string);
    } else if ((m = /^(each .+) times (each .+)$/.exec(p.rhs))) {
      refs.push(ref(m[1] as string), ref(m[2] as string));
      v = valueOf(refs[0] as string) * valueOf(refs[1] as string);
    } else if ((m = /^(each .+)$/.exec(p.rhs))) {
      refs.push(ref(m[1] as string));
      v = valueOf(refs[0] as string);
    } else throw new Error(`unparsed formula: ${p.rhs}`);
    const deps = task.subtasks.find((s) => s.id === id)?.deps ?? [];
    expect([...refs].sort(), `deps of ${id}`).toEqual([...deps].sort());
    values.set(id, mod(v));
    return mod(v);
  };
  for (const p of parsed) valueOf(p.id);
  return values;
}

/** Documented values of the axes that are not being varied (docs/masbench.md, shapes.ts). */
function expectedAxes(axis: Axis, v: number) {
  const table = {
    depth: { depth: v, breadth: 1, parallel: 1, horizon: 1, robustness: 0 },
    breadth: { depth: 2, breadth: v, parallel: 1, horizon: 1, robustness: 0 },
    parallel: { depth: 2, breadth: 1, parallel: v, horizon: v, robustness: 0 },
    horizon: { depth: 2, breadth: 1, parallel: 1, horizon: v, robustness: 0 },
    robustness: { depth: 3, breadth: 3, parallel: 1, horizon: 1, robustness: v },
  };
  return table[axis];
}

const VALUES = Array.from({ length: 11 }, (_, i) => i + 2);
const SEEDS = [0, 1, 42, 2024, 4294967295];

describe('generateTask on every axis × value 2..12 × seed', () => {
  for (const axis of AXES) {
    it(`${axis}: measures exactly as requested, with correct answers and a valid graph`, () => {
      for (const value of VALUES) {
        for (const seed of SEEDS) {
          const task = generateTask({ axis, value, seed });
          const where = `${axis}=${value} seed=${seed}`;
          expect(measureAxes(task), where).toEqual(expectedAxes(axis, value));

          const ids = task.subtasks.map((s) => s.id);
          expect(new Set(ids).size, where).toBe(ids.length);
          for (const s of task.subtasks) for (const d of s.deps) expect(ids, where).toContain(d);

          const computed = evaluateFromText(task);
          for (const s of task.subtasks) expect(s.answer, `${where} ${s.id}`).toBe(computed.get(s.id));
          expect(task.answers, where).toEqual(task.asks.map((a) => computed.get(a)));

          expect(MasBenchTaskSchema.safeParse(task).success, where).toBe(true);
        }
      }
    });
  }
});

describe('question text', () => {
  it('states the modulus, every sub-task sentence once, and asks in the order of asks', () => {
    const task = generateTask({ axis: 'parallel', value: 4, seed: 9 });
    expect(task.question).toMatch(/^All arithmetic is modulo 23/);
    for (const s of task.subtasks) {
      const sentence = s.question.split(' Arithmetic is modulo')[0] as string;
      expect(task.question.split(sentence).length - 1).toBe(1);
    }
    const positions = task.asks.map((id) => {
      const ask = (task.subtasks.find((s) => s.id === id)?.question ?? '').replace(
        /^.*Arithmetic is modulo 23\. /,
        '',
      );
      return task.question.indexOf(ask);
    });
    expect(positions.every((p) => p > 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(task.question).toContain('Answer these 4 questions in this order');
  });

  it('puts each misleading note in the question next to its sentence, claiming a wrong value', () => {
    for (const seed of SEEDS) {
      const task = generateTask({ axis: 'robustness', value: 12, seed });
      const noted = task.subtasks.filter((s) => s.note !== undefined);
      expect(noted).toHaveLength(12);
      for (const s of noted) {
        const sentence = s.question.split(' Arithmetic is modulo')[0] as string;
        expect(task.question).toContain(`${sentence} ${s.note}`);
        const claimed = Number(/(\d+)\.\)?$/.exec(s.note ?? '')?.[1]);
        expect(Number.isInteger(claimed)).toBe(true);
        expect(claimed).not.toBe(s.answer);
        expect(claimed).toBeLessThan(23);
      }
    }
  });

  it('has no notes off the robustness axis', () => {
    for (const axis of AXES.filter((a) => a !== 'robustness')) {
      const task = generateTask({ axis, value: 12, seed: 5 });
      expect(task.subtasks.some((s) => s.note !== undefined)).toBe(false);
      expect(task.question).not.toMatch(/Note:|Hint:|answer key/);
    }
  });

  it('states distractors: sub-tasks no asked answer needs', () => {
    const task = generateTask({ axis: 'depth', value: 3, seed: 11, distractors: 4 });
    expect(task.subtasks).toHaveLength(7);
    expect(measureAxes(task)).toEqual(expectedAxes('depth', 3));
    const none = generateTask({ axis: 'depth', value: 3, seed: 11, distractors: 0 });
    expect(none.subtasks).toHaveLength(3);
  });
});

describe('seeds and splits', () => {
  it('is deterministic in (axis, value, seed) and varies with the seed', () => {
    expect(generateTask({ axis: 'depth', value: 5, seed: 3 })).toEqual(
      generateTask({ axis: 'depth', value: 5, seed: 3 }),
    );
    expect(generateTask({ axis: 'depth', value: 5, seed: 3 }).question).not.toBe(
      generateTask({ axis: 'depth', value: 5, seed: 4 }).question,
    );
  });

  it('derives the split from the seed alone, about one in five seeds being test', () => {
    const seeds = Array.from({ length: 2000 }, (_, i) => i);
    const tests = seeds.filter((s) => splitForSeed(s) === 'test').length;
    expect(tests).toBeGreaterThan(330);
    expect(tests).toBeLessThan(470);
    for (const seed of seeds.slice(0, 20)) {
      const splits = new Set(AXES.map((axis) => generateTask({ axis, value: 2, seed }).split));
      expect([...splits]).toEqual([splitForSeed(seed)]);
    }
  });

  it('gives distinct per-task seeds in a batch and ids naming axis, value and seed', () => {
    const tasks = generateTasks({ axis: 'horizon', value: 3, baseSeed: 1, count: 50 });
    expect(new Set(tasks.map((t) => t.seed)).size).toBe(50);
    expect(tasks[0]?.seed).toBe(taskSeed(1, 0));
    expect(tasks[0]?.id).toBe(`masbench-horizon-3-${taskSeed(1, 0)}`);
  });

  it('rejects out-of-range options with a message', () => {
    expect(() => generateTask({ axis: 'depth', value: 13, seed: 1 })).toThrow(
      /value must be an integer from 2 to 12/,
    );
    expect(() => generateTask({ axis: 'depth', value: 2.5, seed: 1 })).toThrow(/value/);
    expect(() => generateTask({ axis: 'width' as Axis, value: 3, seed: 1 })).toThrow(/unknown axis "width"/);
    expect(() => generateTask({ axis: 'depth', value: 3, seed: -1 })).toThrow(/seed/);
  });
});
