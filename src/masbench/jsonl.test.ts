import { describe, expect, it } from 'vitest';
import { generateTask, generateTasks } from './generate.ts';
import { fromJsonl, toJsonl } from './jsonl.ts';
import { MasBenchTaskSchema } from './schema.ts';

describe('toJsonl / fromJsonl', () => {
  it('round-trips tasks, one per line', () => {
    const tasks = generateTasks({ axis: 'breadth', value: 4, baseSeed: 7, count: 3 });
    const text = toJsonl(tasks);
    expect(text.split('\n')).toHaveLength(4);
    expect(text.endsWith('\n')).toBe(true);
    expect(fromJsonl(text)).toEqual({ tasks, problems: [] });
  });

  it('reports bad lines by number and keeps the good ones', () => {
    const good = toJsonl([generateTask({ axis: 'depth', value: 2, seed: 1 })]).trim();
    const { tasks, problems } = fromJsonl(
      [good, '{not json', '', '{"format":"baton.masbench/1"}'].join('\n'),
    );
    expect(tasks).toHaveLength(1);
    expect(problems.map((p) => p.line)).toEqual([2, 4]);
    expect(problems[0]?.message).toMatch(/^not JSON/);
  });
});

describe('MasBenchTaskSchema', () => {
  const task = generateTask({ axis: 'depth', value: 4, seed: 2 });
  const issues = (value: unknown) => {
    const r = MasBenchTaskSchema.safeParse(value);
    return r.success ? [] : r.error.issues.map((i) => i.message);
  };

  it('accepts a generated task', () => {
    expect(issues(task)).toEqual([]);
  });

  it('rejects answers that disagree with the asked sub-task', () => {
    const asked = task.answers[0] ?? 0;
    expect(issues({ ...task, answers: [(asked + 1) % 23] }).join()).toMatch(/answers\[0\] is/);
  });

  it('rejects a cycle and an unknown dep', () => {
    const [first, ...rest] = task.subtasks;
    if (!first) throw new Error('empty task');
    const last = rest[rest.length - 1]?.id ?? '';
    expect(issues({ ...task, subtasks: [{ ...first, deps: [last] }, ...rest] }).join()).toMatch(/cycle/);
    expect(issues({ ...task, subtasks: [{ ...first, deps: ['nope'] }, ...rest] }).join()).toMatch(
      /unknown "nope"/,
    );
  });

  it('rejects a claimed axis value the graph does not have', () => {
    expect(issues({ ...task, value: 5 }).join()).toMatch(/claims depth 5 but its graph measures 4/);
  });

  it('rejects a wrong format tag and oversized input', () => {
    expect(issues({ ...task, format: 'baton.masbench/0' }).length).toBeGreaterThan(0);
    expect(issues({ ...task, question: 'x'.repeat(100_001) }).length).toBeGreaterThan(0);
  });
});
