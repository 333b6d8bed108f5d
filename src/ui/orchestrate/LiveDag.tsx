import '@xyflow/react/dist/style.css';
import { ReactFlowProvider, type Edge } from '@xyflow/react';
import { memo, useMemo, type JSX } from 'react';
import type { Design } from '../../core/trace.ts';
import { layoutLayered, NODE_SIZE } from '../../view/layout.ts';
import { AgentNode, type AgentFlowNode } from '../graph/AgentNode.tsx';
import { ARROW, FittedFlow } from '../graph/FittedFlow.tsx';
import '../graph/graph.css';

/**
 * The design as the orchestrator writes it: the app's agent nodes on the layered layout the trace
 * and Build views use, laid out again (and refitted) each time an agent or an edge is decoded.
 * The newest agent is highlighted, so the reader sees where the graph grew.
 */

const nodeTypes = { agent: AgentNode };
const SIZE = { width: NODE_SIZE.width, height: NODE_SIZE.height };

function Flow({ design }: { design: Design }): JSX.Element {
  const { nodes, edges, signature } = useMemo(() => {
    const ids = design.agents.map((a) => a.id);
    const pos = layoutLayered({ nodes: ids, edges: design.edges });
    const withOut = new Set(design.edges.map((e) => e.from));
    const last = ids[ids.length - 1];
    const ns: AgentFlowNode[] = design.agents.map((a) => ({
      id: a.id,
      type: 'agent',
      position: pos[a.id] ?? { x: 0, y: 0 },
      data: {
        agent: a,
        status: 'pending',
        calls: 0,
        tokens: 0,
        costUsd: 0,
        isSink: ids.length > 1 && !withOut.has(a.id),
        isFocus: a.id === last,
        isSelected: false,
        showStatus: false,
      },
      ...SIZE,
      draggable: false,
      connectable: false,
      selectable: false,
    }));
    const es: Edge[] = design.edges.map((e) => ({
      id: `${e.from}>${e.to}`,
      source: e.from,
      target: e.to,
      markerEnd: ARROW,
    }));
    return { nodes: ns, edges: es, signature: `${ids.join(',')}|${design.edges.length}` };
  }, [design]);
  return <FittedFlow nodes={nodes} edges={edges} nodeTypes={nodeTypes} signature={signature} />;
}

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
        <ReactFlowProvider>
          <Flow design={design} />
        </ReactFlowProvider>
      )}
    </div>
  );
});
