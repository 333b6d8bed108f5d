import type { JSX } from 'react';
import type { Evaluation, StructureRow } from '../../store/slices/train.ts';

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

/**
 * Query-adaptive structure: per axis, what each policy's greedy designs look like on the same
 * held-out tasks — mean agents, edges and DAG depth, and how many designs use each role.
 */
function StructurePanel({ evaluation }: { evaluation: Evaluation }): JSX.Element {
  const st = evaluation.structure;
  const policies: [string, Record<string, StructureRow>][] = [
    ['prior', st.prior],
    ['random', st.random],
  ];
  if (st.current) policies.push([`current (${evaluation.iteration})`, st.current]);
  const axes = [...new Set(policies.flatMap(([, p]) => Object.keys(p)))].sort((a, b) =>
    a === 'all' ? 1 : b === 'all' ? -1 : a.localeCompare(b),
  );
  const roles = [
    ...new Set(
      policies.flatMap(([, p]) =>
        Object.values(p).flatMap((row) => Object.keys(row.roleUse).filter((r) => (row.roleUse[r] ?? 0) > 0)),
      ),
    ),
  ];
  return (
    <div className="train-structure" data-testid="train-structure">
      <h3>What each policy builds, per axis</h3>
      <p className="muted small">
        Greedy designs on the same held-out tasks: mean agents, edges and longest path (summariser included),
        and the share of designs that use each role.
      </p>
      <table className="table">
        <thead>
          <tr>
            <th>axis</th>
            <th>policy</th>
            <th>n</th>
            <th>agents</th>
            <th>edges</th>
            <th>depth</th>
            {roles.map((r) => (
              <th key={r}>{r}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {axes.flatMap((axis) =>
            policies.map(([name, p]) => {
              const row = p[axis];
              return (
                <tr
                  key={`${axis}/${name}`}
                  data-testid="train-structure-row"
                  data-axis={axis}
                  data-policy={name}
                >
                  <td>{axis}</td>
                  <td>{name}</td>
                  <td className="mono">{row?.n ?? 0}</td>
                  <td className="mono">{row ? row.agents.toFixed(2) : '–'}</td>
                  <td className="mono">{row ? row.edges.toFixed(2) : '–'}</td>
                  <td className="mono">{row ? row.depth.toFixed(2) : '–'}</td>
                  {roles.map((r) => (
                    <td key={r} className="mono">
                      {row ? `${Math.round((row.roleUse[r] ?? 0) * 100)}%` : '–'}
                    </td>
                  ))}
                </tr>
              );
            }),
          )}
        </tbody>
      </table>
    </div>
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
      <StructurePanel evaluation={evaluation} />
    </div>
  );
}
