import { describe, expect, it } from 'vitest';
import { splitForSeed } from '../masbench/index.ts';
import {
  beforeAfter,
  drawSplitTasks,
  heldOutQueries,
  summarizeHeldOut,
  type HeldOutDesign,
} from './orchestrator-eval.ts';

const row = (
  taskId: string,
  dom: 'low' | 'high',
  correct: boolean,
  tokens: number,
  agents = 1,
): HeldOutDesign => ({
  taskId,
  axis: 'depth',
  value: 2,
  dom,
  correct,
  tokens,
  agents,
  depth: agents,
  width: agents > 0 ? 1 : 0,
  roles: Array.from({ length: agents }, () => 'CoT'),
  designTokens: 20,
  forced: 15,
  valid: true,
});

describe('orchestrator held-out evaluation', () => {
  it('draws test-split tasks only, each in both DoM, over all axes', () => {
    const qs = heldOutQueries(10, [2, 3]);
    expect(qs).toHaveLength(20);
    expect(qs.every((q) => splitForSeed(q.task.seed) === 'test')).toBe(true);
    expect(new Set(qs.map((q) => q.task.axis)).size).toBe(5);
    expect(qs.filter((q) => q.dom === 'low')).toHaveLength(10);
    expect(
      drawSplitTasks({ count: 5, baseSeed: 1, split: 'train', values: [4] }).every((t) => t.value === 4),
    ).toBe(true);
  });

  it('summarises accuracy, tokens, forced share and delegation, and pairs before with after', () => {
    const before = [
      row('a', 'low', false, 100, 0),
      row('a', 'high', true, 300, 3),
      row('b', 'low', true, 200),
    ];
    const after = [row('a', 'low', true, 100), row('a', 'high', true, 200, 2), row('b', 'low', true, 100)];
    const s = summarizeHeldOut(before);
    expect(s.accuracy).toBeCloseTo(2 / 3);
    expect(s.tokens).toBe(200);
    expect(s.forcedShare).toBe(0.75);
    expect(s.lowDomDelegated).toBe(0.5);
    const ba = beforeAfter(before, after);
    expect(ba.accuracy.difference).toBeCloseTo(1 / 3);
    expect(ba.tokens.difference).toBeCloseTo(-200 / 3);
    expect(ba.after.lowDomDelegated).toBe(1);
    expect(() => beforeAfter(before, after.slice().reverse())).toThrow(/different queries/);
  });
});
