import { describe, expect, it } from 'vitest';
import { minimalTrace } from '../core/trace-builders.ts';
import type { Trace } from '../core/trace.ts';
import { recordedTotals } from './totals.ts';

const imported = (events: Trace['execution']['events'] = []): Trace => ({
  ...minimalTrace({ query: 'q', id: 'x' }),
  execution: { backend: { kind: 'imported', tool: 'MAS-Orchestra' }, status: 'completed', events },
});

describe('recordedTotals', () => {
  it('says an import without events recorded neither usage nor time', () => {
    expect(recordedTotals(imported())).toEqual({ usage: false, time: false });
  });

  it('counts an import with LLM calls as recorded', () => {
    const call = {
      type: 'llm.call' as const,
      t: 5,
      agentId: 'a',
      callId: 'c1',
      model: 'm',
      messages: [],
      output: 'o',
      promptTokens: 0,
      completionTokens: 0,
      latencyMs: 0,
      costUsd: 0,
    };
    expect(recordedTotals(imported([call]))).toEqual({ usage: true, time: true });
    const start = { type: 'agent.start' as const, t: 0, agentId: 'a', input: '' };
    expect(recordedTotals(imported([start]))).toEqual({ usage: false, time: true });
  });

  it('keeps the zeros of a run made here', () => {
    const run: Trace = {
      ...imported(),
      execution: { backend: { kind: 'simulated', seed: 1 }, status: 'completed', events: [] },
    };
    expect(recordedTotals(run)).toEqual({ usage: true, time: true });
    const notRun: Trace = { ...run, execution: { ...run.execution, status: 'not-run' } };
    expect(recordedTotals(notRun)).toEqual({ usage: false, time: false });
  });
});
