import { Suspense, useEffect, type JSX } from 'react';
import { useBaton } from '../store/store.ts';
import { DropOverlay } from './app/DropOverlay.tsx';
import { ImportReportPanel } from './app/ImportReportPanel.tsx';
import { Nav } from './app/Nav.tsx';
import { navigate, routeKey, traceHash, useRoute, type Route } from './app/route.ts';
import { useFileImport } from './app/useFileImport.ts';
import { ErrorBoundary } from './common/ErrorBoundary.tsx';
import { lazyComponent } from './common/lazy.ts';
import { PageLoading } from './common/PageLoading.tsx';
import { ProblemAlert } from './common/ProblemAlert.tsx';
import { EmptyState, Loading } from './common/Status.tsx';
import { GalleryPage } from './gallery/GalleryPage.tsx';
import './app/app.css';

// The gallery is the first page of every visit and stays in the entry chunk; the other pages, and
// the libraries only they use (React Flow, markdown + KaTeX, the share codec), download when first
// opened. `scripts/check-size.mjs` holds the entry to its budget and names these chunks.
// The trace page renders LLM text at once (task panel, inspector), so its route downloads the
// markdown renderer alongside its own chunk instead of after its first render.
const TraceRoute = lazyComponent(() =>
  Promise.all([
    import('./app/TraceRoute.tsx'),
    import('./markdown/Markdown.tsx').then((m) => m.loadMarkdown()),
  ]).then(([m]) => m.TraceRoute),
);
const BuildPage = lazyComponent(() => import('./construction/BuildPage.tsx').then((m) => m.BuildPage));
const RunPage = lazyComponent(() => import('./run/RunPage.tsx').then((m) => m.RunPage));
const EvalPage = lazyComponent(() => import('./eval/EvalPage.tsx').then((m) => m.EvalPage));
const EvalShared = lazyComponent(() => import('./eval/EvalShared.tsx').then((m) => m.EvalShared));
const SettingsPage = lazyComponent(() => import('./settings/SettingsPage.tsx').then((m) => m.SettingsPage));
// uPlot comes with the Train page's chunk only.
const TrainPage = lazyComponent(() => import('./train/TrainPage.tsx').then((m) => m.TrainPage));
const SharedRunPage = lazyComponent(() => import('./train/SharedRunPage.tsx').then((m) => m.SharedRunPage));
// The in-tab orchestrator's page; the model runtime itself loads in its worker, never in a page chunk.
const OrchestratePage = lazyComponent(() =>
  import('./orchestrate/OrchestratePage.tsx').then((m) => m.OrchestratePage),
);

/** `?src=` is read once per page load, even when React runs effects twice in development. */
let srcHandled = false;

function useStartup(): void {
  const initLibrary = useBaton((s) => s.initLibrary);
  const importFromUrl = useBaton((s) => s.importFromUrl);
  const initRun = useBaton((s) => s.initRun);
  useEffect(() => {
    void initLibrary();
    // A run this tab had going before a reload is marked interrupted, whichever page the reload shows.
    void initRun();
    if (srcHandled) return;
    srcHandled = true;
    const src = new URLSearchParams(location.search).get('src');
    // With a route already in the hash (a reload, a copied `?src=…#/trace/<id>`), the route wins;
    // the trace route itself falls back to `src` when the trace is not stored here.
    const hash = location.hash.replace(/^#\/?/, '');
    if (src && hash === '') {
      void importFromUrl(src).then((id) => {
        if (id) navigate(traceHash(id), { replace: true });
      });
    }
  }, [initLibrary, importFromUrl, initRun]);
}

/** `#t=…`: decode, open, and show the trace at its own route (replacing the link in history). */
function useShareLinks(route: Route): void {
  const openShareLink = useBaton((s) => s.openShareLink);
  useEffect(() => {
    if (route.page !== 'share') return;
    const id = openShareLink(route.input);
    navigate(id ? traceHash(id) : '#/', { replace: true });
  }, [route, openShareLink]);
}

const PAGE_NAMES: Record<Route['page'], string> = {
  gallery: 'The gallery',
  trace: 'The trace view',
  share: 'The share link',
  build: 'Build',
  run: 'Run',
  train: 'Train',
  trainrun: 'The shared training run',
  eval: 'Evaluate',
  evalshared: 'The shared evaluation',
  settings: 'Settings',
  orchestrate: 'Orchestrate',
  unknown: 'This page',
};

/** "The trace view" → "the trace view", "Build" → "the Build page": what "Loading …" names. */
const loadingName = (name: string): string =>
  name.startsWith('The ') ? `the ${name.slice(4)}` : `the ${name} page`;

function Page({ route }: { route: Route }): JSX.Element {
  switch (route.page) {
    case 'gallery':
      return <GalleryPage />;
    case 'trace':
      return <TraceRoute id={route.id} />;
    case 'share':
      return (
        <section className="page page-narrow">
          <Loading>Opening the shared trace…</Loading>
        </section>
      );
    case 'build':
      return <BuildPage />;
    case 'run':
      return <RunPage />;
    case 'train':
      return <TrainPage />;
    case 'trainrun':
      return <SharedRunPage input={route.input} />;
    case 'eval':
      return <EvalPage />;
    case 'evalshared':
      return <EvalShared input={route.input} />;
    case 'settings':
      return <SettingsPage />;
    case 'orchestrate':
      return <OrchestratePage />;
    case 'unknown':
      return (
        <section className="page page-narrow">
          <EmptyState title="There is no such page">
            <p>
              <span className="mono">#/{route.path}</span> is not an address Baton knows. Go to the{' '}
              <a href="#/">gallery</a>.
            </p>
          </EmptyState>
        </section>
      );
  }
}

function OpenErrorBanner(): JSX.Element | null {
  const openError = useBaton((s) => s.openError);
  const dismiss = useBaton((s) => s.dismissOpenError);
  if (!openError) return null;
  return (
    <ProblemAlert
      title={openError.title}
      problems={openError.problems}
      onDismiss={dismiss}
      testId="open-error"
    />
  );
}

function ImportingBanner(): JSX.Element | null {
  const importing = useBaton((s) => s.importing);
  if (!importing) return null;
  return <Loading>Importing {importing.label}…</Loading>;
}

export function App(): JSX.Element {
  const route = useRoute();
  const importFiles = useFileImport();
  useStartup();
  useShareLinks(route);
  return (
    <div className="app">
      <Nav route={route} />
      <div className="notices">
        <OpenErrorBanner />
        <ImportingBanner />
        <ImportReportPanel />
      </div>
      <main className="main">
        <ErrorBoundary key={routeKey(route)} what={PAGE_NAMES[route.page]}>
          <Suspense fallback={<PageLoading what={loadingName(PAGE_NAMES[route.page])} />}>
            <Page route={route} />
          </Suspense>
        </ErrorBoundary>
      </main>
      <DropOverlay onFiles={importFiles} />
    </div>
  );
}
