import type { JSX } from 'react';
import { AGENT_TYPE_INFO, type AgentType } from '../../core/agents.ts';
import { STATUS_COLORS } from './colors.ts';
import { typeColor } from './colors.ts';
import type { AgentStatus } from '../../view/replay.ts';

const STATUSES: AgentStatus[] = ['pending', 'running', 'done', 'failed'];

/** Agent types present in the trace (one colour each) and the status colours. */
export function Legend({ types, showStatus }: { types: AgentType[]; showStatus: boolean }): JSX.Element {
  return (
    <div className="graph-legend" data-testid="legend">
      {types.map((t) => (
        <span key={t} className="legend-item" title={AGENT_TYPE_INFO[t].summary}>
          <span className="legend-swatch" style={{ background: typeColor(t) }} />
          {AGENT_TYPE_INFO[t].label}
        </span>
      ))}
      {showStatus && types.length > 0 && <span className="legend-sep" />}
      {showStatus &&
        STATUSES.map((s) => (
          <span key={s} className="legend-item">
            <span className="status-dot" style={{ background: STATUS_COLORS[s] }} />
            {s}
          </span>
        ))}
    </div>
  );
}
