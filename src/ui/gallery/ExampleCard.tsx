import type { JSX } from 'react';
import type { Example } from '../../store/slices/library.ts';
import { CorrectnessBadge, Tag } from '../common/Badges.tsx';
import { agentCount } from '../common/format.ts';

/** One bundled example; a broken example file still gets a card, with its error. */
export function ExampleCard({
  example,
  onOpen,
}: {
  example: Example;
  onOpen: (example: Example) => void;
}): JSX.Element {
  const trace = example.trace.ok ? example.trace.value : null;
  return (
    <article className="card" data-testid="gallery-card" data-file={example.file}>
      <h3 className="card-title">
        {trace ? (
          <button
            type="button"
            className="linklike"
            onClick={() => onOpen(example)}
            data-testid="gallery-card-open"
          >
            {example.title}
          </button>
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
      {example.tags.length > 0 && (
        <div className="tags">
          {example.tags.map((t) => (
            <Tag key={t}>{t}</Tag>
          ))}
        </div>
      )}
    </article>
  );
}
