import { memo, type JSX } from 'react';
import type { Design } from '../../core/trace.ts';
import { DesignGraph } from '../common/DesignGraph.tsx';

/**
 * The design as the orchestrator writes it, laid out again (and refitted) each time an agent or an
 * edge is decoded. The newest agent is highlighted, so the reader sees where the graph grew. When
 * the model takes low DoM's direct-answer branch (`direct` is its answer so far), there is no graph
 * to grow: the panel says so and shows the answer, as text.
 */
export const LiveDag = memo(function LiveDag({
  design,
  direct = null,
}: {
  design: Design;
  direct?: string | null;
}): JSX.Element {
  return (
    <div
      className="orch-dag"
      data-testid="orch-dag"
      data-agents={design.agents.length}
      data-edges={design.edges.length}
      data-branch={direct !== null ? 'direct' : undefined}
    >
      {direct !== null ? (
        <div className="orch-direct" data-testid="orch-direct">
          <h3 className="orch-h">Answered directly, no sub-agent</h3>
          <p className="muted small">
            Low Degree of MAS, direct-answer branch: the orchestrator answers the task itself instead of
            delegating to one sub-agent, so there is no graph and nothing to run.
          </p>
          <pre className="orch-pre" data-testid="orch-direct-answer">
            {direct === '' ? '(empty answer)' : direct}
          </pre>
        </div>
      ) : design.agents.length === 0 ? (
        <p className="orch-dag-empty muted">Agents appear here as the model writes them.</p>
      ) : (
        <DesignGraph design={design} focusLast />
      )}
    </div>
  );
});
