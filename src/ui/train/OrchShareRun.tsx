/**
 * "Share link" of the orchestrator mode: the run as a link that opens it read-only (config, SFT
 * model, backend, curves, held-out evaluation, sampled designs). Nothing is uploaded: the run is in
 * the link itself. The weights never are, and the line below the link says why, in numbers.
 */
import { useState, type JSX } from 'react';
import { orchShareActions, weightsNote } from '../../store/slices/train-orch-share.ts';
import { useBaton } from '../../store/store.ts';
import { LinkWithCopy } from '../share/LinkWithCopy.tsx';

export function OrchShareRun(): JSX.Element {
  const link = useBaton((s) => s.orchTrain.shareLink);
  const t = useBaton((s) => s.orchTrain);
  const busy = ['starting', 'pausing', 'evaluating', 'exporting', 'running'].includes(t.status);
  const [copyToken, setCopyToken] = useState(0);
  const make = (): void => {
    void orchShareActions(useBaton)
      .share(`${location.origin}${location.pathname}${location.search}`)
      .then((l) => {
        if (l) setCopyToken((n) => n + 1);
      });
  };
  return (
    <section className="train-section">
      <h2>Share the run</h2>
      <div className="train-row">
        <button
          type="button"
          className="btn"
          disabled={t.iteration === 0 || busy}
          title={t.status === 'running' ? 'Pause first' : undefined}
          onClick={make}
          data-testid="orch-share"
        >
          Share link
        </button>
        <span className="muted small">
          A link that opens this run read-only: its config, the SFT model, the backend, the curves, the
          held-out evaluation and the designs sampled last. Nothing is uploaded.
        </span>
      </div>
      {link && (
        <>
          <LinkWithCopy
            url={link.url}
            label="Share link of the orchestrator run"
            testId="orch-share-link"
            primary
            copyToken={copyToken}
          />
          <p className="muted small" data-testid="orch-share-size">
            {link.chars.toLocaleString('en-US')} characters, {link.iterations} iterations
            {link.omitted.length > 0 &&
              `; left out to fit: ${link.omitted.includes('samples') ? 'the sampled designs' : 'the sampled designs’ text'}`}
            .
          </p>
          <p className="muted small" data-testid="orch-share-weights" data-over-by={link.weights.overBy}>
            {weightsNote(link.weights)} Export the model folder instead: “Use in Orchestrate” writes it (fp32,
            q8, q4) in this browser.
          </p>
          {link.overBudget && (
            <div className="alert alert-warn" data-testid="orch-share-over-budget">
              Even without the sampled designs this link is longer than{' '}
              {link.weights.budget.toLocaleString('en-US')} characters; chat apps and some tools cut long
              links.
            </div>
          )}
        </>
      )}
    </section>
  );
}
