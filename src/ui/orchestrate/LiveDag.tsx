import { memo, type JSX } from 'react';
import type { Design } from '../../core/trace.ts';
import { DesignGraph } from '../common/DesignGraph.tsx';

/**
 * The design as the orchestrator writes it, laid out again (and refitted) each time an agent or an
 * edge is decoded. The newest agent is highlighted, so the reader sees where the graph grew.
 */
export const LiveDag = memo(function LiveDag({ design }: { design: Design }): JSX.Element {
  return (
    <div
      className="orch-dag"
      data-testid="orch-dag"
      data-agents={design.agents.length}
      data-edges={design.edges.length}
    >
      {design.agents.length === 0 ? (
        <p className="orch-dag-empty muted">Agents appear here as the model writes them.</p>
      ) : (
        <DesignGraph design={design} focusLast />
      )}
    </div>
  );
});
