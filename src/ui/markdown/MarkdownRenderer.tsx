import 'katex/dist/katex.min.css';
import type { JSX } from 'react';
import ReactMarkdown, { type Components, type Options } from 'react-markdown';
import rehypeKatex from 'rehype-katex';
import remarkMath from 'remark-math';
import { normalizeMath } from './latex.ts';
import { rehypeMathPunctuation } from './punctuation.ts';
import { KATEX_OPTIONS, remarkHtmlAsText, safeUrl } from './safety.ts';

const remarkPlugins = [remarkMath, remarkHtmlAsText];
const rehypePlugins: Options['rehypePlugins'] = [[rehypeKatex, KATEX_OPTIONS], rehypeMathPunctuation];

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

/**
 * Markdown with math for untrusted text: no raw HTML, safe links, no images fetched. Maths in
 * every delimiter model outputs use (`$…$`, `$$…$$`, `\(…\)`, `\[…\]`, a bare `\boxed{…}`) is
 * rendered (`latex.ts`), and punctuation after inline maths stays on its line (`punctuation.ts`). This module
 * holds react-markdown, remark, rehype and KaTeX with its stylesheet, the heaviest code of the
 * trace page: `Markdown.tsx` loads it on first use, so pages without LLM text never download it.
 */
export function MarkdownRenderer({ text, className }: MarkdownProps): JSX.Element {
  return (
    <div className={className ? `md ${className}` : 'md'}>
      <ReactMarkdown
        remarkPlugins={remarkPlugins}
        rehypePlugins={rehypePlugins}
        components={components}
        urlTransform={safeUrl}
      >
        {normalizeMath(text)}
      </ReactMarkdown>
    </div>
  );
}
