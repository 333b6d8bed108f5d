import 'katex/dist/katex.min.css';
import { memo, startTransition, useEffect, useState, type JSX } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import rehypeKatex from 'rehype-katex';
import remarkMath from 'remark-math';
import { KATEX_OPTIONS, remarkHtmlAsText, safeUrl } from './safety.ts';
import './markdown.css';

const remarkPlugins = [remarkMath, remarkHtmlAsText];
const rehypePlugins: [typeof rehypeKatex, typeof KATEX_OPTIONS][] = [[rehypeKatex, KATEX_OPTIONS]];

const components: Components = {
  a({ href, children }) {
    const url = href ? safeUrl(href) : '';
    if (!url) return <span className="md-inert-link">{children}</span>;
    return (
      <a href={url} target="_blank" rel="noopener noreferrer nofollow">
        {children}
      </a>
    );
  },
  // Images would fetch from wherever the trace says (a tracking pixel); show the alt text instead.
  img({ alt, src }) {
    return (
      <span className="md-image-placeholder" title={src ? safeUrl(src) || undefined : undefined}>
        [image: {alt || 'no description'}]
      </span>
    );
  },
};

export interface MarkdownProps {
  text: string;
  className?: string;
}

/** Markdown with math for untrusted text: no raw HTML, safe links, no images fetched. */
export const Markdown = memo(function Markdown({ text, className }: MarkdownProps): JSX.Element {
  return (
    <div className={className ? `md ${className}` : 'md'}>
      <ReactMarkdown
        remarkPlugins={remarkPlugins}
        rehypePlugins={rehypePlugins}
        components={components}
        urlTransform={safeUrl}
      >
        {text}
      </ReactMarkdown>
    </div>
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
