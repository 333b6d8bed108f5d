import type { JSX } from 'react';

/** Correct / wrong / unknown (no ground truth or not run), colour plus a word for colour-blind users. */
export function CorrectnessBadge({ correct }: { correct: boolean | null }): JSX.Element {
  if (correct === true) return <span className="badge badge-ok">correct</span>;
  if (correct === false) return <span className="badge badge-bad">wrong</span>;
  return <span className="badge badge-muted">not graded</span>;
}

export function Tag({ children }: { children: string }): JSX.Element {
  return <span className="tag">{children}</span>;
}
