import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

/**
 * A code-split module that did not arrive: the network dropped, or the app was redeployed since
 * this tab opened and the old chunk's hashed file is gone. React.lazy remembers the failed load, so
 * only a reload helps; `ErrorBoundary` says so and offers one.
 */
export class ChunkLoadError extends Error {
  override name = 'ChunkLoadError';
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

export function isChunkLoadError(error: unknown): boolean {
  return error instanceof ChunkLoadError;
}

/**
 * React.lazy for a named export: `lazyComponent(() => import('./Page.tsx').then((m) => m.Page))`.
 * A failed import becomes a `ChunkLoadError`, which `ErrorBoundary` shows with a reload button.
 */
export function lazyComponent<P extends object>(
  load: () => Promise<ComponentType<P>>,
): LazyExoticComponent<ComponentType<P>> {
  return lazy(() =>
    load().then(
      (component) => ({ default: component }),
      (error: unknown) => {
        throw new ChunkLoadError(error);
      },
    ),
  );
}
