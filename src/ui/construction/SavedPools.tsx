import type { JSX } from 'react';
import { formatDate, plural } from '../common/format.ts';

/** One stored version, as the saved list shows it. */
export interface SavedPool {
  version: string;
  roles: number;
  /** ISO 8601. */
  savedAt: string;
}

/** The role pools kept in this browser; each but the one in use can be loaded. */
export function SavedPools({
  saved,
  inUse,
  idPrefix,
  onLoadVersion,
}: {
  saved: readonly SavedPool[];
  inUse: string;
  idPrefix: string;
  onLoadVersion(version: string): void;
}): JSX.Element {
  return (
    <section className="roles-saved" aria-labelledby={`${idPrefix}-saved`}>
      <h3 id={`${idPrefix}-saved`}>Saved versions</h3>
      {saved.length === 0 ? (
        <p className="muted small">No saved versions in this browser yet.</p>
      ) : (
        <ul className="roles-saved-list" data-testid="roles-saved">
          {saved.map((s) => (
            <li key={s.version} data-testid="roles-saved-item">
              <span className="mono roles-saved-version">{s.version}</span>
              <span className="muted">{plural(s.roles, 'role')}</span>
              <span className="muted">{formatDate(s.savedAt)}</span>
              {s.version === inUse ? (
                <span className="badge badge-ok">in use</span>
              ) : (
                <button
                  type="button"
                  className="btn btn-small"
                  onClick={() => onLoadVersion(s.version)}
                  aria-label={`Load ${s.version}`}
                >
                  Load
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
