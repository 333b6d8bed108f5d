import { describe, expect, it } from 'vitest';
import { findCycle, graphProblems, measureAxes, neededSubtaskIds, type SubtaskGraph } from './measure.ts';

const node = (id: string, deps: string[] = [], note?: string) => (note ? { id, deps, note } : { id, deps });

describe('measureAxes', () => {
  it('measures a hand-built graph', () => {
    // a → b → d (asked), c → d, e → f (second component, f asked), x reads d and is not asked.
    const graph: SubtaskGraph = {
      subtasks: [
        node('a'),
        node('b', ['a'], 'b is 3'),
        node('c'),
        node('d', ['b', 'c']),
        node('e'),
        node('f', ['e'], 'f is 1'),
        node('x', ['d']),
      ],
      asks: ['d', 'f'],
    };
    expect(measureAxes(graph)).toEqual({ depth: 3, breadth: 2, parallel: 2, horizon: 2, robustness: 2 });
  });

  it('counts depth only along chains that end at an asked sub-task', () => {
    const graph: SubtaskGraph = {
      subtasks: [node('a'), node('b', ['a']), node('c', ['b']), node('d', ['c'])],
      asks: ['b'],
    };
    expect(measureAxes(graph).depth).toBe(2);
  });

  it('counts an isolated sub-task as its own component', () => {
    const graph: SubtaskGraph = { subtasks: [node('a'), node('b', ['a']), node('lonely')], asks: ['b'] };
    expect(measureAxes(graph).parallel).toBe(2);
  });

  it('refuses graphs with cycles or unknown deps', () => {
    expect(() => measureAxes({ subtasks: [node('a', ['b']), node('b', ['a'])], asks: ['a'] })).toThrow(
      /cycle/,
    );
    expect(() => measureAxes({ subtasks: [node('a', ['zz'])], asks: ['a'] })).toThrow(/unknown "zz"/);
  });
});

describe('graphProblems', () => {
  it('reports duplicates, self-deps, unknown asks and repeated asks', () => {
    const messages = graphProblems({
      subtasks: [node('a'), node('a'), node('b', ['b']), node('c', ['a', 'a'])],
      asks: ['q', 'c', 'c'],
    }).map((p) => p.message);
    expect(messages).toEqual([
      'sub-task id "a" is used twice',
      'sub-task "b" depends on itself',
      'sub-task "c" lists "a" twice',
      'asked sub-task "q" does not exist',
      'sub-task "c" is asked twice',
    ]);
  });

  it('finds a cycle and names it', () => {
    const graph = { subtasks: [node('a', ['c']), node('b', ['a']), node('c', ['b'])], asks: ['a'] };
    expect(findCycle(graph)).toEqual(['a', 'c', 'b', 'a']);
    expect(graphProblems(graph)[0]?.message).toBe('dependency cycle: a → c → b → a');
  });
});

describe('neededSubtaskIds', () => {
  it('holds the asked sub-tasks and their ancestors only', () => {
    const graph = { subtasks: [node('a'), node('b', ['a']), node('c'), node('x', ['b'])], asks: ['b'] };
    expect([...neededSubtaskIds(graph)].sort()).toEqual(['a', 'b']);
  });
});
