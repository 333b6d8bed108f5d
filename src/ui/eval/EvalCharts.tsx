import { useLayoutEffect, useRef, useState, type JSX } from 'react';
import type { EvalDocument } from '../../store/slices/eval.ts';
import { METHOD_COLOURS, axisCurves, linearScale, pointLabel, scatterPoints } from './charts.ts';

/** The scatter's narrowest width; it grows to its container's. */
const MIN_W = 480;
const H = 320;
const M = { left: 56, right: 16, top: 16, bottom: 44 };

function colourOf(doc: EvalDocument, method: string): string {
  const i = doc.summary.methods.findIndex((m) => m.method === method);
  return METHOD_COLOURS[i % METHOD_COLOURS.length] ?? '#555';
}

const fmtCost = (usd: boolean, v: number): string => (usd ? `$${v.toPrecision(3)}` : `${Math.round(v)}`);

/** Accuracy against mean cost per task, the Pareto front as a line; click a point for its traces. */
export function ParetoScatter({
  doc,
  onPick,
}: {
  doc: EvalDocument;
  onPick: (method: string) => void;
}): JSX.Element {
  const pts = scatterPoints(doc);
  const usd = doc.summary.costMetric === 'usd';
  const [hover, setHover] = useState<string | null>(null);
  // The plot takes its container's full width (at least MIN_W), redrawn when that changes.
  const box = useRef<HTMLElement>(null);
  const [width, setWidth] = useState(MIN_W);
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const fit = (): void => setWidth(Math.max(MIN_W, Math.floor(el.clientWidth)));
    fit();
    const ro = new ResizeObserver(fit);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  const maxCost = Math.max(1e-9, ...pts.map((p) => p.cost)) * 1.1;
  const x = linearScale(0, maxCost, M.left, width - M.right);
  const y = linearScale(0, 1, H - M.bottom, M.top);
  const front = pts.filter((p) => p.onFront).sort((a, b) => a.cost - b.cost);
  const shown = pts.find((p) => p.method === hover);
  return (
    <figure className="eval-chart eval-chart-wide" data-testid="eval-scatter" ref={box}>
      <figcaption>Accuracy vs {usd ? 'cost per task (USD)' : 'tokens per task'} · Pareto front</figcaption>
      <svg
        viewBox={`0 0 ${width} ${H}`}
        width={width}
        height={H}
        role="img"
        aria-label="accuracy against cost"
      >
        {y.ticks.map((t) => (
          <g key={`y${t}`}>
            <line x1={M.left} x2={width - M.right} y1={y(t)} y2={y(t)} className="grid" />
            <text x={M.left - 6} y={y(t) + 4} textAnchor="end" className="tick">
              {t.toFixed(1)}
            </text>
          </g>
        ))}
        {x.ticks.map((t) => (
          <text key={`x${t}`} x={x(t)} y={H - M.bottom + 16} textAnchor="middle" className="tick">
            {fmtCost(usd, t)}
          </text>
        ))}
        <text x={(M.left + width - M.right) / 2} y={H - 6} textAnchor="middle" className="axis-label">
          {usd ? 'mean cost per task (USD)' : 'mean tokens per task'}
        </text>
        <text
          x={14}
          y={(M.top + H - M.bottom) / 2}
          textAnchor="middle"
          className="axis-label"
          transform={`rotate(-90 14 ${(M.top + H - M.bottom) / 2})`}
        >
          accuracy
        </text>
        {front.length > 1 && (
          <polyline
            className="pareto"
            points={front.map((p) => `${x(p.cost)},${y(p.accuracy)}`).join(' ')}
            data-testid="eval-pareto-line"
          />
        )}
        {pts.map((p) => (
          <g
            key={p.method}
            onMouseEnter={() => setHover(p.method)}
            onMouseLeave={() => setHover(null)}
            onClick={() => onPick(p.method)}
            className="point"
            data-testid={`eval-point-${p.method}`}
          >
            <line
              x1={x(p.cost)}
              x2={x(p.cost)}
              y1={y(p.ci[0])}
              y2={y(p.ci[1])}
              stroke={colourOf(doc, p.method)}
            />
            <circle
              cx={x(p.cost)}
              cy={y(p.accuracy)}
              r={p.onFront ? 7 : 5}
              fill={colourOf(doc, p.method)}
              stroke={p.onFront ? '#111' : 'none'}
            />
            <text {...pointLabel(x(p.cost), y(p.accuracy), width - M.right, M.top)} className="point-label">
              {p.method}
            </text>
          </g>
        ))}
      </svg>
      <p className="eval-hover" data-testid="eval-hover" aria-live="polite">
        {shown
          ? `${shown.label}: accuracy ${shown.accuracy.toFixed(3)} [${shown.ci[0].toFixed(2)}, ${shown.ci[1].toFixed(2)}], ${fmtCost(usd, shown.cost)} ${usd ? '' : 'tokens '}per task${shown.onFront ? ', on the Pareto front' : ''}. Click for its traces.`
          : 'Hover a point for details; click it for its traces.'}
      </p>
    </figure>
  );
}

/** Accuracy against the axis value, one line per method (MAS-Orchestra's MASBench figure). */
export function AxisCurves({
  doc,
  onPick,
}: {
  doc: EvalDocument;
  onPick: (method: string, axis: string, value: number) => void;
}): JSX.Element {
  const curves = axisCurves(doc);
  const w = 300;
  const h = 220;
  const m = { left: 40, right: 10, top: 12, bottom: 36 };
  return (
    <div className="eval-curves" data-testid="eval-curves">
      {curves.map((c) => {
        const lo = Math.min(...c.values);
        const hi = Math.max(...c.values);
        const x = linearScale(
          lo === hi ? lo - 1 : lo,
          lo === hi ? hi + 1 : hi,
          m.left,
          w - m.right,
          Math.min(6, c.values.length),
        );
        const y = linearScale(0, 1, h - m.bottom, m.top);
        return (
          <figure key={c.axis} className="eval-chart small">
            <figcaption>{c.axis}</figcaption>
            <svg
              viewBox={`0 0 ${w} ${h}`}
              width={w}
              height={h}
              role="img"
              aria-label={`accuracy by ${c.axis}`}
            >
              {y.ticks.map((t) => (
                <g key={t}>
                  <line x1={m.left} x2={w - m.right} y1={y(t)} y2={y(t)} className="grid" />
                  <text x={m.left - 4} y={y(t) + 4} textAnchor="end" className="tick">
                    {t.toFixed(1)}
                  </text>
                </g>
              ))}
              {c.values.map((v) => (
                <text key={v} x={x(v)} y={h - m.bottom + 14} textAnchor="middle" className="tick">
                  {v}
                </text>
              ))}
              <text x={(m.left + w - m.right) / 2} y={h - 4} textAnchor="middle" className="axis-label">
                {c.axis} value
              </text>
              {c.lines.map((l) => (
                <g key={l.method.method}>
                  <polyline
                    fill="none"
                    stroke={colourOf(doc, l.method.method)}
                    strokeWidth={2}
                    points={l.points.map((p) => `${x(p.value)},${y(p.accuracy)}`).join(' ')}
                  />
                  {l.points.map((p) => (
                    <circle
                      key={p.value}
                      cx={x(p.value)}
                      cy={y(p.accuracy)}
                      r={4}
                      fill={colourOf(doc, l.method.method)}
                      className="point"
                      onClick={() => onPick(l.method.method, c.axis, p.value)}
                    >
                      <title>{`${l.method.label}, ${c.axis} ${p.value}: ${p.accuracy.toFixed(3)} [${p.ci[0].toFixed(2)}, ${p.ci[1].toFixed(2)}]`}</title>
                    </circle>
                  ))}
                </g>
              ))}
            </svg>
          </figure>
        );
      })}
      <ul className="eval-legend">
        {doc.summary.methods
          .filter((m) => m.available)
          .map((m) => (
            <li key={m.method}>
              <span className="swatch" style={{ background: colourOf(doc, m.method) }} /> {m.label}
            </li>
          ))}
      </ul>
    </div>
  );
}
