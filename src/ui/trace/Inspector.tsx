import { useMemo, type JSX } from 'react';
import { AGENT_TYPE_INFO } from '../../core/agents.ts';
import type { Agent, Trace, TraceEvent } from '../../core/trace.ts';
import { splitReferences } from '../../design/references.ts';
import type { Replay, ReplayState } from '../../view/replay.ts';
import { STATUS_COLORS, typeColor } from '../graph/colors.ts';
import { formatCost, formatMs, formatTokens } from '../common/format.ts';
import { CollapsibleMarkdown, DeferredMarkdown, Markdown } from '../markdown/Markdown.tsx';
import { Disclosure } from './Disclosure.tsx';

type LlmCall = Extract<TraceEvent, { type: 'llm.call' }>;

export interface InspectorProps {
  trace: Trace;
  replay: Replay;
  state: ReplayState;
  selectedId: string | null;
  onSelect: (id: string | null) => void;
}

function ParamValue({ value }: { value: unknown }): JSX.Element {
  if (Array.isArray(value)) {
    return (
      <ul className="param-list">
        {value.map((v, i) => (
          <li key={i}>{String(v)}</li>
        ))}
      </ul>
    );
  }
  return <span>{String(value)}</span>;
}

function Params({ agent }: { agent: Agent }): JSX.Element | null {
  const entries = Object.entries(agent.params).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return null;
  const label: Record<string, string> = {
    debateRoles: 'Debate roles',
    samples: 'Samples',
    maxRounds: 'Max rounds',
    temperature: 'Temperature',
    maxTokens: 'Max tokens',
    model: 'Model',
  };
  return (
    <section className="insp-section">
      <h4>Parameters</h4>
      <dl className="kv">
        {entries.map(([k, v]) => (
          <div key={k} className="kv-row">
            <dt>{label[k] ?? k}</dt>
            <dd>
              <ParamValue value={v} />
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

/** The agent's input with each `${id}` shown as a link to that agent and its output (collapsible). */
function Input({
  agent,
  state,
  onSelect,
}: {
  agent: Agent;
  state: ReplayState;
  onSelect: (id: string) => void;
}): JSX.Element {
  const parts = splitReferences(agent.input);
  return (
    <section className="insp-section">
      <h4>Input</h4>
      {agent.input.trim() === '' ? (
        <p className="muted">The original question.</p>
      ) : (
        <div className="insp-input">
          {parts.map((p, i) => {
            if (p.kind === 'text') {
              return (
                <span key={i} className="input-text">
                  {p.text}
                </span>
              );
            }
            const out = state.progress.get(p.id)?.output ?? null;
            return (
              <Disclosure
                key={i}
                className="input-ref"
                testId="input-ref"
                summary={
                  <>
                    <code>{'${' + p.id + '}'}</code>
                    <button
                      type="button"
                      className="link-button"
                      onClick={(e) => {
                        e.preventDefault();
                        onSelect(p.id);
                      }}
                    >
                      select {p.id}
                    </button>
                  </>
                }
              >
                {out === null ? (
                  <p className="muted small">No output from {p.id} at this replay position.</p>
                ) : (
                  <div className="ref-output">
                    <CollapsibleMarkdown text={out} limit={600} />
                  </div>
                )}
              </Disclosure>
            );
          })}
        </div>
      )}
    </section>
  );
}

function Tokens({ call }: { call: LlmCall }): JSX.Element {
  return (
    <span title="prompt / completion tokens">
      {formatTokens(call.promptTokens)} / {formatTokens(call.completionTokens)} tok
      {call.tokensEstimated && (
        <span className="chip chip-warn" title="The provider reported no usage; these counts are estimates.">
          estimated
        </span>
      )}
    </span>
  );
}

function Call({ call, n }: { call: LlmCall; n: number }): JSX.Element {
  return (
    <article className="llm-call" data-testid="llm-call">
      <header className="llm-call-head">
        <strong>{call.label ?? `call ${n}`}</strong>
        <span className="chip">{call.model}</span>
        <span className="llm-call-stats">
          <Tokens call={call} />
          <span>{formatMs(call.latencyMs)}</span>
          <span>{formatCost(call.costUsd)}</span>
        </span>
      </header>
      {call.error && <p className="insp-error">Error: {call.error}</p>}
      <Disclosure
        className="llm-messages"
        summary={`${call.messages.length} ${call.messages.length === 1 ? 'message' : 'messages'}`}
      >
        {call.messages.map((m, i) => (
          <div key={i} className={`msg msg-${m.role}`}>
            <span className="msg-role">{m.role}</span>
            <CollapsibleMarkdown text={m.content} limit={800} />
          </div>
        ))}
      </Disclosure>
      <div className="llm-output">
        <span className="msg-role">output</span>
        <DeferredMarkdown text={call.output} />
      </div>
    </article>
  );
}

/** Everything about the selected agent at the current replay position. */
export function Inspector({ trace, replay, state, selectedId, onSelect }: InspectorProps): JSX.Element {
  const agent = selectedId ? replay.agents.get(selectedId) : undefined;
  const events = useMemo(() => {
    if (!selectedId) return [];
    const all = trace.execution.events;
    return (replay.eventsByAgent.get(selectedId) ?? [])
      .filter((i) => i < state.eventsApplied)
      .map((i) => all[i] as TraceEvent);
  }, [trace, replay, selectedId, state.eventsApplied]);

  if (!selectedId || !agent) {
    return (
      <aside className="inspector panel" data-testid="inspector">
        <div className="empty-hint">
          <h3>Inspector</h3>
          <p className="muted">
            Click an agent in the graph or a bar in the timeline to see its input, calls and output.
          </p>
        </div>
      </aside>
    );
  }
  const pr = state.progress.get(agent.id);
  const visible = state.agents.includes(agent.id);
  const status = pr?.status ?? 'pending';
  const calls = events.filter((e): e is LlmCall => e.type === 'llm.call');
  const start = events.find((e) => e.type === 'agent.start');
  let n = 0;
  return (
    <aside className="inspector panel" data-testid="inspector" data-agent-id={agent.id}>
      <header className="insp-head" style={{ ['--type-color' as string]: typeColor(agent.type) }}>
        <div className="insp-title">
          <h3 data-testid="inspector-agent-id">{agent.id}</h3>
          <button type="button" className="icon-button small" title="Close" onClick={() => onSelect(null)}>
            ✕
          </button>
        </div>
        <div className="insp-chips">
          <span className="chip chip-type">{AGENT_TYPE_INFO[agent.type].label}</span>
          <span className="chip" style={{ color: STATUS_COLORS[status] }}>
            ● {status}
          </span>
          {replay.sink === agent.id && <span className="chip chip-sink">★ final answer</span>}
          {agent.role && <span className="chip">role: {agent.role}</span>}
          {!visible && <span className="chip chip-warn">not in the graph at this position</span>}
        </div>
        <p className="muted small">{AGENT_TYPE_INFO[agent.type].summary}</p>
      </header>
      <section className="insp-section">
        <h4>Description</h4>
        <Markdown text={agent.description} />
      </section>
      <Params agent={agent} />
      <Input agent={agent} state={state} onSelect={onSelect} />
      {start && start.type === 'agent.start' && start.input.trim() !== '' && (
        <Disclosure className="insp-section" summary="Input as received (references resolved)">
          <CollapsibleMarkdown text={start.input} />
        </Disclosure>
      )}
      <section className="insp-section">
        <h4>
          LLM calls <span className="muted">({calls.length})</span>
        </h4>
        {calls.length === 0 && (
          <p className="muted small">
            {state.item.kind === 'outcome'
              ? 'The source recorded only the outcome of this run: no calls, inputs or timings.'
              : 'No calls at this replay position.'}
          </p>
        )}
        {events.map((e, i) => {
          // Keyed by agent too, so another agent's calls mount afresh (and paint plain text first).
          if (e.type === 'llm.call') return <Call key={`${agent.id}:${i}`} call={e} n={++n} />;
          if (e.type === 'agent.note') {
            return (
              <div key={i} className="insp-note" data-testid="agent-note">
                <span className="chip chip-note">{e.kind}</span>
                <DeferredMarkdown key={agent.id} text={e.text} />
              </div>
            );
          }
          if (e.type === 'agent.error') {
            return (
              <div key={i} className="insp-error" data-testid="agent-error">
                <strong>Failed:</strong> {e.error}
                <div className="small">
                  Dependents received the placeholder: <code>{e.placeholder}</code>
                </div>
              </div>
            );
          }
          return null;
        })}
      </section>
      {pr?.output !== null && pr?.output !== undefined && status === 'done' && (
        <section className="insp-section">
          <h4>Output</h4>
          <div className="insp-output">
            <DeferredMarkdown key={agent.id} text={pr.output} />
          </div>
        </section>
      )}
    </aside>
  );
}
