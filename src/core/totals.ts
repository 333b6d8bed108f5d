import { longestPath } from './graph.ts';
import type { Design, TraceEvent, Totals } from './trace.ts';

/** Start and end (ms since run start) of each agent that started, from its events. */
export function agentSpans(
  events: readonly TraceEvent[],
): Map<string, { start: number; end: number | null }> {
  const spans = new Map<string, { start: number; end: number | null }>();
  for (const e of events) {
    if (e.type === 'agent.start') spans.set(e.agentId, { start: e.t, end: null });
    else if (e.type === 'agent.end' || e.type === 'agent.error') {
      const s = spans.get(e.agentId);
      if (s) s.end = e.t;
      else spans.set(e.agentId, { start: e.t, end: e.t });
    }
  }
  return spans;
}

/**
 * Derives the totals from the events: token and cost sums over `llm.call` events; wall time from
 * the first to the last event; critical path = the longest DAG path weighted by each agent's own
 * start→end time (what an unlimited-parallelism run could not beat).
 */
export function computeTotals(design: Design, events: readonly TraceEvent[]): Totals {
  let promptTokens = 0;
  let completionTokens = 0;
  let costUsd = 0;
  let llmCalls = 0;
  let first = Infinity;
  let last = 0;
  for (const e of events) {
    first = Math.min(first, e.t);
    last = Math.max(last, e.t + (e.type === 'llm.call' ? e.latencyMs : 0));
    if (e.type === 'llm.call') {
      promptTokens += e.promptTokens;
      completionTokens += e.completionTokens;
      costUsd += e.costUsd;
      llmCalls += 1;
    }
  }
  const spans = agentSpans(events);
  const critical = longestPath(
    design.agents.map((a) => a.id),
    design.edges,
    (id) => {
      const s = spans.get(id);
      return s && s.end !== null ? s.end - s.start : 0;
    },
  );
  return {
    promptTokens,
    completionTokens,
    costUsd: Math.round(costUsd * 1e9) / 1e9,
    llmCalls,
    wallMs: events.length > 0 ? last - first : 0,
    criticalPathMs: critical.length,
  };
}

export const ZERO_TOTALS: Totals = {
  promptTokens: 0,
  completionTokens: 0,
  costUsd: 0,
  llmCalls: 0,
  wallMs: 0,
  criticalPathMs: 0,
};
