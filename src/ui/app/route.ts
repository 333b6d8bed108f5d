import { useMemo, useSyncExternalStore } from 'react';

/**
 * Hash routes. The hash keeps the app a static site (no server rewrites) and keeps share links
 * out of server logs: `#/` gallery, `#/trace/<id>`, `#t=<payload>` a share link, `#r=<payload>` a
 * shared training run (shown read-only), and one route per page.
 */

export type Route =
  | { page: 'gallery' }
  | { page: 'trace'; id: string | null }
  | { page: 'share'; input: string }
  | { page: 'build' }
  | { page: 'run' }
  | { page: 'eval' }
  | { page: 'settings' }
  | { page: 'train' }
  | { page: 'orchestrate' }
  | { page: 'trainrun'; input: string }
  | { page: 'evalshared'; input: string }
  | { page: 'unknown'; path: string };

export function parseHash(hash: string): Route {
  const h = hash.startsWith('#') ? hash.slice(1) : hash;
  if (h.startsWith('t=')) return { page: 'share', input: h };
  if (h.startsWith('r=')) return { page: 'trainrun', input: h };
  if (h.startsWith('e=')) return { page: 'evalshared', input: h };
  const path = h.replace(/^\/+/, '').replace(/\/+$/, '');
  if (path === '') return { page: 'gallery' };
  const [head, ...rest] = path.split('/');
  if (head === 'trace') {
    if (rest.length === 0) return { page: 'trace', id: null };
    try {
      return { page: 'trace', id: decodeURIComponent(rest.join('/')) };
    } catch {
      return { page: 'unknown', path };
    }
  }
  if (head === 'build' && rest.length === 0) return { page: 'build' };
  if (head === 'run' && rest.length === 0) return { page: 'run' };
  if (head === 'eval' && rest.length === 0) return { page: 'eval' };
  if (head === 'settings' && rest.length === 0) return { page: 'settings' };
  if (head === 'train' && rest.length === 0) return { page: 'train' };
  if (head === 'orchestrate' && rest.length === 0) return { page: 'orchestrate' };
  return { page: 'unknown', path };
}

export function traceHash(id: string): string {
  return `#/trace/${encodeURIComponent(id)}`;
}

/** `replaceState` fires no `hashchange`, so replacing navigations announce themselves. */
const NAVIGATE_EVENT = 'baton:navigate';

export function navigate(hash: string, options: { replace?: boolean } = {}): void {
  if (options.replace) {
    const url = `${location.pathname}${location.search}${hash}`;
    history.replaceState(history.state, '', url);
    window.dispatchEvent(new Event(NAVIGATE_EVENT));
  } else {
    location.hash = hash;
  }
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener('hashchange', onChange);
  window.addEventListener(NAVIGATE_EVENT, onChange);
  return () => {
    window.removeEventListener('hashchange', onChange);
    window.removeEventListener(NAVIGATE_EVENT, onChange);
  };
}

const currentHash = (): string => location.hash;

export function useRoute(): Route {
  const hash = useSyncExternalStore(subscribe, currentHash, () => '');
  return useMemo(() => parseHash(hash), [hash]);
}

/** Stable key per page, so a page's error boundary resets when the user goes elsewhere. */
export function routeKey(route: Route): string {
  switch (route.page) {
    case 'trace':
      return `trace:${route.id ?? ''}`;
    case 'share':
      return 'share';
    case 'trainrun':
      return 'trainrun';
    case 'evalshared':
      return 'evalshared';
    case 'unknown':
      return `unknown:${route.path}`;
    default:
      return route.page;
  }
}
