import type { JSX } from 'react';
import type { Trace } from '../../core/trace.ts';
import './diagram.css';

/**
 * Every note the importer made about this trace's source (values it left out, changed or doubts,
 * and how a missing design was recovered), as plain text. Nothing when there are none.
 */
export function ImportNotes({ trace }: { trace: Trace }): JSX.Element | null {
  const notes = trace.importNotes ?? [];
  if (notes.length === 0) return null;
  return (
    <section className="insp-section import-notes-section" data-testid="trace-import-notes">
      <h4>
        Import notes <span className="muted small">({notes.length})</span>
      </h4>
      <ul>
        {notes.map((n, i) => (
          <li key={i} data-testid="trace-import-note">
            {n.message}
            {n.path !== undefined && <span className="muted"> ({n.path})</span>}
          </li>
        ))}
      </ul>
    </section>
  );
}
