import { useState, type JSX } from 'react';
import { LINK_BUDGET_CHARS } from '../../share/index.ts';
import { paramsNote } from '../../store/slices/train-share.ts';
import { useBaton } from '../../store/store.ts';
import { LinkWithCopy } from '../share/LinkWithCopy.tsx';

/**
 * "Share run": the current run as a link that opens it read-only (config, curves, evaluation table
 * and, when they fit, the trained parameters). Nothing is uploaded: the run is in the link itself.
 */
export function ShareRun(): JSX.Element {
  const link = useBaton((s) => s.trainShareLink);
  const share = useBaton((s) => s.shareTrainRun);
  const hasRun = useBaton((s) => s.trainIteration > 0);
  const busy = useBaton((s) => s.trainStatus === 'starting' || s.trainStatus === 'pausing');
  const [copyToken, setCopyToken] = useState(0);
  const make = (): void => {
    void share(`${location.origin}${location.pathname}${location.search}`).then((l) => {
      if (l) setCopyToken((n) => n + 1);
    });
  };
  return (
    <section className="train-section">
      <div className="train-row">
        <button
          type="button"
          className="btn"
          disabled={!hasRun || busy}
          onClick={make}
          data-testid="train-share"
        >
          Share run
        </button>
        <span className="muted">
          A link that opens this run read-only and re-runs it on the CPU; nothing is uploaded.
        </span>
      </div>
      {link && (
        <>
          <LinkWithCopy
            url={link.url}
            label="Share link of the run"
            testId="train-share-link"
            primary
            copyToken={copyToken}
          />
          <p className="muted" data-testid="train-share-size" data-params={link.params}>
            {link.chars.toLocaleString()} characters ({link.iterations} iterations). {paramsNote(link.params)}
          </p>
          {link.overBudget && (
            <div className="alert alert-warn" data-testid="train-share-over-budget">
              Even without the parameters this link is longer than {LINK_BUDGET_CHARS.toLocaleString()}{' '}
              characters; chat apps and some tools cut long links. Download the snapshot instead.
            </div>
          )}
        </>
      )}
    </section>
  );
}
