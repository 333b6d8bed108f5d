import {
  BaseEdge,
  EdgeLabelRenderer,
  getBezierPath,
  useStore,
  type Edge,
  type EdgeProps,
  type ReactFlowState,
} from '@xyflow/react';
import { memo, type JSX } from 'react';
import { routedPath, type Point } from '../../view/layout-edges.ts';

export type RoutedEdgeData = {
  /** Waypoints from `routeEdges`: the edge passes each column it crosses at a free height. */
  points: readonly Point[];
  /** π_edge of a construction candidate, drawn next to the source so labels into one agent never pile up. */
  label?: string;
  chosen?: boolean;
};

export type RoutedFlowEdge = Edge<RoutedEdgeData, 'routed'>;

const selectZoom = (s: ReactFlowState): number => s.transform[2];

/**
 * The label stays this readable however far the graph is zoomed out: below zoom 1 it is scaled up
 * by 1 / zoom, so a p-label reads at the same size as at 100 % while the nodes shrink.
 */
function EdgeLabel({
  x,
  y,
  text,
  chosen,
}: {
  x: number;
  y: number;
  text: string;
  chosen: boolean;
}): JSX.Element {
  const zoom = useStore(selectZoom);
  const scale = zoom < 1 ? 1 / zoom : 1;
  return (
    <EdgeLabelRenderer>
      <div
        className={chosen ? 'edge-p-label chosen nodrag nopan' : 'edge-p-label nodrag nopan'}
        data-testid="edge-p-label"
        style={{ transform: `translate(-50%, -50%) translate(${x}px, ${y}px) scale(${scale})` }}
      >
        {text}
      </div>
    </EdgeLabelRenderer>
  );
}

/**
 * An edge through waypoints (around the agents a long edge passes), or React Flow's bezier when it
 * has none; a construction candidate also carries its π_edge label.
 */
export const RoutedEdge = memo(function RoutedEdge({
  id,
  sourceX,
  sourceY,
  targetX,
  targetY,
  sourcePosition,
  targetPosition,
  data,
  markerEnd,
  style,
}: EdgeProps<RoutedFlowEdge>): JSX.Element {
  const points = data?.points ?? [];
  const source = { x: sourceX, y: sourceY };
  const target = { x: targetX, y: targetY };
  const path =
    points.length > 0
      ? routedPath(source, points, target)
      : getBezierPath({ sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition })[0];
  // Halfway across the first gap, where the edge has just left its source.
  const first = points[0] ?? target;
  return (
    <>
      <BaseEdge id={id} path={path} markerEnd={markerEnd} style={style} />
      {data?.label !== undefined && (
        <EdgeLabel
          x={(source.x + first.x) / 2}
          y={(source.y + first.y) / 2}
          text={data.label}
          chosen={data.chosen === true}
        />
      )}
    </>
  );
});
