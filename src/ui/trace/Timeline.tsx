import { memo, useEffect, useMemo, useRef, useState, type JSX } from 'react';
import type { Trace, TraceEvent } from '../../core/trace.ts';
import type { Replay, ReplayState } from '../../view/replay.ts';
import { timeTicks } from '../../view/ticks.ts';
import { STATUS_COLORS, typeColor } from '../graph/colors.ts';

/** Row geometry in px. Rows are virtualised: only those in (or near) the viewport are rendered. */
const ROW_H = 22;
const LABEL_W = 150;
const OVERSCAN = 6;

interface Row {
  id: string;
  type: string;
  start: number;
  /** null when the agent never ended (cancelled run or still running when the trace was saved). */
  end: number | null;
  calls: { t: number; ms: number; label: string }[];
}

/** One row per agent that ran, by start time, then agents that never started. */
function buildRows(trace: Trace, replay: Replay): Row[] {
  const rows: Row[] = [];
  const events = trace.execution.events;
  const seen = new Set<string>();
  for (const [id, idx] of replay.eventsByAgent) {
    let start = Infinity;
    let end: number | null = null;
    const calls: Row['calls'] = [];
    for (const i of idx) {
      const e = events[i] as TraceEvent;
      start = Math.min(start, e.t);
      if (e.type === 'llm.call') calls.push({ t: e.t, ms: e.latencyMs, label: e.label ?? e.callId });
      if (e.type === 'agent.end' || e.type === 'agent.error') end = e.t;
    }
    seen.add(id);
    rows.push({ id, type: replay.agents.get(id)?.type ?? 'CoTAgent', start, end, calls });
  }
  rows.sort((a, b) => a.start - b.start);
  for (const a of trace.design.agents) {
    if (!seen.has(a.id)) rows.push({ id: a.id, type: a.type, start: NaN, end: null, calls: [] });
  }
  return rows;
}

interface RowViewProps {
  row: Row;
  top: number;
  scale: number;
  origin: number;
  status: 'pending' | 'running' | 'done' | 'failed';
  time: number | null;
  selected: boolean;
  onSelect: (id: string) => void;
}

const RowView = memo(function RowView({
  row,
  top,
  scale,
  origin,
  status,
  time,
  selected,
  onSelect,
}: RowViewProps) {
  const color = typeColor(row.type);
  const hasSpan = Number.isFinite(row.start);
  const fullEnd = row.end ?? Math.max(row.start, ...row.calls.map((c) => c.t + c.ms));
  const shownEnd =
    status === 'running' && time !== null ? Math.min(fullEnd, Math.max(row.start, time)) : fullEnd;
  const x = (t: number): number => (t - origin) * scale;
  return (
    <div
      className={selected ? 'tl-row selected' : 'tl-row'}
      style={{ top, height: ROW_H }}
      data-testid="timeline-row"
      data-agent-id={row.id}
    >
      <button
        type="button"
        className="tl-label"
        style={{ width: LABEL_W }}
        onClick={() => onSelect(row.id)}
        title={row.id}
      >
        <span className="legend-swatch" style={{ background: color }} />
        {row.id}
      </button>
      <div className="tl-lane">
        {hasSpan && (
          <>
            <div
              className="tl-ghost"
              style={{ left: x(row.start), width: Math.max(2, x(fullEnd) - x(row.start)) }}
              onClick={() => onSelect(row.id)}
            />
            {status !== 'pending' && (
              <div
                className={`tl-bar tl-${status}`}
                style={{
                  left: x(row.start),
                  width: Math.max(2, x(shownEnd) - x(row.start)),
                  background: color,
                  borderColor: STATUS_COLORS[status],
                }}
                title={`${row.id}: ${Math.round(row.start)}–${Math.round(fullEnd)} ms (${status})`}
                onClick={() => onSelect(row.id)}
              >
                {row.calls
                  .filter((c) => time === null || c.t <= time)
                  .map((c, i) => (
                    <span
                      key={i}
                      className="tl-call"
                      title={`${c.label}: ${Math.round(c.ms)} ms`}
                      style={{ left: x(c.t) - x(row.start), width: Math.max(1, c.ms * scale) }}
                    />
                  ))}
              </div>
            )}
          </>
        )}
      </div>
    </div>
  );
});

export interface TimelineProps {
  trace: Trace;
  replay: Replay;
  state: ReplayState;
  selectedId: string | null;
  onSelect: (id: string) => void;
}

/** Why there is nothing to draw: the design never ran, or its source recorded only the outcome. */
export function noEventsText(trace: Trace): string {
  const { backend, status } = trace.execution;
  if (status === 'not-run') return 'No execution events: this design was not run.';
  if (status === 'running')
    return 'No execution events yet: the run had recorded none when this trace was saved.';
  const source = backend.kind === 'imported' ? backend.tool : 'The source';
  return `${source} recorded the run's outcome (${status}) and final answer, but no timings or calls, so there is no timeline to draw.`;
}

/** Gantt chart of the execution: one row per agent, LLM calls as sub-bars, the replay cursor. */
export function Timeline({ trace, replay, state, selectedId, onSelect }: TimelineProps): JSX.Element {
  const rows = useMemo(() => buildRows(trace, replay), [trace, replay]);
  const bodyRef = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ scrollTop: 0, height: 200, width: 600 });

  useEffect(() => {
    const el = bodyRef.current;
    if (!el) return;
    const measure = (): void =>
      setView({ scrollTop: el.scrollTop, height: el.clientHeight, width: el.clientWidth });
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    el.addEventListener('scroll', measure, { passive: true });
    return () => {
      ro.disconnect();
      el.removeEventListener('scroll', measure);
    };
  }, []);

  // Keeps the selected agent's row in view when it is selected elsewhere (graph, inspector link).
  // Reads the scroll position from state, not the DOM: a DOM read here would force a layout of the
  // whole page in the same task as the selection.
  const viewRef = useRef(view);
  useEffect(() => {
    viewRef.current = view;
  });
  useEffect(() => {
    const el = bodyRef.current;
    const i = selectedId ? rows.findIndex((r) => r.id === selectedId) : -1;
    if (!el || i < 0) return;
    const top = i * ROW_H;
    const { scrollTop, height } = viewRef.current;
    if (top < scrollTop || top + ROW_H > scrollTop + height) el.scrollTop = Math.max(0, top - height / 2);
  }, [selectedId, rows]);

  const { start: origin, end } = replay.timeSpan;
  // Sub-millisecond spans keep their scale (µs ticks); an untimed run (every event at 0) gets 1 ms.
  const span = end > origin ? end - origin : 1;
  const laneW = Math.max(50, view.width - LABEL_W - 16);
  const scale = laneW / span;
  const first = Math.max(0, Math.floor(view.scrollTop / ROW_H) - OVERSCAN);
  const last = Math.min(rows.length, Math.ceil((view.scrollTop + view.height) / ROW_H) + OVERSCAN);
  const cursor = state.time === null ? null : (state.time - origin) * scale;
  const tickList = timeTicks(span, laneW);

  if (trace.execution.events.length === 0) {
    return (
      <div className="timeline panel" data-testid="timeline">
        <p className="muted small timeline-empty" data-testid="timeline-empty">
          {noEventsText(trace)}
        </p>
      </div>
    );
  }

  return (
    <div className="timeline panel" data-testid="timeline">
      {replay.timeSpan.end === replay.timeSpan.start && (
        <p className="muted small timeline-note" data-testid="timeline-untimed">
          The source recorded no timings (every event is at 0 ms): the bars show which agents ran, not when.
        </p>
      )}
      <div className="tl-axis" style={{ paddingLeft: LABEL_W }}>
        {tickList.map(({ t, label }) => (
          <span key={t} className="tl-tick" data-testid="timeline-tick" style={{ left: LABEL_W + t * scale }}>
            {label}
          </span>
        ))}
        {cursor !== null && <span className="tl-cursor-head" style={{ left: LABEL_W + cursor }} />}
      </div>
      <div className="tl-body" ref={bodyRef}>
        <div className="tl-canvas" style={{ height: rows.length * ROW_H }}>
          {tickList.map(({ t }) => (
            <span key={t} className="tl-grid" style={{ left: LABEL_W + t * scale }} />
          ))}
          {rows.slice(first, last).map((row, k) => (
            <RowView
              key={row.id}
              row={row}
              top={(first + k) * ROW_H}
              scale={scale}
              origin={origin}
              status={state.progress.get(row.id)?.status ?? 'pending'}
              time={state.time}
              selected={row.id === selectedId}
              onSelect={onSelect}
            />
          ))}
          {cursor !== null && (
            <span className="tl-cursor" data-testid="timeline-cursor" style={{ left: LABEL_W + cursor }} />
          )}
        </div>
      </div>
    </div>
  );
}
