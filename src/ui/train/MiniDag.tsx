import { useMemo, type JSX } from 'react';
import type { Design } from '../../core/trace.ts';
import { NODE_SIZE } from '../../view/layout.ts';
import { typeColor } from '../graph/colors.ts';
import { MARGIN, miniLayout } from './mini-layout.ts';
import { fitNodeLabel } from './node-label.ts';

/**
 * A sampled design as a small static DAG: the same layered layout as the trace and Build views
 * (src/view/layout.ts), its ranks wrapped into bands when that draws the boxes larger
 * (mini-layout.ts), drawn as SVG scaled to fit. Labels are text nodes (model-free here, but
 * designs from snapshots are outside input all the same).
 */
export function MiniDag({ design, label }: { design: Design; label: string }): JSX.Element {
  const drawn = useMemo(
    () =>
      miniLayout(
        design.agents.map((a) => a.id),
        design.edges,
      ),
    [design],
  );
  const { at, lines, w, h } = drawn;
  return (
    <svg
      className="train-dag"
      viewBox={`${-MARGIN} ${-MARGIN} ${w + 2 * MARGIN} ${h + 2 * MARGIN}`}
      role="img"
      aria-label={label}
      data-testid="train-sample-dag"
      data-agents={design.agents.length}
      data-bands={drawn.bands}
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
      {lines.map(({ from, to, ...ends }) => (
        <line
          key={`${from}->${to}`}
          {...ends}
          stroke="#94a3b8"
          strokeWidth={6}
          markerEnd="url(#train-arrow)"
        />
      ))}
      {design.agents.map((a) => {
        const p = at[a.id] ?? { x: 0, y: 0 };
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
