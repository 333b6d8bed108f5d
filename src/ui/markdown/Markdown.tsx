import { memo, startTransition, Suspense, use, useEffect, useState, type JSX } from 'react';
import { ChunkLoadError } from '../common/lazy.ts';
import type { MarkdownProps } from './MarkdownRenderer.tsx';
import './markdown.css';

export type { MarkdownProps };

type Renderer = (props: MarkdownProps) => JSX.Element;

/** The renderer once its chunk has arrived; from then on `Markdown` renders without suspending. */
let renderer: Renderer | null = null;
let loading: Promise<Renderer> | null = null;

/**
 * Downloads markdown + KaTeX (and KaTeX's stylesheet) once. The trace route calls it alongside its
 * own chunk so its text is drawn formatted from the first frame; any other caller of `Markdown`
 * gets it on first render. A failed download is forgotten, so a later render tries again, and
 * rejects with a `ChunkLoadError` that the page's error boundary shows with a reload button.
 */
export function loadMarkdown(): Promise<Renderer> {
  loading ??= import('./MarkdownRenderer.tsx').then(
    (m) => (renderer = m.MarkdownRenderer),
    (error: unknown) => {
      loading = null;
      throw new ChunkLoadError(error);
    },
  );
  return loading;
}

function Rendered(props: MarkdownProps): JSX.Element {
  // `use` may sit in a condition: once loaded, the renderer is read without suspending.
  const Render = renderer ?? use(loadMarkdown());
  return <Render {...props} />;
}

/** The text as it is, in the markdown box, while the renderer downloads. */
function PlainText({ text, className }: MarkdownProps): JSX.Element {
  return <div className={className ? `md md-plain ${className}` : 'md md-plain'}>{text}</div>;
}

/**
 * Markdown with math for untrusted text: no raw HTML, safe links, no images fetched
 * (`MarkdownRenderer.tsx`). Shows the plain text until the renderer's chunk has loaded.
 */
export const Markdown = memo(function Markdown(props: MarkdownProps): JSX.Element {
  return (
    <Suspense fallback={<PlainText {...props} />}>
      <Rendered {...props} />
    </Suspense>
  );
});

/** Characters shown before "show more" on long text. */
export const COLLAPSE_AT = 1200;

/** Markdown that shows the first `COLLAPSE_AT` characters of long text until expanded. */
export function CollapsibleMarkdown({
  text,
  limit = COLLAPSE_AT,
}: {
  text: string;
  limit?: number;
}): JSX.Element {
  const [open, setOpen] = useState(false);
  const long = text.length > limit;
  const shown = long && !open ? `${text.slice(0, limit)}…` : text;
  return (
    <div className="md-collapsible">
      <Markdown text={shown} />
      {long && (
        <button type="button" className="link-button" onClick={() => setOpen(!open)}>
          {open ? 'show less' : `show more (${(text.length - limit).toLocaleString('en')} more characters)`}
        </button>
      )}
    </div>
  );
}

/**
 * Collapsible markdown that first paints as plain text and is upgraded to markdown + KaTeX in a
 * transition right after. Selecting an agent then responds in one cheap commit even when its calls
 * hold many formulas; React can interrupt the upgrade if the user moves on.
 */
export function DeferredMarkdown({
  text,
  limit = COLLAPSE_AT,
}: {
  text: string;
  limit?: number;
}): JSX.Element {
  const [ready, setReady] = useState(false);
  useEffect(() => {
    startTransition(() => setReady(true));
  }, []);
  if (ready) return <CollapsibleMarkdown text={text} limit={limit} />;
  return <div className="md md-plain">{text.length > limit ? `${text.slice(0, limit)}…` : text}</div>;
}
