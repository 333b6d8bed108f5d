import '@xyflow/react/dist/style.css';
import {
  BaseEdge,
  EdgeLabelRenderer,
  Handle,
  Position,
  ReactFlowProvider,
  type Edge,
  type EdgeMouseHandler,
  type EdgeProps,
  type Node,
  type NodeProps,
} from '@xyflow/react';
import { memo, useCallback, useMemo, type JSX } from 'react';
import type { Design } from '../../core/trace.ts';
import { layoutLayered, NODE_SIZE } from '../../view/layout.ts';
import { AgentNode, type AgentFlowNode } from '../graph/AgentNode.tsx';
import { ARROW, FittedFlow } from '../graph/FittedFlow.tsx';
import { typeColor } from '../graph/colors.ts';
import '../graph/graph.css';
import type { AgentType } from '../../core/agents.ts';

/** Id of the would-be agent of the next ADD (never a real agent id: those have no colon). */
export const GHOST_ID = 'next:agent';

export interface Candidate {
  from: string;
  p: number;
  selected: boolean;
}

export interface BuildGraphProps {
  design: Design | null;
  /** The role the candidate edges are for, or null when the next step cannot add an agent. */
  ghost: { role: string; type: AgentType; picked: boolean } | null;
  candidates: Candidate[];
  /** The agent the last step added (highlighted). */
  focus: string | null;
  onToggle: (from: string) => void;
}

type GhostData = { role: string; type: AgentType; picked: boolean };
type GhostFlowNode = Node<GhostData, 'ghost'>;

const SIZE = { width: NODE_SIZE.width, height: NODE_SIZE.height };

/** The would-be new agent: dashed, with the role it would take. */
const GhostNode = memo(function GhostNode({ data }: NodeProps<GhostFlowNode>): JSX.Element {
  return (
    <div
      className="ghost-node"
      data-testid="ghost-node"
      style={{ ['--type-color' as string]: typeColor(data.type) }}
    >
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <div className="ghost-head">{data.picked ? 'next · your pick' : 'next · most likely'}</div>
      <div className="ghost-role">{data.role}</div>
      <div className="ghost-hint">Click a dashed edge to link or unlink it.</div>
    </div>
  );
});

type CandidateData = { from: string; p: number; selected: boolean; onToggle: (from: string) => void };
type CandidateFlowEdge = Edge<CandidateData, 'candidate'>;

/** Where the π_edge label sits along a candidate link (0 = source, 1 = the would-be agent). */
const LABEL_T = 0.72;

/**
 * A dashed candidate link with its π_edge label near the would-be agent, where the labels of all
 * candidates fan out instead of landing on whatever agent sits mid-way. The label is a button:
 * clicking it (or the dashed path) links or unlinks that agent.
 */
function CandidateEdge(props: EdgeProps<CandidateFlowEdge>): JSX.Element {
  const { sourceX: sx, sourceY: sy, targetX: tx, targetY: ty, data, markerEnd, style } = props;
  const d = Math.max(40, Math.abs(tx - sx) * 0.5);
  const c1 = { x: sx + d, y: sy };
  const c2 = { x: tx - d, y: ty };
  const path = `M ${sx},${sy} C ${c1.x},${c1.y} ${c2.x},${c2.y} ${tx},${ty}`;
  const t = LABEL_T;
  const u = 1 - t;
  const lx = u * u * u * sx + 3 * u * u * t * c1.x + 3 * u * t * t * c2.x + t * t * t * tx;
  const ly = u * u * u * sy + 3 * u * u * t * c1.y + 3 * u * t * t * c2.y + t * t * t * ty;
  return (
    <>
      <BaseEdge path={path} markerEnd={markerEnd} style={style} interactionWidth={24} />
      {data && (
        <EdgeLabelRenderer>
          <button
            type="button"
            className={data.selected ? 'cand-label on nodrag nopan' : 'cand-label nodrag nopan'}
            style={{ transform: `translate(-50%, -50%) translate(${lx}px, ${ly}px)` }}
            onClick={(e) => {
              // React events bubble out of the label portal into the edge, whose own click toggles too.
              e.stopPropagation();
              data.onToggle(data.from);
            }}
            data-testid="candidate-label"
            data-from={data.from}
            title={`${data.selected ? 'Unlink' : 'Link'} ${data.from} (π_edge = ${data.p.toFixed(3)})`}
          >
            p={data.p.toFixed(2)}
            {data.selected ? ' ✓' : ''}
          </button>
        </EdgeLabelRenderer>
      )}
    </>
  );
}

const nodeTypes = { agent: AgentNode, ghost: GhostNode };
const edgeTypes = { candidate: CandidateEdge };

function Flow(props: BuildGraphProps): JSX.Element {
  const { design, ghost, candidates, focus, onToggle } = props;
  const { nodes, edges, signature } = useMemo(() => {
    const agents = design?.agents ?? [];
    const ids = agents.map((a) => a.id);
    const pos = layoutLayered({ nodes: ids, edges: design?.edges ?? [] });
    // The would-be agent sits below and right of the graph rather than in a rank: links that
    // skip ranks would otherwise run straight through the agents between, hiding their labels.
    let right = 0;
    let bottom = 0;
    for (const id of ids) {
      const p = pos[id];
      if (!p) continue;
      right = Math.max(right, p.x + NODE_SIZE.width);
      bottom = Math.max(bottom, p.y + NODE_SIZE.height);
    }
    const ghostAt = ids.length === 0 ? { x: 0, y: 0 } : { x: right + 190, y: bottom + 60 };
    const ns: (AgentFlowNode | GhostFlowNode)[] = agents.map((a) => ({
      id: a.id,
      type: 'agent',
      position: pos[a.id] ?? { x: 0, y: 0 },
      data: {
        agent: a,
        status: 'pending',
        calls: 0,
        tokens: 0,
        costUsd: 0,
        isSink: a.type === 'SummarizerAgent',
        isFocus: focus === a.id,
        isSelected: false,
        showStatus: false,
      },
      ...SIZE,
      draggable: false,
      connectable: false,
      selectable: false,
    }));
    if (ghost) {
      ns.push({
        id: GHOST_ID,
        type: 'ghost',
        position: ghostAt,
        data: ghost,
        ...SIZE,
        draggable: false,
        connectable: false,
        selectable: false,
      });
    }
    const es: Edge[] = (design?.edges ?? []).map((e) => ({
      id: `${e.from}>${e.to}`,
      source: e.from,
      target: e.to,
      markerEnd: ARROW,
    }));
    for (const c of candidates) {
      const edge: CandidateFlowEdge = {
        id: `cand:${c.from}`,
        type: 'candidate',
        source: c.from,
        target: GHOST_ID,
        className: c.selected ? 'edge-candidate chosen' : 'edge-candidate',
        markerEnd: ARROW,
        style: { strokeDasharray: '6 4', strokeWidth: c.selected ? 2.4 : 1.2, opacity: c.selected ? 1 : 0.7 },
        data: { from: c.from, p: c.p, selected: c.selected, onToggle },
      };
      es.push(edge);
    }
    return {
      nodes: ns,
      edges: es,
      signature: `${ids.join(',')}|${design?.edges.length ?? 0}|${ghost ? 1 : 0}`,
    };
  }, [design, ghost, candidates, focus, onToggle]);

  const onEdgeClick = useCallback<EdgeMouseHandler>(
    (_e, edge) => {
      if (edge.id.startsWith('cand:')) onToggle(edge.id.slice('cand:'.length));
    },
    [onToggle],
  );

  return (
    <FittedFlow
      nodes={nodes}
      edges={edges}
      nodeTypes={nodeTypes}
      edgeTypes={edgeTypes}
      onEdgeClick={onEdgeClick}
      signature={signature}
    />
  );
}

/** The MAS under construction, the would-be agent and its candidate edges labelled with π_edge. */
export const BuildGraph = memo(function BuildGraph(props: BuildGraphProps): JSX.Element {
  return (
    <div className="build-graph" data-testid="build-graph">
      <ReactFlowProvider>
        <Flow {...props} />
      </ReactFlowProvider>
    </div>
  );
});
