import { useState, type JSX, type ReactNode } from 'react';

/**
 * A `<details>` whose content is rendered only once opened: closed sections of a long trace
 * (messages, referenced outputs, thinking) then cost nothing — markdown and KaTeX are not cheap.
 */
export function Disclosure({
  summary,
  children,
  className,
  testId,
}: {
  summary: ReactNode;
  children: ReactNode;
  className?: string;
  testId?: string;
}): JSX.Element {
  const [open, setOpen] = useState(false);
  return (
    <details className={className} data-testid={testId} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>{summary}</summary>
      {open && children}
    </details>
  );
}
