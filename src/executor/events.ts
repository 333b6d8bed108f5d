/**
 * The run's events as an append-only log, and the trace it amounts to at any moment. The store
 * persists a growing trace: it can append each event as it arrives, or call `snapshot()` for the
 * whole trace so far (events copied, totals recomputed, status `running`).
 */
import { computeTotals } from '../core/totals.ts';
import type { ExecutionBackend, Trace, TraceEvent } from '../core/trace.ts';

export class EventLog {
  private readonly list: TraceEvent[] = [];

  append(event: TraceEvent): void {
    this.list.push(event);
  }

  get length(): number {
    return this.list.length;
  }

  /** The events so far, in the order they happened (read-only view, not a copy). */
  get events(): readonly TraceEvent[] {
    return this.list;
  }
}

export interface SnapshotParts {
  backend: ExecutionBackend;
  startedAt: string;
  tags: readonly string[];
}

/** The trace as it stands mid-run: `running`, no result yet, totals from the events so far. */
export function runningTrace(base: Trace, parts: SnapshotParts, events: readonly TraceEvent[]): Trace {
  return {
    ...base,
    execution: { backend: parts.backend, status: 'running', startedAt: parts.startedAt, events: [...events] },
    result: { finalAnswer: null, correct: null },
    totals: computeTotals(base.design, events),
    tags: mergeTags(base.tags, parts.tags),
  };
}

export function mergeTags(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])];
}
