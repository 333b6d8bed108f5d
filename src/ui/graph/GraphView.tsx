import '@xyflow/react/dist/style.css';
import {
  Background,
  Controls,
  MarkerType,
  MiniMap,
  Panel,
  Position,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
  getViewportForBounds,
  type Edge,
  type NodeMouseHandler,
  type Viewport,
} from '@xyflow/react';
import { useCallback, useLayoutEffect, useMemo, useRef, useState, type JSX } from 'react';
import { routeEdges, type Point } from '../../view/layout-edges.ts';
import { NODE_SIZE, type Positions } from '../../view/layout.ts';
import { edgeId, type Replay, type ReplayState } from '../../view/replay.ts';
import { AgentNode, NODE_MIN_FONT_PX, type AgentFlowNode, type AgentNodeData } from './AgentNode.tsx';
import { keepPlace } from './anchor.ts';
import { typeColor } from './colors.ts';
import { RoutedEdge, type RoutedFlowEdge } from './RoutedEdge.tsx';
import './graph.css';

const nodeTypes = { agent: AgentNode };
const edgeTypes = { routed: RoutedEdge };

/** The minimap helps between these sizes: small graphs fit the view, huge ones make it draw every node. */
const MINIMAP_MIN = 12;
const MINIMAP_MAX = 300;

export interface GraphViewProps {
  replay: Replay;
  state: ReplayState;
  /** The graph's final positions; a new object only when the layout changed. */
  positions: Positions;
  /** Signature of the laid-out graph (`layoutKey`). */
  graphKey: string;
  selectedId: string | null;
  onSelect: (id: string | null) => void;
}

const ARROW = { type: MarkerType.ArrowClosed, width: 16, height: 16 } as const;

/**
 * Every agent node has the same fixed size and two handles, so the node objects say so up front:
 * React Flow otherwise renders every node once to measure it, which defeats
 * `onlyRenderVisibleElements` on the first paint (1,000 agents → 14,000 DOM elements).
 */
const SIZE = { width: NODE_SIZE.width, height: NODE_SIZE.height };
const HANDLES: NonNullable<AgentFlowNode['handles']> = [
  { type: 'target', position: Position.Left, x: -3, y: NODE_SIZE.height / 2 - 3, width: 6, height: 6 },
  {
    type: 'source',
    position: Position.Right,
    x: NODE_SIZE.width - 3,
    y: NODE_SIZE.height / 2 - 3,
    width: 6,
    height: 6,
  },
];

/**
 * Node objects are cached per agent and reused while nothing they show changed, so a replay step
 * on a 1,000-agent graph only hands React Flow the few nodes that did change.
 */
function useNodes(props: GraphViewProps): AgentFlowNode[] {
  const cache = useRef(new Map<string, { sig: string; node: AgentFlowNode }>());
  const { replay, state, positions, selectedId } = props;
  return useMemo(() => {
    const next = new Map<string, { sig: string; node: AgentFlowNode }>();
    const showStatus = state.phase === 'execution' || replay.constructionSteps === 0;
    const nodes = state.agents.map((id) => {
      const agent = replay.agents.get(id);
      const pr = state.progress.get(id);
      const pos = positions[id] ?? { x: 0, y: 0 };
      const data: AgentNodeData = {
        agent: agent ?? { id, type: 'CoTAgent', description: '', input: '', params: {} },
        status: pr?.status ?? 'pending',
        calls: pr?.calls ?? 0,
        tokens: pr?.tokens ?? 0,
        costUsd: pr?.costUsd ?? 0,
        callsInFlight: pr?.callsInFlight ?? 0,
        isSink: replay.sink === id && (state.phase === 'execution' || state.agents.length > 1),
        isFocus: state.focus === id,
        isSelected: selectedId === id,
        showStatus,
      };
      const sig = `${data.status}|${data.calls}|${data.tokens}|${data.callsInFlight}|${data.isSink}|${data.isFocus}|${data.isSelected}|${showStatus}|${pos.x},${pos.y}|${agent ? 1 : 0}`;
      const old = cache.current.get(id);
      const node: AgentFlowNode =
        old && old.sig === sig
          ? old.node
          : {
              id,
              type: 'agent',
              position: pos,
              data,
              ...SIZE,
              measured: SIZE,
              handles: HANDLES,
              draggable: false,
              connectable: false,
              selectable: false,
            };
      next.set(id, { sig, node });
      return node;
    });
    cache.current = next;
    return nodes;
  }, [replay, state, positions, selectedId]);
}

/**
 * Edges that skip ranks get waypoints around the agents between their ends (`routeEdges`), computed
 * once per layout and edge list: execution replay keeps both, so stepping does not recompute them.
 */
function useRoutes({ state, positions }: GraphViewProps): Map<string, Point[]> {
  const { edges, candidate } = state;
  return useMemo(
    () => routeEdges(positions, candidate ? [...edges, ...candidate.edges] : edges),
    [positions, edges, candidate],
  );
}

function useEdges(props: GraphViewProps): (Edge | RoutedFlowEdge)[] {
  const routes = useRoutes(props);
  const { replay, state } = props;
  return useMemo(() => {
    const candidates = state.candidate?.edges ?? [];
    const candidateIds = new Set(candidates.map((c) => edgeId(c)));
    const edges: (Edge | RoutedFlowEdge)[] = [];
    for (const e of state.edges) {
      const id = edgeId(e);
      if (candidateIds.has(id)) continue;
      const flowing = state.flowing.has(id);
      const from = replay.agents.get(e.from);
      const points = routes.get(id);
      edges.push({
        id,
        source: e.from,
        target: e.to,
        ...(points ? { type: 'routed' as const, data: { points } } : {}),
        animated: flowing,
        className: flowing ? 'edge-flowing' : undefined,
        markerEnd: ARROW,
        style: flowing ? { stroke: from ? typeColor(from.type) : '#f0a30a', strokeWidth: 2.5 } : undefined,
      });
    }
    for (const c of candidates) {
      edges.push({
        id: `cand:${edgeId(c)}`,
        type: 'routed',
        source: c.from,
        target: c.to,
        data: {
          points: routes.get(edgeId(c)) ?? [],
          label: `p=${c.p.toFixed(2)}${c.chosen ? ' ✓' : ''}`,
          chosen: c.chosen,
        },
        className: c.chosen ? 'edge-candidate chosen' : 'edge-candidate',
        markerEnd: ARROW,
        style: { strokeDasharray: '6 4', strokeWidth: c.chosen ? 2 : 1.2, opacity: c.chosen ? 1 : 0.75 },
        zIndex: 5,
      });
    }
    return edges;
  }, [replay, state, routes]);
}

/** The smallest text a fitted graph shows, in screen px: node text never fits below it. */
export const READABLE_PX = 9;

/**
 * Fitting: padding around the graph, and a zoom floor that keeps node text readable (the smallest
 * node font, `NODE_MIN_FONT_PX`, at least `READABLE_PX` on screen: zoom ≥ 0.75). A graph wider
 * than the view at that zoom — a chain of four agents in the centre column already is — opens on
 * its starts (left edge, vertically centred) and scrolls: the wheel and a drag pan it, Ctrl + wheel
 * or a pinch zooms. It is never shown as an unreadable view of everything, which would also make
 * React Flow draw every node and edge at once.
 */
const FIT = { padding: 0.12, minZoom: READABLE_PX / NODE_MIN_FONT_PX, maxZoom: 1.1 };

interface Bounds {
  x: number;
  y: number;
  width: number;
  height: number;
}

function boundsOf(nodes: readonly AgentFlowNode[]): Bounds {
  let x1 = Infinity;
  let y1 = Infinity;
  let x2 = -Infinity;
  let y2 = -Infinity;
  for (const n of nodes) {
    x1 = Math.min(x1, n.position.x);
    y1 = Math.min(y1, n.position.y);
    x2 = Math.max(x2, n.position.x + NODE_SIZE.width);
    y2 = Math.max(y2, n.position.y + NODE_SIZE.height);
  }
  return { x: x1, y: y1, width: x2 - x1, height: y2 - y1 };
}

function fitViewport(nodes: readonly AgentFlowNode[], width: number, height: number): Viewport {
  if (nodes.length === 0 || width <= 0 || height <= 0) return { x: 0, y: 0, zoom: 1 };
  const bounds = boundsOf(nodes);
  const vp = getViewportForBounds(bounds, width, height, FIT.minZoom, FIT.maxZoom, FIT.padding);
  if (bounds.width * vp.zoom > width) vp.x = -bounds.x * vp.zoom + width * 0.03;
  return vp;
}

/** Whether the graph, fitted, is larger than the view: it then scrolls, and a hint says so. */
function overflowsAtFit(nodes: readonly AgentFlowNode[], width: number, height: number): boolean {
  if (nodes.length === 0 || width <= 0 || height <= 0) return false;
  const b = boundsOf(nodes);
  const { zoom } = fitViewport(nodes, width, height);
  return b.width * zoom > width || b.height * zoom > height;
}

const sameViewport = (a: Viewport, b: Viewport): boolean =>
  Math.abs(a.x - b.x) < 0.5 && Math.abs(a.y - b.y) < 0.5 && Math.abs(a.zoom - b.zoom) < 1e-4;

/**
 * Moves the viewport when the layout or the space for the graph changes. Another graph (a
 * construction step, another trace): refit. The same graph with new positions: keep the reader's
 * place (`keepPlace`). The viewer never does that (a graph is shown once, on its final layout), but
 * should positions ever change under the reader, the node they are looking at stays put; unchanged
 * positions leave the viewport untouched. The same graph in a resized area (the window, the panels
 * around it): refit, unless the reader has panned or zoomed since the last fit. The first layout is
 * the initial viewport, so the first run does nothing. Execution replay never changes the layout, so
 * it keeps the user's pan and zoom.
 */
function FitOnLayout({
  graphKey,
  positions,
  nodes,
  selectedId,
  width,
  height,
  initial,
}: {
  graphKey: string;
  positions: Positions;
  nodes: AgentFlowNode[];
  selectedId: string | null;
  width: number;
  height: number;
  /** The viewport the graph opened at (React Flow applies it only after this runs first). */
  initial: Viewport;
}): null {
  const { setViewport, getViewport } = useReactFlow();
  const latest = useRef({ nodes, selectedId });
  const shown = useRef<{
    graphKey: string;
    positions: Positions;
    nodes: AgentFlowNode[];
    width: number;
    height: number;
  } | null>(null);
  // The viewport the last fit chose; compared with the current one to tell whether the reader moved.
  const fitted = useRef<Viewport>(initial);
  useLayoutEffect(() => {
    latest.current = { nodes, selectedId };
  });
  useLayoutEffect(() => {
    const before = shown.current;
    const now = latest.current.nodes;
    shown.current = { graphKey, positions, nodes: now, width, height };
    if (!before) return;
    const vp = getViewport();
    const fit = (): void => {
      const next = fitViewport(now, width, height);
      fitted.current = next;
      void setViewport(next);
    };
    if (before.graphKey !== graphKey) {
      fit();
      return;
    }
    if (before.positions !== positions) {
      const next = keepPlace(before.nodes, now, vp, width, height, latest.current.selectedId);
      if (next === vp) return;
      if (next) void setViewport(next);
      else fit();
      return;
    }
    if ((before.width !== width || before.height !== height) && sameViewport(vp, fitted.current)) fit();
    // `positions` only triggers: the nodes built from them are read from `latest`.
  }, [graphKey, positions, width, height, getViewport, setViewport]);
  return null;
}

const miniMapColor = (n: AgentFlowNode): string => typeColor(n.data.agent.type);

function Flow(props: GraphViewProps & { width: number; height: number }): JSX.Element {
  const nodes = useNodes(props);
  const edges = useEdges(props);
  const { onSelect, width, height } = props;
  const [initialViewport] = useState(() => fitViewport(nodes, width, height));
  const overflow = useMemo(() => overflowsAtFit(nodes, width, height), [nodes, width, height]);
  const onNodeClick = useCallback<NodeMouseHandler<AgentFlowNode>>(
    (_e, node) => onSelect(node.id),
    [onSelect],
  );
  const onPaneClick = useCallback(() => onSelect(null), [onSelect]);
  return (
    <ReactFlow<AgentFlowNode>
      nodes={nodes}
      edges={edges}
      nodeTypes={nodeTypes}
      edgeTypes={edgeTypes}
      onNodeClick={onNodeClick}
      onPaneClick={onPaneClick}
      onlyRenderVisibleElements
      nodesDraggable={false}
      nodesConnectable={false}
      elementsSelectable={false}
      minZoom={0.05}
      maxZoom={2}
      panOnScroll
      defaultViewport={initialViewport}
      fitViewOptions={FIT}
    >
      <Background gap={20} size={1} />
      {overflow && (
        <Panel position="top-right" className="graph-overflow-hint" data-testid="graph-overflow-hint">
          Larger than the view at a readable size: scroll or drag to pan, Ctrl + scroll to zoom
        </Panel>
      )}
      <Controls showInteractive={false} fitViewOptions={FIT} />
      {nodes.length <= MINIMAP_MAX && nodes.length >= MINIMAP_MIN && (
        <MiniMap<AgentFlowNode> nodeColor={miniMapColor} pannable zoomable ariaLabel="Graph overview" />
      )}
      <FitOnLayout
        graphKey={props.graphKey}
        positions={props.positions}
        nodes={nodes}
        selectedId={props.selectedId}
        width={width}
        height={height}
        initial={initialViewport}
      />
    </ReactFlow>
  );
}

/**
 * The MAS design as a React Flow graph at one replay position. The container is measured before
 * React Flow mounts so the first paint is already at the fitted viewport (no second render), and
 * measured again whenever it resizes, so the graph refits to the space it has.
 */
export function GraphView(props: GraphViewProps): JSX.Element {
  const ref = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState<{ width: number; height: number } | null>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = (): void =>
      setSize((prev) =>
        prev && prev.width === el.clientWidth && prev.height === el.clientHeight
          ? prev
          : { width: el.clientWidth, height: el.clientHeight },
      );
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return (
    <div ref={ref} className="graph-view">
      {size && (
        <ReactFlowProvider>
          <Flow {...props} width={size.width} height={size.height} />
        </ReactFlowProvider>
      )}
    </div>
  );
}
