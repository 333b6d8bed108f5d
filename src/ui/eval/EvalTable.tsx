import { useMemo, useState, type JSX } from 'react';
import type { EvalDocument, Score } from '../../store/slices/eval.ts';

interface Line {
  method: string;
  label: string;
  axis: string | null;
  value: number | null;
  s: Score;
}

type Key =
  | 'method'
  | 'cell'
  | 'n'
  | 'accuracy'
  | 'meanTokens'
  | 'totalCostUsd'
  | 'meanWallMs'
  | 'agentsPerTask'
  | 'callsPerTask';

const COLUMNS: { key: Key; label: string }[] = [
  { key: 'method', label: 'Method' },
  { key: 'cell', label: 'Axis value' },
  { key: 'n', label: 'Tasks' },
  { key: 'accuracy', label: 'Accuracy [95% CI]' },
  { key: 'meanTokens', label: 'Tokens / task' },
  { key: 'totalCostUsd', label: 'Cost (USD)' },
  { key: 'meanWallMs', label: 'Wall ms / task' },
  { key: 'agentsPerTask', label: 'Agents / task' },
  { key: 'callsPerTask', label: 'Calls / task' },
];

function sortValue(l: Line, k: Key): string | number {
  if (k === 'method') return l.method;
  if (k === 'cell') return l.axis === null ? '' : `${l.axis} ${String(l.value).padStart(2, '0')}`;
  return l.s[k];
}

/** Every method overall and per axis value; click a header to sort, a row to list its traces. */
export function EvalTable({
  doc,
  onPick,
}: {
  doc: EvalDocument;
  onPick: (method: string, axis: string | null, value: number | null) => void;
}): JSX.Element {
  const [sort, setSort] = useState<{ key: Key; desc: boolean }>({ key: 'method', desc: false });
  const lines = useMemo(() => {
    const out: Line[] = [];
    for (const m of doc.summary.methods) {
      if (!m.available) continue;
      out.push({ method: m.method, label: m.label, axis: null, value: null, s: m.overall });
      for (const p of m.perValue)
        out.push({ method: m.method, label: m.label, axis: p.axis, value: p.value, s: p });
    }
    const dir = sort.desc ? -1 : 1;
    return out.sort((a, b) => {
      const x = sortValue(a, sort.key);
      const y = sortValue(b, sort.key);
      return (x < y ? -1 : x > y ? 1 : 0) * dir;
    });
  }, [doc, sort]);
  return (
    <table className="eval-table" data-testid="eval-table">
      <thead>
        <tr>
          {COLUMNS.map((c) => (
            <th
              key={c.key}
              aria-sort={sort.key === c.key ? (sort.desc ? 'descending' : 'ascending') : 'none'}
            >
              <button
                type="button"
                onClick={() =>
                  setSort((s) => ({
                    key: c.key,
                    desc: s.key === c.key ? !s.desc : c.key !== 'method' && c.key !== 'cell',
                  }))
                }
                data-testid={`eval-sort-${c.key}`}
              >
                {c.label}
                {sort.key === c.key ? (sort.desc ? ' ▼' : ' ▲') : ''}
              </button>
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {lines.map((l) => (
          <tr
            key={`${l.method}|${l.axis ?? ''}|${l.value ?? ''}`}
            className={l.axis === null ? 'overall' : undefined}
            onClick={() => onPick(l.method, l.axis, l.value)}
            data-testid={`eval-row-${l.method}-${l.axis ?? 'all'}-${l.value ?? 'all'}`}
          >
            <td>{l.label}</td>
            <td>{l.axis === null ? 'all' : `${l.axis} ${l.value}`}</td>
            <td>{l.s.n}</td>
            <td data-testid="eval-accuracy">
              {l.s.accuracy.toFixed(3)} [{l.s.ci95[0].toFixed(2)}, {l.s.ci95[1].toFixed(2)}]
            </td>
            <td>{Math.round(l.s.meanTokens)}</td>
            <td>{l.s.totalCostUsd.toFixed(4)}</td>
            <td>{Math.round(l.s.meanWallMs)}</td>
            <td>{l.s.agentsPerTask.toFixed(1)}</td>
            <td>{l.s.callsPerTask.toFixed(1)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** McNemar between every pair of methods. */
export function PairsTable({ doc }: { doc: EvalDocument }): JSX.Element | null {
  if (doc.summary.pairs.length === 0) return null;
  return (
    <table className="eval-table" data-testid="eval-pairs">
      <thead>
        <tr>
          <th>A</th>
          <th>B</th>
          <th>Paired tasks</th>
          <th>A right, B wrong</th>
          <th>A wrong, B right</th>
          <th>Δ accuracy</th>
          <th>McNemar exact p</th>
          <th>mid-p</th>
        </tr>
      </thead>
      <tbody>
        {doc.summary.pairs.map((p) => (
          <tr key={`${p.a}|${p.b}`}>
            <td>{p.a}</td>
            <td>{p.b}</td>
            <td>{p.n}</td>
            <td>{p.aOnly}</td>
            <td>{p.bOnly}</td>
            <td>{p.difference.toFixed(3)}</td>
            <td>{p.pExact < 0.001 ? p.pExact.toExponential(1) : p.pExact.toFixed(3)}</td>
            <td>{p.pMid < 0.001 ? p.pMid.toExponential(1) : p.pMid.toFixed(3)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
