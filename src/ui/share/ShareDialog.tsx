import { useEffect, useMemo, useRef, useState, type JSX } from 'react';
import type { Trace } from '../../core/trace.ts';
import {
  encodeTraceLink,
  LINK_BUDGET_CHARS,
  shareUrl,
  smallestLink,
  type EncodedLink,
} from '../../share/index.ts';
import { plural } from '../common/format.ts';
import { downloadTraceJson } from './download.ts';
import { LinkWithCopy } from './LinkWithCopy.tsx';
import { linkNotes } from './link-notes.ts';
import './share.css';

type Made = { ok: true; link: EncodedLink; url: string } | { ok: false; message: string };

function makeLink(trace: Trace, smaller: boolean): Made {
  try {
    const link = smaller ? smallestLink(trace) : encodeTraceLink(trace);
    return { ok: true, link, url: shareUrl(`${location.origin}${location.pathname}`, link) };
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
}

/**
 * The share link for a trace: its size before copying, the link itself, and — when it is over
 * the budget — a smaller link with long outputs trimmed, or the JSON file instead.
 */
export function ShareDialog({ trace, onClose }: { trace: Trace; onClose: () => void }): JSX.Element {
  const dialog = useRef<HTMLDialogElement>(null);
  const [smaller, setSmaller] = useState(false);
  const made = useMemo(() => makeLink(trace, smaller), [trace, smaller]);
  const notes = made.ok ? linkNotes(trace, made.link) : null;

  useEffect(() => {
    const d = dialog.current;
    if (d && !d.open) d.showModal();
  }, []);

  return (
    <dialog
      ref={dialog}
      className="dialog share-dialog"
      aria-labelledby="share-title"
      onClose={onClose}
      data-testid="share-dialog"
    >
      <div className="dialog-head">
        <h2 id="share-title">Share this trace</h2>
        <button type="button" className="btn btn-ghost btn-small" onClick={() => dialog.current?.close()}>
          Close
        </button>
      </div>
      <p className="muted">
        The whole trace is compressed into the link itself; nothing is uploaded. API keys and other secrets
        are removed.
      </p>
      {made.ok ? (
        <>
          <div className="share-size-row">
            <span data-testid="share-size" data-chars={made.url.length}>
              {plural(made.url.length, 'character')}
            </span>
            <span className="muted">budget {LINK_BUDGET_CHARS.toLocaleString()}</span>
            {made.link.trimmed && (
              <span className="badge badge-warn" data-testid="share-trimmed">
                {plural(made.link.trimmed.fields, 'field')} trimmed,{' '}
                {made.link.trimmed.charsRemoved.toLocaleString()} characters removed
              </span>
            )}
          </div>
          <LinkWithCopy
            url={made.url}
            label="Share link"
            testId="share-link"
            copyTestId="share-copy"
            primary
          />
          {made.link.overBudget && (
            <div className="alert alert-warn" data-testid="share-over-budget">
              <div className="alert-body">
                <strong>
                  This link is longer than {LINK_BUDGET_CHARS.toLocaleString()} characters
                  {smaller ? ', even with every long text trimmed' : ''}.
                </strong>
                <p>
                  Chat apps and some tools cut long links. Download the trace as JSON and send the file
                  instead
                  {smaller ? '' : ', or make a smaller link with long outputs trimmed'}.
                </p>
                {notes?.smallerLoses && <p data-testid="share-smaller-loses">{notes.smallerLoses}</p>}
              </div>
            </div>
          )}
          {notes?.noDesign && (
            <div className="alert alert-warn" data-testid="share-no-design">
              <div className="alert-body">
                <strong>This link carries no design.</strong>
                <p>{notes.noDesign}</p>
              </div>
            </div>
          )}
          {(made.link.overBudget || smaller) && (
            <div className="row">
              <button type="button" className="btn" onClick={() => downloadTraceJson(trace)}>
                Download JSON
              </button>
              {!smaller && (
                <button
                  type="button"
                  className="btn"
                  onClick={() => setSmaller(true)}
                  data-testid="share-smaller"
                >
                  Make a smaller link
                </button>
              )}
              {smaller && (
                <button type="button" className="btn btn-ghost" onClick={() => setSmaller(false)}>
                  Back to the full link
                </button>
              )}
            </div>
          )}
          {smaller && made.link.trimmed && !notes?.noDesign && (
            <p className="muted">
              Long outputs, messages and notes are cut with a marker; the trace opens marked as trimmed. The
              task, the design and the final answer are kept whole.
            </p>
          )}
          {notes?.diagramLeftOut && <p className="muted">{notes.diagramLeftOut}</p>}
        </>
      ) : (
        <div className="alert alert-error" role="alert">
          <div className="alert-body">
            <strong>The link could not be made.</strong>
            <p>{made.message}</p>
          </div>
        </div>
      )}
    </dialog>
  );
}
