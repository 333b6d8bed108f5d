import { useState, type JSX } from 'react';
import { LINK_BUDGET_CHARS } from '../../share/index.ts';
import { rowsNote } from '../../store/slices/eval-share.ts';
import { useBaton } from '../../store/store.ts';
import { ProblemAlert } from '../common/ProblemAlert.tsx';
import { LinkWithCopy } from '../share/LinkWithCopy.tsx';

/**
 * "Share" and "Download OTLP" for the results on the Evaluate page. Sharing puts the results in the
 * link itself (nothing is uploaded): the summary always, the per-task rows when they fit. The OTLP
 * file holds every trace of the results that this browser keeps, secrets removed.
 */

function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function ShareResults(): JSX.Element | null {
  const doc = useBaton((s) => s.evalDoc);
  const made = useBaton((s) => s.evalShareLink);
  const share = useBaton((s) => s.shareEval);
  const exportOtlp = useBaton((s) => s.exportEvalOtlp);
  const otlpProblems = useBaton((s) => s.evalOtlpProblems);
  const [copyToken, setCopyToken] = useState(0);
  const [otlp, setOtlp] = useState<{ status: 'idle' | 'busy' } | { status: 'done'; text: string }>({
    status: 'idle',
  });
  if (!doc) return null;
  const link = made && made.doc === doc ? made : null;
  const make = (): void => {
    const l = share(`${location.origin}${location.pathname}${location.search}`);
    if (l) setCopyToken((n) => n + 1);
  };
  const saveOtlp = async (): Promise<void> => {
    setOtlp({ status: 'busy' });
    const f = await exportOtlp();
    if (!f) return setOtlp({ status: 'idle' });
    download(f.name, f.text);
    setOtlp({
      status: 'done',
      text: `${f.traces.toLocaleString()} traces exported${f.missing > 0 ? `; ${f.missing.toLocaleString()} not kept in this browser` : ''}.`,
    });
  };
  return (
    <div className="eval-share">
      <div className="eval-exports">
        <button type="button" className="btn" onClick={make} data-testid="eval-share">
          Share
        </button>
        <button
          type="button"
          className="btn"
          disabled={otlp.status === 'busy'}
          onClick={() => void saveOtlp()}
          data-testid="eval-export-otlp"
        >
          Download OTLP
        </button>
        {otlp.status === 'done' && (
          <span className="muted" data-testid="eval-otlp-done">
            {otlp.text}
          </span>
        )}
      </div>
      {otlpProblems.length > 0 && (
        <ProblemAlert title="OTLP export" problems={otlpProblems} testId="eval-otlp-problems" />
      )}
      {link && (
        <>
          <LinkWithCopy
            url={link.url}
            label="Share link of the results"
            testId="eval-share-link"
            copyToken={copyToken}
          />
          <p className="muted" data-testid="eval-share-size" data-rows={link.rows}>
            {link.chars.toLocaleString()} characters. {rowsNote(link.rows, link.rowCount)}
          </p>
          {link.overBudget && (
            <div className="alert alert-warn" data-testid="eval-share-over-budget">
              Even without the rows this link is longer than {LINK_BUDGET_CHARS.toLocaleString()} characters;
              chat apps and some tools cut long links. Export JSON instead.
            </div>
          )}
        </>
      )}
    </div>
  );
}
