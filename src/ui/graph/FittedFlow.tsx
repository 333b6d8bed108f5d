import {
  Background,
  Controls,
  MarkerType,
  ReactFlow,
  useReactFlow,
  type Edge,
  type EdgeMouseHandler,
  type EdgeTypes,
  type Node,
  type NodeTypes,
} from '@xyflow/react';
import { useEffect, type JSX } from 'react';

/**
 * A read-only React Flow canvas that refits itself whenever the graph changes: nothing can be
 * dragged, connected or selected, and `signature` (any string that changes with the graph's
 * nodes and edges) triggers a fit one frame after React Flow has the new nodes. Build's graph
 * under construction and Orchestrate's live design share it. The caller provides the
 * `ReactFlowProvider` and the sized container.
 */

/** The arrow head every design edge ends in. */
export const ARROW = { type: MarkerType.ArrowClosed, width: 16, height: 16 } as const;
const FIT = { padding: 0.18, maxZoom: 1.05, minZoom: 0.3 };

function Refit({ signature }: { signature: string }): null {
  const { fitView } = useReactFlow();
  useEffect(() => {
    // Wait a frame so React Flow has the new nodes before fitting them.
    const id = requestAnimationFrame(() => void fitView(FIT));
    return () => cancelAnimationFrame(id);
  }, [signature, fitView]);
  return null;
}

export function FittedFlow<N extends Node, E extends Edge>(props: {
  nodes: N[];
  edges: E[];
  nodeTypes: NodeTypes;
  edgeTypes?: EdgeTypes;
  onEdgeClick?: EdgeMouseHandler<E>;
  signature: string;
}): JSX.Element {
  return (
    <ReactFlow
      nodes={props.nodes}
      edges={props.edges}
      nodeTypes={props.nodeTypes}
      {...(props.edgeTypes ? { edgeTypes: props.edgeTypes } : {})}
      {...(props.onEdgeClick ? { onEdgeClick: props.onEdgeClick } : {})}
      nodesDraggable={false}
      nodesConnectable={false}
      elementsSelectable={false}
      fitView
      fitViewOptions={FIT}
      minZoom={0.2}
      maxZoom={2}
    >
      <Background gap={20} size={1} />
      <Controls showInteractive={false} fitViewOptions={FIT} />
      <Refit signature={props.signature} />
    </ReactFlow>
  );
}
