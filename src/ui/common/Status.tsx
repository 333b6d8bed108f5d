import type { JSX, ReactNode } from 'react';

export function Loading({ children }: { children: ReactNode }): JSX.Element {
  return (
    <div className="loading" role="status">
      <span className="spinner" aria-hidden="true" />
      <span>{children}</span>
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }): JSX.Element {
  return (
    <div className="empty">
      <strong>{title}</strong>
      {children && <div className="empty-body">{children}</div>}
    </div>
  );
}
