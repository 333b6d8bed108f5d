import { useEffect, useRef, useState, type JSX } from 'react';
import { copyText } from './clipboard.ts';
import './share.css';

/**
 * A share link as a read-only field with its Copy button and the copy's outcome in words. The one
 * link-with-copy of the app: the trace's share dialog, Train's "Share run" and Evaluate's "Share".
 * `copyToken`: each new value > 0 copies the link once (the pages copy a link as they make it).
 */
export function LinkWithCopy({
  url,
  label,
  testId,
  copyTestId,
  primary = false,
  copyToken = 0,
}: {
  url: string;
  /** The field's accessible name, e.g. "Share link of the run". */
  label: string;
  testId: string;
  copyTestId?: string;
  primary?: boolean;
  copyToken?: number;
}): JSX.Element {
  const field = useRef<HTMLInputElement>(null);
  // What the last copy of *this* url did; a new url starts over.
  const [copied, setCopied] = useState<{ url: string; ok: boolean } | null>(null);
  const copy = (): void => {
    void copyText(url, field.current).then((ok) => setCopied({ url, ok }));
  };
  // Only a new token asks for a copy (a url change alone does not): the url is read through a ref.
  const current = useRef(url);
  useEffect(() => {
    current.current = url;
  }, [url]);
  useEffect(() => {
    if (copyToken <= 0) return;
    const u = current.current;
    void copyText(u, field.current).then((ok) => setCopied({ url: u, ok }));
  }, [copyToken]);
  const outcome = copied && copied.url === url ? copied.ok : null;
  return (
    <div className="link-copy" data-testid={`${testId}-box`}>
      <div className="share-link-row">
        <input
          ref={field}
          className="input mono"
          readOnly
          value={url}
          data-testid={testId}
          aria-label={label}
          onFocus={(e) => e.currentTarget.select()}
        />
        <button
          type="button"
          className={primary ? 'btn btn-primary' : 'btn'}
          onClick={copy}
          {...(copyTestId ? { 'data-testid': copyTestId } : {})}
        >
          Copy
        </button>
      </div>
      <p className={outcome === false ? 'share-copy-status failed' : 'share-copy-status'} role="status">
        {outcome === true && 'Copied to the clipboard.'}
        {outcome === false && 'Could not copy automatically — select the link and copy it by hand.'}
      </p>
    </div>
  );
}
