import { useMemo, useState, type JSX } from 'react';
import { AGENT_TYPE_INFO } from '../../core/agents.ts';
import type { Trace } from '../../core/trace.ts';
import { layoutKey, layoutLayered } from '../../view/layout.ts';
import { buildReplay, replayStateAt, type AgentStatus } from '../../view/replay.ts';
import { interruptedAt } from '../../store/slices/run.ts';
import { useBaton } from '../../store/store.ts';
import { traceHash } from '../app/route.ts';
import { shownAnswer } from '../common/answer.ts';
import { CorrectnessBadge } from '../common/Badges.tsx';
import { GraphView } from '../graph/GraphView.tsx';
import { formatCost, formatTokens } from '../common/format.ts';
import { SimulatedBadge } from './BackendPicker.tsx';

interface AgentRow {
  id: string;
  type: string;
  status: AgentStatus;
  output: string | null;
  error: string | null;
  calls: number;
  tokens: number;
}

function rowsOf(trace: Trace): AgentRow[] {
  const rows = new Map<string, AgentRow>(
    trace.design.agents.map((a) => [
      a.id,
      { id: a.id, type: a.type, status: 'pending', output: null, error: null, calls: 0, tokens: 0 },
    ]),
  );
  for (const e of trace.execution.events) {
    if (!('agentId' in e)) continue;
    const r = rows.get(e.agentId);
    if (!r) continue;
    if (e.type === 'agent.start') r.status = 'running';
    else if (e.type === 'llm.call') {
      r.calls += 1;
      r.tokens += e.promptTokens + e.completionTokens;
    } else if (e.type === 'agent.end') {
      r.status = 'done';
      r.output = e.output;
    } else if (e.type === 'agent.error') {
      r.status = 'failed';
      r.error = e.error;
    }
  }
  return [...rows.values()];
}

function StatusLine({ trace, liveRunId }: { trace: Trace; liveRunId: string | null }): JSX.Element {
  const stoppedAt = interruptedAt(trace, liveRunId);
  const status = trace.execution.status;
  if (stoppedAt !== null) {
    return (
      <span className="badge badge-warn" data-testid="run-status" data-status="interrupted">
        interrupted — stopped at event {stoppedAt}
      </span>
    );
  }
  const cls =
    status === 'completed'
      ? 'badge-ok'
      : status === 'running'
        ? 'badge-muted'
        : status === 'failed'
          ? 'badge-bad'
          : 'badge-warn';
  return (
    <span className={`badge ${cls}`} data-testid="run-status" data-status={status}>
      {status === 'running' ? `running · ${trace.execution.events.length} events` : status}
    </span>
  );
}

/** The answer as the grader read it from the final output, and the whole output on request. */
function FinalAnswer({ trace }: { trace: Trace }): JSX.Element {
  const output = trace.result.finalAnswer;
  const { groundTruths, groundTruth } = trace.task;
  const truths =
    groundTruths && groundTruths.length > 0 ? groundTruths : groundTruth === null ? [] : [groundTruth];
  const shown = output === null ? null : shownAnswer(output, truths);
  return (
    <div className="run-final" data-testid="run-final">
      <span className="muted small">Final answer</span> <CorrectnessBadge correct={trace.result.correct} />
      <pre className="run-pre" data-testid="run-final-answer" data-extracted={shown?.extracted ?? false}>
        {shown ? shown.answer : '(none: the final agent failed)'}
      </pre>
      {shown?.extracted && output !== null && (
        <details className="run-final-output">
          <summary className="muted small">The final agent’s whole output</summary>
          <pre className="run-pre" data-testid="run-final-output">
            {output}
          </pre>
        </details>
      )}
    </div>
  );
}

/** The run as it happens: the DAG lighting up, each agent's status and output as calls finish. */
export function LiveRun({ trace, liveRunId }: { trace: Trace; liveRunId: string | null }): JSX.Element {
  const replay = useMemo(() => buildReplay(trace), [trace]);
  const state = useMemo(() => replayStateAt(replay, trace, replay.length), [replay, trace]);
  const design = trace.design;
  const graph = useMemo(() => ({ nodes: design.agents.map((a) => a.id), edges: design.edges }), [design]);
  const key = useMemo(() => layoutKey(graph), [graph]);
  // The Trace page's layout (dagre's positions without dagre), once per design: a run never
  // changes its design, so nodes keep their place while statuses change.
  const positions = useMemo(() => layoutLayered(graph), [graph]);
  const rows = useMemo(() => rowsOf(trace), [trace]);
  const streams = useBaton((s) => s.liveStreams);
  const [selected, setSelected] = useState<string | null>(null);
  const simulated = trace.execution.backend.kind === 'simulated';
  const finished = trace.execution.status !== 'running';
  return (
    <section className="run-live" data-testid="run-live" data-trace-id={trace.id}>
      <div className="run-live-head">
        <strong className="run-live-title">{trace.title}</strong>
        <StatusLine trace={trace} liveRunId={liveRunId} />
        {simulated && <SimulatedBadge />}
        <span className="muted small">
          {trace.totals.llmCalls} calls ·{' '}
          {formatTokens(trace.totals.promptTokens + trace.totals.completionTokens)} tokens ·{' '}
          {formatCost(trace.totals.costUsd)}
        </span>
        {(finished || liveRunId !== trace.id) && (
          <a className="btn btn-small" href={traceHash(trace.id)} data-testid="run-open-trace">
            Open the trace
          </a>
        )}
      </div>
      <div className="run-live-graph">
        <GraphView
          replay={replay}
          state={state}
          positions={positions}
          graphKey={key}
          selectedId={selected}
          onSelect={setSelected}
        />
      </div>
      {finished && trace.execution.status !== 'cancelled' && <FinalAnswer trace={trace} />}
      <ol className="run-agents" data-testid="run-agents">
        {rows.map((r) => (
          <li
            key={r.id}
            className={selected === r.id ? 'run-agent selected' : 'run-agent'}
            data-testid="run-agent"
            data-agent-id={r.id}
            data-status={r.status}
            onClick={() => setSelected(r.id)}
          >
            <div className="run-agent-head">
              <span className={`run-pill status-${r.status}`}>{r.status}</span>
              <strong className="mono">{r.id}</strong>
              <span className="muted small">
                {AGENT_TYPE_INFO[r.type as keyof typeof AGENT_TYPE_INFO]?.label ?? r.type} · {r.calls} calls ·{' '}
                {formatTokens(r.tokens)} tokens
              </span>
            </div>
            {r.error !== null && (
              <p className="run-agent-error" data-testid="run-agent-error">
                {r.error}
              </p>
            )}
            {r.status === 'running' && streams[r.id] !== undefined && (
              <div className="run-agent-stream" data-testid="run-agent-stream">
                <span className="muted small">{streams[r.id]?.label} · streaming</span>
                <pre className="run-pre">{streams[r.id]?.text}</pre>
              </div>
            )}
            {r.output !== null && (
              <pre className="run-pre run-agent-output" data-testid="run-agent-output">
                {r.output}
              </pre>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}
