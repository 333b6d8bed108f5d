import type { JSX, MouseEvent } from 'react';
import type { Example } from '../../store/slices/library.ts';
import { traceHash } from '../app/route.ts';
import { CorrectnessBadge, Tag } from '../common/Badges.tsx';
import { agentCount } from '../common/format.ts';
import { tagsBesideBadge } from './result-tags.ts';

/** A plain click (not one that opens a new tab or window) also remembers where the trace came from. */
const plainClick = (e: MouseEvent): boolean =>
  e.button === 0 && !e.metaKey && !e.ctrlKey && !e.shiftKey && !e.altKey;

/**
 * One bundled example, as a link to its trace (`#/trace/<id>`), so it opens in a new tab like any
 * link; a broken example file still gets a card, with its error.
 */
export function ExampleCard({
  example,
  onOpen,
}: {
  example: Example;
  onOpen: (example: Example) => void;
}): JSX.Element {
  const trace = example.trace.ok ? example.trace.value : null;
  // The result is the badge; a "correct" tag would say it twice.
  const tags = trace ? tagsBesideBadge(example.tags) : example.tags;
  return (
    <article className="card" data-testid="gallery-card" data-file={example.file}>
      <h3 className="card-title">
        {trace ? (
          <a
            href={traceHash(trace.id)}
            className="card-link"
            onClick={(e) => {
              if (plainClick(e)) onOpen(example);
            }}
            data-testid="gallery-card-open"
          >
            {example.title}
          </a>
        ) : (
          example.title
        )}
      </h3>
      <p className="card-summary" title={example.summary}>
        {example.summary}
      </p>
      <div className="card-meta">
        {trace ? (
          <>
            <span data-testid="gallery-card-agents">{agentCount(trace.design.agents)}</span>
            <CorrectnessBadge correct={trace.result.correct} />
          </>
        ) : null}
      </div>
      {!example.trace.ok && (
        <p className="card-error" role="alert">
          {example.trace.errors.map((p) => p.message).join('; ')}
        </p>
      )}
      {tags.length > 0 && (
        <div className="tags">
          {tags.map((t) => (
            <Tag key={t}>{t}</Tag>
          ))}
        </div>
      )}
    </article>
  );
}
