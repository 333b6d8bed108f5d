import type { Trace } from '../core/trace.ts';

/**
 * Which of a trace's totals were recorded. A trace's totals are summed from its execution events;
 * a trace imported from a tool that published no events (MAS-Orchestra case pages, demo share
 * snapshots) has totals of 0 that mean "nobody recorded this", not "free and instant". A run made
 * here (simulated or on a provider) records its totals, so its zeros are real zeros.
 */
export interface RecordedTotals {
  /** Tokens, cost and the number of LLM calls. */
  usage: boolean;
  /** Wall time and critical path. */
  time: boolean;
}

export function recordedTotals(trace: Pick<Trace, 'execution'>): RecordedTotals {
  const { backend, status, events } = trace.execution;
  const ranHere = (backend.kind === 'simulated' || backend.kind === 'remote') && status !== 'not-run';
  return {
    usage: ranHere || events.some((e) => e.type === 'llm.call'),
    time: ranHere || events.length > 0,
  };
}
