import { useMemo, type JSX } from 'react';
import type { Design } from '../../core/trace.ts';
import { NODE_SIZE, layoutLayered } from '../../view/layout.ts';
import { typeColor } from '../graph/colors.ts';
import { fitNodeLabel } from './node-label.ts';

/**
 * A sampled design as a small static DAG: the same layered layout as the trace and Build views
 * (src/view/layout.ts), drawn as SVG scaled to fit. Labels are text nodes (model-free here, but
 * designs from snapshots are outside input all the same).
 */
export function MiniDag({ design, label }: { design: Design; label: string }): JSX.Element {
  const drawn = useMemo(() => {
    const nodes = design.agents.map((a) => a.id);
    const pos = layoutLayered({ nodes, edges: design.edges.map((e) => ({ from: e.from, to: e.to })) });
    const xs = Object.values(pos).map((p) => p.x);
    const ys = Object.values(pos).map((p) => p.y);
    const minX = Math.min(0, ...xs);
    const minY = Math.min(0, ...ys);
    const w = Math.max(NODE_SIZE.width, ...xs.map((x) => x - minX + NODE_SIZE.width));
    const h = Math.max(NODE_SIZE.height, ...ys.map((y) => y - minY + NODE_SIZE.height));
    const at = (id: string) => {
      const p = pos[id] ?? { x: 0, y: 0 };
      return { x: p.x - minX, y: p.y - minY };
    };
    return { at, w, h };
  }, [design]);
  const { at, w, h } = drawn;
  return (
    <svg
      className="train-dag"
      viewBox={`-10 -10 ${w + 20} ${h + 20}`}
      role="img"
      aria-label={label}
      data-testid="train-sample-dag"
      data-agents={design.agents.length}
    >
      <defs>
        <marker
          id="train-arrow"
          viewBox="0 0 10 10"
          refX="10"
          refY="5"
          markerWidth="8"
          markerHeight="8"
          orient="auto"
        >
          <path d="M0,0 L10,5 L0,10 z" fill="#94a3b8" />
        </marker>
      </defs>
      {design.edges.map((e) => {
        const a = at(e.from);
        const b = at(e.to);
        return (
          <line
            key={`${e.from}->${e.to}`}
            x1={a.x + NODE_SIZE.width / 2}
            y1={a.y + NODE_SIZE.height}
            x2={b.x + NODE_SIZE.width / 2}
            y2={b.y}
            stroke="#94a3b8"
            strokeWidth={6}
            markerEnd="url(#train-arrow)"
          />
        );
      })}
      {design.agents.map((a) => {
        const p = at(a.id);
        const name = a.role ?? a.type;
        const label = fitNodeLabel(name, NODE_SIZE.width);
        const lineHeight = label.fontSize * 1.1;
        const top =
          NODE_SIZE.height / 2 - ((label.lines.length - 1) * lineHeight) / 2 + label.fontSize * 0.35;
        return (
          <g key={a.id} transform={`translate(${p.x},${p.y})`}>
            <title>{name}</title>
            <rect
              width={NODE_SIZE.width}
              height={NODE_SIZE.height}
              rx={14}
              fill="#fff"
              stroke={typeColor(a.type)}
              strokeWidth={8}
            />
            <text
              x={NODE_SIZE.width / 2}
              y={top}
              textAnchor="middle"
              fontSize={label.fontSize}
              data-testid="train-dag-label"
            >
              {label.lines.map((line, i) => (
                <tspan key={i} x={NODE_SIZE.width / 2} dy={i === 0 ? 0 : lineHeight}>
                  {line}
                </tspan>
              ))}
            </text>
          </g>
        );
      })}
    </svg>
  );
}
