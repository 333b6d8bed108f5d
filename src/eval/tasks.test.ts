import { describe, expect, it } from 'vitest';
import { generateTask, splitForSeed, taskOfMasbench } from '../masbench/index.ts';
import { minimalTrace } from '../core/trace-builders.ts';
import { parseMethodWords } from './methods.ts';
import { masbenchTasks, parseAxes, parseTaskJsonl, tasksOfTraces } from './tasks.ts';

describe('parseAxes', () => {
  it('reads axis:value words and bare values', () => {
    const r = parseAxes('depth:2,6,robustness:3');
    expect(r).toEqual({
      ok: true,
      axes: [
        { axis: 'depth', values: [2, 6] },
        { axis: 'robustness', values: [3] },
      ],
    });
  });
  it('refuses unknown axes, out-of-range and repeated values, and values before an axis', () => {
    expect(parseAxes('width:2').ok).toBe(false);
    expect(parseAxes('depth:13').ok).toBe(false);
    expect(parseAxes('depth:2,2').ok).toBe(false);
    expect(parseAxes('3,depth:2').ok).toBe(false);
    expect(parseAxes('depth:2,depth:3').ok).toBe(false);
  });
});

describe('parseMethodWords', () => {
  it('reads every kind, with the policy mode', () => {
    const r = parseMethodWords('cot,SC,policy:prior,policy:random:3:sampled,design:d.xml,orchestrator:qwen');
    expect(r.ok && r.words).toEqual([
      { kind: 'agent', agent: 'cot' },
      { kind: 'agent', agent: 'sc' },
      { kind: 'policy', checkpoint: 'prior', greedy: true },
      { kind: 'policy', checkpoint: 'random:3', greedy: false },
      { kind: 'design', file: 'd.xml' },
      { kind: 'orchestrator', model: 'qwen' },
    ]);
  });
  it('refuses unknown and repeated methods', () => {
    expect(parseMethodWords('cot,gpt').ok).toBe(false);
    expect(parseMethodWords('cot,cot').ok).toBe(false);
    expect(parseMethodWords('').ok).toBe(false);
  });
});

describe('masbenchTasks', () => {
  it('takes n tasks per cell from the chosen split only, with distinct ids', () => {
    const tasks = masbenchTasks({
      kind: 'masbench',
      axes: [{ axis: 'depth', values: [2, 6] }],
      n: 7,
      seed: 11,
      split: 'test',
    });
    expect(tasks).toHaveLength(14);
    expect(tasks.every((t) => t.masbench !== null && splitForSeed(t.masbench.seed) === 'test')).toBe(true);
    expect(new Set(tasks.map((t) => t.id)).size).toBe(14);
    expect(tasks.filter((t) => t.value === 6)).toHaveLength(7);
  });
});

describe('parseTaskJsonl', () => {
  it('keeps good lines and names bad ones', () => {
    const text = [
      JSON.stringify({ query: 'What is 2+2?', answer: 4 }),
      '{not json',
      JSON.stringify({ query: 'Capital of France?', answer: 'Paris', checker: 'exact', id: 'fr' }),
      JSON.stringify({ answer: 1 }),
    ].join('\n');
    const r = parseTaskJsonl(text, 'mine.jsonl');
    expect(r.tasks.map((t) => [t.id, t.task.groundTruth, t.checker])).toEqual([
      ['mine.jsonl-1', '4', 'auto'],
      ['fr', 'Paris', 'exact'],
    ]);
    expect(r.problems.map((p) => p.split(':')[0])).toEqual(['line 2', 'line 4']);
  });
});

describe('tasksOfTraces', () => {
  it('regenerates MASBench tasks (so the simulator can run them) and dedupes', () => {
    const t = generateTask({ axis: 'breadth', value: 4, seed: 9 });
    const tr = { ...minimalTrace({ query: t.question }), task: taskOfMasbench(t) };
    const custom = minimalTrace({ query: 'free text', groundTruth: '1' });
    const tasks = tasksOfTraces([tr, tr, custom]);
    expect(tasks).toHaveLength(2);
    expect(tasks[0]?.masbench?.id).toBe(t.id);
    expect(tasks[1]?.masbench).toBeNull();
  });
});
