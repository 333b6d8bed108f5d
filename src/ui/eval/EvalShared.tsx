import { useEffect, useState, type JSX } from 'react';
import { rowsNote } from '../../store/slices/eval-share.ts';
import { useBaton } from '../../store/store.ts';
import { ProblemAlert } from '../common/ProblemAlert.tsx';
import { AxisCurves, ParetoScatter } from './EvalCharts.tsx';
import { EvalTable, PairsTable } from './EvalTable.tsx';
import './eval.css';

/**
 * Shared evaluation results (`#e=1.…`), read-only: the same scatter, curves and tables as the
 * Evaluate page, drawn from the validated document in the link. Nothing here touches the viewer's
 * own evaluations; everything from the link is rendered as text.
 */

interface Pick {
  method: string;
  axis: string | null;
  value: number | null;
}

export function EvalShared({ input }: { input: string }): JSX.Element {
  const shared = useBaton((s) => s.evalShared);
  const open = useBaton((s) => s.openEvalLink);
  useEffect(() => open(input), [input, open]);
  const [pick, setPick] = useState<Pick | null>(null);
  const mine = shared && shared.input === input ? shared : null;
  const doc = mine && 'doc' in mine ? mine.doc : null;
  const picked =
    doc && pick
      ? doc.rows.filter(
          (r) =>
            r.method === pick.method &&
            (pick.axis === null || (r.axis === pick.axis && r.value === pick.value)),
        )
      : [];
  return (
    <section className="page eval-page" data-testid="eval-shared-page">
      <h1 className="page-title">
        Shared evaluation{' '}
        <span className="badge" data-testid="eval-shared-readonly">
          read-only
        </span>
      </h1>
      <p className="muted">Evaluation results from a link: nothing here changes your own evaluations.</p>
      {mine && 'problems' in mine && (
        <ProblemAlert
          title="This link cannot be opened"
          problems={mine.problems}
          testId="eval-shared-problems"
        />
      )}
      {mine && 'doc' in mine && doc && (
        <div className="eval-results" data-testid="eval-results">
          <p data-testid="eval-shared-config">
            {doc.config.backend.kind === 'simulated'
              ? 'Simulated sub-agents (a simulation, not a model)'
              : `${doc.config.backend.provider} · ${doc.config.backend.model}`}{' '}
            · {doc.config.methods.length} methods ·{' '}
            {doc.config.taskSet.kind === 'masbench'
              ? `MASBench ${doc.config.taskSet.axes.map((a) => `${a.axis}:${a.values.join(',')}`).join(' ')} × ${doc.config.taskSet.n}, seed ${doc.config.taskSet.seed}, ${doc.config.taskSet.split} split`
              : `${doc.config.taskSet.kind} "${doc.config.taskSet.name}"`}{' '}
            · created {doc.createdAt}
          </p>
          <p data-testid="eval-status">
            {doc.planned.toLocaleString()} tasks planned · {doc.spend.tokens.toLocaleString()} tokens · $
            {doc.spend.usd.toFixed(4)}
            {doc.complete ? ' · complete' : ` · stopped${doc.stopped ? ` (${doc.stopped})` : ''}`}
          </p>
          <p className="muted" data-testid="eval-shared-rows" data-rows={mine.rows}>
            {rowsNote(mine.rows, mine.rows === 'included' ? doc.rows.length : doc.planned)} Traces stay with
            whoever ran the evaluation.
          </p>
          <div className="eval-figures">
            <ParetoScatter doc={doc} onPick={(method) => setPick({ method, axis: null, value: null })} />
            {pick && (
              <aside className="eval-traces" data-testid="eval-shared-pick">
                <header>
                  <h3>
                    {pick.method}
                    {pick.axis !== null ? ` · ${pick.axis} ${pick.value}` : ''}
                  </h3>
                  <button type="button" className="btn" onClick={() => setPick(null)}>
                    Close
                  </button>
                </header>
                {mine.rows === 'included' ? (
                  <p>
                    {picked.filter((r) => r.correct === true).length} of {picked.length} tasks correct
                  </p>
                ) : (
                  <p className="muted">The per-task rows are not in this link.</p>
                )}
              </aside>
            )}
          </div>
          <AxisCurves doc={doc} onPick={(method, axis, value) => setPick({ method, axis, value })} />
          <EvalTable doc={doc} onPick={(method, axis, value) => setPick({ method, axis, value })} />
          <h2>Paired comparisons (McNemar)</h2>
          <PairsTable doc={doc} />
        </div>
      )}
    </section>
  );
}
