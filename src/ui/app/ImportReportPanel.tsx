import type { JSX } from 'react';
import { useBaton } from '../../store/store.ts';
import { plural } from '../common/format.ts';
import { groupImportNotes } from './import-notes.ts';

const SHOWN_LABELS = 6;

/** The items a note is about: the first few, and the rest behind a disclosure. */
function NoteLabels({ labels }: { labels: readonly string[] }): JSX.Element {
  if (labels.length <= SHOWN_LABELS) return <span className="mono">{labels.join(', ')}</span>;
  return (
    <details style={{ display: 'inline' }}>
      <summary style={{ display: 'inline', cursor: 'pointer' }}>
        <span className="mono">{labels.slice(0, SHOWN_LABELS).join(', ')}</span> and{' '}
        {labels.length - SHOWN_LABELS} more
      </summary>
      <span className="mono">{labels.slice(SHOWN_LABELS).join(', ')}</span>
    </details>
  );
}

/** What the last import did: how many traces per file, and every failure with its message. */
export function ImportReportPanel(): JSX.Element | null {
  const report = useBaton((s) => s.importReport);
  const dismiss = useBaton((s) => s.dismissImportReport);
  if (!report) return null;
  const failures = report.files.flatMap((f) => f.failures.map((x) => ({ file: f.name, ...x })));
  const notes = groupImportNotes(report.files);
  const noteCount = notes.reduce((n, g) => n + g.labels.length, 0);
  const tone = report.imported === 0 ? 'alert-error' : failures.length > 0 ? 'alert-warn' : 'alert-ok';
  return (
    <section className={`alert ${tone} import-report`} data-testid="import-report" aria-label="Import report">
      <div className="alert-body">
        <strong role="status" data-testid="import-count" data-count={report.imported}>
          Imported {plural(report.imported, 'trace')}
          {report.failed > 0 ? `, ${report.failed} failed` : ''}.
        </strong>
        <ul className="import-files">
          {report.files.map((f, i) => (
            <li key={i}>
              <span className="mono">{f.name}</span>
              {f.kind ? <span className="muted"> · {f.kind}</span> : null}
              <span className="muted"> · {plural(f.traces.length, 'trace')}</span>
            </li>
          ))}
        </ul>
        {notes.length > 0 && (
          <div data-testid="import-notes" data-count={noteCount}>
            <p className="muted small">
              {plural(noteCount, 'note')} from the importer (also on each trace's page):
            </p>
            <ul className="import-notes muted" style={{ maxHeight: '14em', overflowY: 'auto' }}>
              {notes.map((g, i) => (
                <li key={i} data-testid="import-note" data-count={g.labels.length}>
                  <NoteLabels labels={g.labels} />: {g.message}
                </li>
              ))}
            </ul>
          </div>
        )}
        {failures.length > 0 && (
          <div role="alert">
            <ul className="import-failures">
              {failures.slice(0, 50).map((f, i) => (
                <li key={i}>
                  <span className="mono">{f.label === f.file ? f.file : `${f.file} › ${f.label}`}</span>:{' '}
                  {f.message}
                </li>
              ))}
            </ul>
            {failures.length > 50 && <p className="muted">…and {failures.length - 50} more.</p>}
          </div>
        )}
      </div>
      <button type="button" className="btn btn-ghost btn-small" onClick={dismiss}>
        Dismiss
      </button>
    </section>
  );
}
