import { hashString } from './rng.ts';
import { computeTotals, ZERO_TOTALS } from './totals.ts';
import { TRACE_FORMAT, type Designer, type Task, type Trace } from './trace.ts';

export interface MinimalTraceOptions {
  query: string;
  groundTruth?: string | null;
  title?: string;
  /** ISO time; pure code takes it as input (default: the epoch, for tests and fixtures). */
  createdAt?: string;
  id?: string;
  source?: Task['source'];
  designer?: Designer;
}

/** A stable id from content, so the same import gives the same trace id every time. */
export function traceIdFrom(...parts: string[]): string {
  return `t-${hashString(parts.join('\u0001')).toString(36)}-${hashString(parts.join('\u0002')).toString(36)}`;
}

/** The smallest valid trace: a task, no design, not run. Builders fill in the rest. */
export function minimalTrace(o: MinimalTraceOptions): Trace {
  const createdAt = o.createdAt ?? new Date(0).toISOString();
  return {
    format: TRACE_FORMAT,
    id: o.id ?? traceIdFrom(o.query, createdAt),
    title: o.title ?? (o.query.trim().split('\n')[0] ?? '').slice(0, 80),
    createdAt,
    task: { query: o.query, groundTruth: o.groundTruth ?? null, source: o.source ?? { kind: 'custom' } },
    designer: o.designer ?? { kind: 'manual' },
    construction: [],
    design: { dom: 'high', agents: [], edges: [] },
    execution: { backend: { kind: 'none' }, status: 'not-run', events: [] },
    result: { finalAnswer: null, correct: null },
    totals: { ...ZERO_TOTALS },
    tags: [],
  };
}

/** Returns the trace with `totals` recomputed from its design and events. */
export function withTotals(trace: Trace): Trace {
  return { ...trace, totals: computeTotals(trace.design, trace.execution.events) };
}
