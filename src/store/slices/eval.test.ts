import { describe, expect, it } from 'vitest';
import { configKey, memoryEvalJournal } from '../services/eval.ts';
import { DEFAULT_EVAL_DRAFT, evalConfigOf } from './eval.ts';
import { minimalTrace } from '../../core/trace-builders.ts';

describe('evalConfigOf', () => {
  it('turns the default settings into a MASBench config on the simulator', () => {
    const c = evalConfigOf(DEFAULT_EVAL_DRAFT);
    expect(c.ok && c.config.methods.map((m) => (m.kind === 'agent' ? m.agent : m.kind))).toEqual([
      'cot',
      'sc',
      'reflexion',
      'debate',
      'ceo',
    ]);
    expect(c.ok && c.config.taskSet).toMatchObject({ kind: 'masbench', n: 20, split: 'test' });
  });
  it('names what is wrong', () => {
    const bad = evalConfigOf({ ...DEFAULT_EVAL_DRAFT, axes: 'depth:20' });
    expect(!bad.ok && bad.problems[0]?.code).toBe('E_EVAL_CONFIG');
    expect(evalConfigOf({ ...DEFAULT_EVAL_DRAFT, methods: 'design:x.xml' }).ok).toBe(false);
    expect(evalConfigOf({ ...DEFAULT_EVAL_DRAFT, budgetTokens: 'lots' }).ok).toBe(false);
  });
});

describe('the journal', () => {
  it('keys rows by the configuration without its budget', async () => {
    const a = evalConfigOf(DEFAULT_EVAL_DRAFT);
    const b = evalConfigOf({ ...DEFAULT_EVAL_DRAFT, budgetTokens: '5000' });
    const c = evalConfigOf({ ...DEFAULT_EVAL_DRAFT, seed: 1 });
    if (!a.ok || !b.ok || !c.ok) throw new Error('configs');
    expect(configKey(a.config)).toBe(configKey(b.config));
    expect(configKey(a.config)).not.toBe(configKey(c.config));
    const j = memoryEvalJournal();
    const trace = minimalTrace({ query: 'q', id: 't-1' });
    const row = {
      key: 'cot|x|0',
      method: 'cot',
      taskId: 'x',
      seed: 0,
      axis: null,
      value: null,
      traceId: 't-1',
      correct: true,
      status: 'completed' as const,
      tokens: 1,
      promptTokens: 1,
      completionTokens: 0,
      costUsd: 0,
      wallMs: 0,
      agents: 1,
      llmCalls: 1,
    };
    await j.add(a.config, row, trace);
    expect(await j.rows(b.config)).toEqual([row]);
    expect(await j.rows(c.config)).toEqual([]);
    expect((await j.trace('t-1'))?.id).toBe('t-1');
    await j.clear(a.config);
    expect(await j.rows(a.config)).toEqual([]);
  });
});
