import '@xyflow/react/dist/style.css';
import { ReactFlowProvider, type Edge } from '@xyflow/react';
import { memo, useMemo, type JSX } from 'react';
import type { Design } from '../../core/trace.ts';
import { layoutLayered, NODE_SIZE } from '../../view/layout.ts';
import { AgentNode, type AgentFlowNode } from '../graph/AgentNode.tsx';
import { ARROW, FittedFlow } from '../graph/FittedFlow.tsx';
import '../graph/graph.css';

/**
 * A design drawn read-only: the app's agent nodes on the layered layout the trace and Build views
 * use, in the self-refitting `FittedFlow` canvas. Orchestrate's live design (newest agent
 * highlighted) and the Run page's preview of the chosen design share it. The caller sizes the box.
 */

const nodeTypes = { agent: AgentNode };
const SIZE = { width: NODE_SIZE.width, height: NODE_SIZE.height };

function Flow({ design, focusLast }: { design: Design; focusLast: boolean }): JSX.Element {
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
        isFocus: focusLast && a.id === last,
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
    const sig = `${ids.join(',')}|${design.edges.map((e) => `${e.from}>${e.to}`).join(',')}`;
    return { nodes: ns, edges: es, signature: sig };
  }, [design, focusLast]);
  return <FittedFlow nodes={nodes} edges={edges} nodeTypes={nodeTypes} signature={signature} />;
}

export const DesignGraph = memo(function DesignGraph({
  design,
  focusLast = false,
}: {
  design: Design;
  /** Highlight the newest agent (where a design being written grew last). */
  focusLast?: boolean;
}): JSX.Element {
  return (
    <ReactFlowProvider>
      <Flow design={design} focusLast={focusLast} />
    </ReactFlowProvider>
  );
});
