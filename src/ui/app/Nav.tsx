import type { JSX } from 'react';
import { useBaton } from '../../store/store.ts';
import { traceHash, type Route } from './route.ts';

interface Tab {
  page: Route['page'];
  label: string;
  href: string;
}

const selectLastOpened = (s: { lastOpenedId: string | null }): string | null => s.lastOpenedId;

export function Nav({ route }: { route: Route }): JSX.Element {
  const lastOpened = useBaton(selectLastOpened);
  const dismissImportReport = useBaton((s) => s.dismissImportReport);
  const dismissOpenError = useBaton((s) => s.dismissOpenError);
  // Moving to another page is the user moving on: old import reports and errors would only clutter it.
  const clearNotices = (): void => {
    dismissImportReport();
    dismissOpenError();
  };
  const tabs: Tab[] = [
    { page: 'gallery', label: 'Gallery', href: '#/' },
    { page: 'trace', label: 'Trace', href: lastOpened ? traceHash(lastOpened) : '#/trace' },
    { page: 'build', label: 'Build', href: '#/build' },
    { page: 'run', label: 'Run', href: '#/run' },
    { page: 'orchestrate', label: 'Orchestrate', href: '#/orchestrate' },
    { page: 'train', label: 'Train', href: '#/train' },
    { page: 'eval', label: 'Evaluate', href: '#/eval' },
    { page: 'settings', label: 'Settings', href: '#/settings' },
  ];
  return (
    <header className="topbar">
      <a className="brand" href="#/">
        <span className="brand-mark" aria-hidden="true">
          ◆
        </span>
        Baton
      </a>
      <nav className="tabs" aria-label="Pages">
        {tabs.map((t) => (
          <a
            key={t.page}
            className={route.page === t.page ? 'tab tab-active' : 'tab'}
            href={t.href}
            aria-current={route.page === t.page ? 'page' : undefined}
            data-testid={`nav-${t.page}`}
            onClick={clearNotices}
          >
            {t.label}
          </a>
        ))}
      </nav>
      <span className="topbar-note">Runs in your browser · nothing is uploaded</span>
    </header>
  );
}
