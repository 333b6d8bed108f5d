import { Suspense } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { prerender } from 'react-dom/static';
import { describe, expect, it } from 'vitest';
import { ErrorBoundary } from './ErrorBoundary.tsx';
import { ChunkLoadError, isChunkLoadError, lazyComponent } from './lazy.ts';

/** What the browser throws when a chunk's file is gone after a redeploy. */
const FETCH_FAILED = new TypeError(
  'Failed to fetch dynamically imported module: https://baton.example/assets/TraceRoute-old.js',
);

/** Renders `ErrorBoundary` as it shows after catching `error`. */
function boundaryShowing(error: unknown): string {
  const boundary = new ErrorBoundary({ what: 'The trace view', children: null });
  boundary.state = ErrorBoundary.getDerivedStateFromError(error);
  return renderToStaticMarkup(<>{boundary.render()}</>);
}

describe('lazy pages', () => {
  it('render the loaded component', async () => {
    const Page = lazyComponent(() => Promise.resolve(({ name }: { name: string }) => <p>hello {name}</p>));
    const { prelude } = await prerender(
      <Suspense fallback="loading">
        <Page name="Ada" />
      </Suspense>,
    );
    expect(await new Response(prelude).text()).toContain('<p>hello <!-- -->Ada</p>');
  });

  it('turn a failed download into a ChunkLoadError that keeps the cause', async () => {
    const Page = lazyComponent<object>(() => Promise.reject(FETCH_FAILED));
    const errors: unknown[] = [];
    await prerender(
      <Suspense fallback="loading">
        <Page />
      </Suspense>,
      { onError: (e) => void errors.push(e) },
    );
    expect(errors).toHaveLength(1);
    expect(isChunkLoadError(errors[0])).toBe(true);
    expect((errors[0] as Error).message).toBe(FETCH_FAILED.message);
    expect((errors[0] as Error).cause).toBe(FETCH_FAILED);
  });
});

describe('ErrorBoundary', () => {
  it('offers a reload, not a retry, when a page could not be downloaded', () => {
    const out = boundaryShowing(new ChunkLoadError(FETCH_FAILED));
    expect(out).toContain('role="alert"');
    expect(out).toContain('The trace view could not be loaded.');
    expect(out).toContain('>Reload</button>');
    expect(out).not.toContain('Try again');
    expect(out).toContain('TraceRoute-old.js');
  });

  it('offers a retry for a render error', () => {
    const out = boundaryShowing(new Error('boom'));
    expect(out).toContain('The trace view failed to render.');
    expect(out).toContain('>Try again</button>');
    expect(out).not.toContain('Reload');
  });
});
