import type { JSX } from 'react';
import type { Problem } from '../../core/result.ts';

/** An error with the problems' messages, rendered as text (messages may quote untrusted input). */
export function ProblemAlert({
  title,
  problems,
  onDismiss,
  testId,
}: {
  title: string;
  problems: readonly Problem[];
  onDismiss?: () => void;
  testId?: string;
}): JSX.Element {
  return (
    <div className="alert alert-error" role="alert" data-testid={testId}>
      <div className="alert-body">
        <strong>{title}</strong>
        {problems.length === 1 ? (
          <p>{problems[0]?.message}</p>
        ) : (
          <ul>
            {problems.map((p, i) => (
              <li key={i}>{p.message}</li>
            ))}
          </ul>
        )}
      </div>
      {onDismiss && (
        <button type="button" className="btn btn-ghost btn-small" onClick={onDismiss} aria-label="Dismiss">
          Dismiss
        </button>
      )}
    </div>
  );
}
