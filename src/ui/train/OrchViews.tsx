/**
 * Parts of an orchestrator run that the Train page's orchestrator mode and the read-only view of a
 * shared run both show: the designs sampled in one iteration as mini DAGs, the held-out
 * before/after table, and the curves as numbers. Everything is rendered as text (designs from a
 * link are outside input).
 */
import type { JSX } from 'react';
import type { OrchEvaluation, OrchSampled } from '../../store/slices/train-orch.ts';
import { MiniDag } from './MiniDag.tsx';
import type { OrchColumns, OrchSeries } from './orch-charts.ts';

export function OrchSamples({
  sampled,
  iteration,
}: {
  sampled: readonly OrchSampled[];
  iteration: number;
}): JSX.Element | null {
  if (sampled.length === 0) return null;
  return (
    <section className="train-section">
      <h2>What the orchestrator writes now (iteration {iteration}, sampled)</h2>
      <div className="train-samples">
        {sampled.map((s, i) => (
          <figure key={`${s.taskId}-${s.dom}-${i}`} className="train-sample" data-testid="orch-sample">
            <figcaption>
              <strong>{s.axis}</strong> {s.value} · {s.dom} DoM · {s.correct ? 'correct' : 'wrong'} · R{' '}
              {s.reward.toFixed(2)} ·{' '}
              {s.design === null
                ? 'unreadable'
                : s.design.agents.length === 0
                  ? 'answers directly'
                  : `${s.design.agents.length} agents, ${s.design.edges.length} edges`}
            </figcaption>
            {s.design && s.design.agents.length > 0 ? (
              <MiniDag design={s.design} label={`Design sampled for a ${s.axis} task`} />
            ) : (
              <p className="muted small">no sub-agent: the orchestrator answers itself</p>
            )}
            {s.text !== '' && (
              <details>
                <summary className="small">text</summary>
                <pre className="orch-text">{s.text}</pre>
              </details>
            )}
          </figure>
        ))}
      </div>
    </section>
  );
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
const signed = (x: number, f: (v: number) => string): string => `${x >= 0 ? '+' : '−'}${f(Math.abs(x))}`;

export function OrchEvalTable({ e }: { e: OrchEvaluation }): JSX.Element {
  const rows = [
    { name: 'SFT model (before)', r: e.before },
    { name: `after ${e.iteration} iterations`, r: e.after },
  ];
  return (
    <table className="table" data-testid="orch-eval-table">
      <thead>
        <tr>
          <th>weights</th>
          <th>accuracy (95% CI)</th>
          <th>tokens / task</th>
          <th>agents</th>
          <th>low DoM delegated</th>
          <th>forced tokens</th>
          <th>valid</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(({ name, r }) => (
          <tr key={name}>
            <td>{name}</td>
            <td>
              {pct(r.accuracy)} ({pct(r.interval[0])}–{pct(r.interval[1])})
            </td>
            <td>{Math.round(r.tokens)}</td>
            <td>{r.agents.toFixed(2)}</td>
            <td>{r.lowDomDelegated === null ? '–' : pct(r.lowDomDelegated)}</td>
            <td>{pct(r.forcedShare)}</td>
            <td>{pct(r.validity)}</td>
          </tr>
        ))}
        <tr>
          <td>after − before (paired bootstrap 95%)</td>
          <td data-testid="orch-eval-diff">
            {signed(e.accuracy.difference, pct)} ({pct(e.accuracy.interval[0])} to{' '}
            {pct(e.accuracy.interval[1])})
          </td>
          <td>
            {signed(e.tokens.difference, (v) => String(Math.round(v)))} ({Math.round(e.tokens.interval[0])} to{' '}
            {Math.round(e.tokens.interval[1])})
          </td>
          <td colSpan={4} className="muted small">
            {e.before.n} queries: {e.tasks} test-split tasks, each in low and high DoM, greedy designs, the
            same simulated sub-agents for both
          </td>
        </tr>
      </tbody>
    </table>
  );
}

const CURVE_COLUMNS: { key: OrchSeries; label: string }[] = [
  { key: 'reward', label: 'reward' },
  { key: 'rewardStd', label: '± std' },
  { key: 'accuracy', label: 'accuracy' },
  { key: 'tokens', label: 'tokens / task' },
  { key: 'agents', label: 'agents' },
  { key: 'depth', label: 'depth' },
  { key: 'delegated', label: 'low DoM delegated' },
  { key: 'kl', label: 'KL' },
  { key: 'entropy', label: 'entropy' },
  { key: 'clipFraction', label: 'clip fraction' },
  { key: 'rolloutTps', label: 'rollout tokens/s' },
  { key: 'updateTps', label: 'update tokens/s' },
];

/** A curve value as the table prints it: six significant digits, a gap as a dash. */
export const curveCell = (v: number | null | undefined): string =>
  v === null || v === undefined ? '–' : String(Number(v.toPrecision(6)));

/** Every iteration's values of the charts' series, as text (the numbers behind the charts). */
export function OrchCurveTable({ curves }: { curves: OrchColumns }): JSX.Element {
  return (
    <details className="train-section">
      <summary>The curves as numbers ({curves.iteration.length} iterations)</summary>
      <table className="table small" data-testid="orch-curve-table">
        <thead>
          <tr>
            <th>iteration</th>
            {CURVE_COLUMNS.map((c) => (
              <th key={c.key}>{c.label}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {curves.iteration.map((it, i) => (
            <tr key={`${it}-${i}`}>
              <td>{curveCell(it)}</td>
              {CURVE_COLUMNS.map((c) => (
                <td key={c.key}>{curveCell(curves[c.key][i])}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
