import type { JSX } from 'react';
import { SHORTCUTS } from './shortcuts.ts';

/** The list of keyboard shortcuts, opened with `?`. */
export function ShortcutHelp({ onClose }: { onClose: () => void }): JSX.Element {
  return (
    <div className="build-help" role="dialog" aria-label="Keyboard shortcuts" data-testid="build-help">
      <div className="build-help-head">
        <strong>Keyboard shortcuts</strong>
        <button type="button" className="btn btn-ghost btn-small" onClick={onClose}>
          Close
        </button>
      </div>
      <table className="build-help-table">
        <tbody>
          {SHORTCUTS.map((s) => (
            <tr key={s.keys}>
              <td>
                {s.keys.split(/\s+or\s+/).map((k, i) => (
                  <span key={k}>
                    {i > 0 && <span className="muted"> or </span>}
                    <kbd>{k}</kbd>
                  </span>
                ))}
              </td>
              <td>{s.does}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted small">
        Every step is recorded with its distribution, edge probabilities, choice, chooser (policy or you) and
        log-probability.
      </p>
    </div>
  );
}
