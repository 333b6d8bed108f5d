import type { JSX } from 'react';
import type { Evaluation } from '../../store/slices/train.ts';

/**
 * Before/after evaluation on the same held-out tasks (test-split seeds): prior, random and the
 * current policy, greedy constructions run by the simulated sub-agents. Accuracy with its 95%
 * Wilson interval, tokens, agents, edges, reward, per axis; and accuracy against tokens as a
 * scatter with the intervals as error bars.
 */
type Row = { name: string; color: string; r: NonNullable<Evaluation['current']> };

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

function rowsOf(e: Evaluation): Row[] {
  const rows: Row[] = [
    { name: 'prior', color: '#64748b', r: e.prior },
    { name: 'random', color: '#ca8a04', r: e.random },
  ];
  if (e.current) rows.push({ name: `current (iteration ${e.iteration})`, color: '#2563eb', r: e.current });
  return rows;
}

function Scatter({ rows }: { rows: Row[] }): JSX.Element {
  const W = 320;
  const H = 200;
  const pad = 36;
  const maxTok = Math.max(1, ...rows.map((r) => r.r.tokens)) * 1.15;
  const x = (t: number): number => pad + (t / maxTok) * (W - pad - 10);
  const y = (a: number): number => H - pad - a * (H - pad - 10);
  return (
    <svg
      className="train-scatter"
      viewBox={`0 0 ${W} ${H}`}
      role="img"
      aria-label="Accuracy against tokens per task"
    >
      <line x1={pad} y1={y(0)} x2={W - 10} y2={y(0)} stroke="#cbd5e1" />
      <line x1={pad} y1={y(0)} x2={pad} y2={y(1)} stroke="#cbd5e1" />
      <text x={pad - 4} y={y(1) + 4} fontSize={10} textAnchor="end">
        1
      </text>
      <text x={pad - 4} y={y(0)} fontSize={10} textAnchor="end">
        0
      </text>
      <text x={W / 2} y={H - 6} fontSize={10} textAnchor="middle">
        tokens per task (max {Math.round(maxTok)})
      </text>
      <text x={10} y={H / 2} fontSize={10} transform={`rotate(-90 10 ${H / 2})`} textAnchor="middle">
        accuracy
      </text>
      {rows.map((r) => (
        <g key={r.name} data-testid="train-scatter-point">
          <line
            x1={x(r.r.tokens)}
            x2={x(r.r.tokens)}
            y1={y(r.r.interval[0])}
            y2={y(r.r.interval[1])}
            stroke={r.color}
          />
          <circle cx={x(r.r.tokens)} cy={y(r.r.accuracy)} r={5} fill={r.color}>
            <title>{`${r.name}: ${pct(r.r.accuracy)} at ${Math.round(r.r.tokens)} tokens`}</title>
          </circle>
          <text x={x(r.r.tokens) + 7} y={y(r.r.accuracy) - 6} fontSize={10}>
            {r.name.split(' ')[0]}
          </text>
        </g>
      ))}
    </svg>
  );
}

export function EvalPanel({ evaluation }: { evaluation: Evaluation }): JSX.Element {
  const rows = rowsOf(evaluation);
  const axes = [...new Set(rows.flatMap((r) => Object.keys(r.r.perAxis)))].sort();
  return (
    <div className="train-eval" data-testid="train-eval">
      <p className="muted small">
        {evaluation.n} held-out tasks (test-split seeds, seed {evaluation.seed}), greedy constructions,
        simulated sub-agents. Intervals: 95% Wilson.
      </p>
      <div className="train-eval-body">
        <table className="table">
          <thead>
            <tr>
              <th>policy</th>
              <th>accuracy [95% CI]</th>
              <th>tokens</th>
              <th>agents</th>
              <th>edges</th>
              <th>reward</th>
              {axes.map((a) => (
                <th key={a}>{a}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.name} data-testid="train-eval-row">
                <td>{r.name}</td>
                <td className="mono">
                  {pct(r.r.accuracy)} [{pct(r.r.interval[0])}, {pct(r.r.interval[1])}]
                </td>
                <td className="mono">{Math.round(r.r.tokens)}</td>
                <td className="mono">{r.r.agents.toFixed(2)}</td>
                <td className="mono">{r.r.edges.toFixed(2)}</td>
                <td className="mono">{r.r.reward.toFixed(3)}</td>
                {axes.map((a) => {
                  const s = r.r.perAxis[a];
                  return (
                    <td key={a} className="mono">
                      {s ? `${pct(s.accuracy)} (n=${s.n})` : '–'}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
        <Scatter rows={rows} />
      </div>
    </div>
  );
}
