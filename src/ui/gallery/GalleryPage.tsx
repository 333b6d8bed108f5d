import { useDeferredValue, useEffect, useMemo, useRef, useState, type JSX } from 'react';
import { exampleDoc, NO_FILTERS, type Example, type GalleryFilters } from '../../store/slices/library.ts';
import { useBaton } from '../../store/store.ts';
import { isEmptyQuery, matchesQuery, parseQuery } from '../../view/search.ts';
import { useFileImport } from '../app/useFileImport.ts';
import { ProblemAlert } from '../common/ProblemAlert.tsx';
import { EmptyState, Loading } from '../common/Status.tsx';
import { ExampleCard } from './ExampleCard.tsx';
import { RecentsSection, useShownRecents } from './RecentsSection.tsx';
import './gallery.css';

/** Examples, recent traces, search and import: where every visit starts. */
export function GalleryPage(): JSX.Element {
  const examples = useBaton((s) => s.examples);
  const loadExamples = useBaton((s) => s.loadExamples);
  const rememberTraces = useBaton((s) => s.rememberTraces);
  const importFiles = useFileImport();
  const fileInput = useRef<HTMLInputElement>(null);
  const [query, setQuery] = useState('');
  const [filters, setFilters] = useState<GalleryFilters>(NO_FILTERS);
  // Typing stays responsive: the list follows the text as soon as React has time.
  const deferredQuery = useDeferredValue(query);
  const parsed = useMemo(() => parseQuery(deferredQuery), [deferredQuery]);

  useEffect(() => {
    if (examples.status === 'idle') void loadExamples();
  }, [examples.status, loadExamples]);

  const shownExamples = useMemo(
    () =>
      examples.status === 'ready'
        ? isEmptyQuery(parsed)
          ? examples.value
          : examples.value.filter((e) => matchesQuery(parsed, exampleDoc(e)))
        : [],
    [examples, parsed],
  );
  const shownRecents = useShownRecents(parsed, filters);

  // The card's link navigates; this only records the example file as the trace's source.
  const openExample = (example: Example): void => {
    if (!example.trace.ok) return;
    const trace = example.trace.value;
    void rememberTraces([{ trace, source: 'example', sourceLabel: example.file }]);
  };

  const searching = !isEmptyQuery(parsed);
  const nothingFound =
    searching && shownRecents.length === 0 && (examples.status !== 'ready' || shownExamples.length === 0);

  return (
    <section className="page gallery">
      <div className="gallery-head">
        <div>
          <h1 className="page-title">Gallery</h1>
          <p className="muted">
            Inspect multi-agent traces: bundled examples, your recent traces, or files you import.
          </p>
        </div>
        <div className="gallery-tools">
          <input
            type="search"
            className="input gallery-search"
            placeholder='Search: words, "a phrase", file:, row:, step:, result:, type:, dom:'
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            data-testid="gallery-search"
            aria-label="Search traces"
          />
          <button type="button" className="btn btn-primary" onClick={() => fileInput.current?.click()}>
            Open file…
          </button>
          <input
            ref={fileInput}
            type="file"
            multiple
            accept=".json,.html,.txt,application/json"
            className="visually-hidden"
            data-testid="file-input"
            aria-label="Import trace files"
            onChange={(e) => {
              importFiles(Array.from(e.currentTarget.files ?? []));
              e.currentTarget.value = '';
            }}
          />
        </div>
      </div>
      <p className="drop-hint">
        Drop files anywhere on the page to import them: Baton traces (
        <span className="mono">baton.trace/1</span>), MAS-Orchestra case slides (many traces per file) or demo
        share snapshots.
      </p>

      {parsed.problems.length > 0 && (
        <p className="search-problems" role="status" data-testid="search-problems">
          Left out of the search: {parsed.problems.join('; ')}.
        </p>
      )}

      {nothingFound && (
        <EmptyState title={`Nothing matches “${query.trim()}”`}>
          <button type="button" className="btn btn-small" onClick={() => setQuery('')}>
            Clear the search
          </button>
        </EmptyState>
      )}

      <section className="gallery-section" aria-labelledby="examples-heading">
        <h2 id="examples-heading" className="section-title">
          Examples
          {examples.status === 'ready' && (
            <span className="count">
              {searching ? `${shownExamples.length} of ${examples.value.length}` : examples.value.length}
            </span>
          )}
        </h2>
        {examples.status === 'loading' || examples.status === 'idle' ? (
          <Loading>Loading examples…</Loading>
        ) : examples.status === 'error' ? (
          <div className="stack">
            <ProblemAlert title="The examples could not be loaded" problems={examples.problems} />
            <div>
              <button type="button" className="btn btn-small" onClick={() => void loadExamples()}>
                Retry
              </button>
            </div>
          </div>
        ) : examples.value.length === 0 ? (
          <EmptyState title="No bundled examples in this build" />
        ) : shownExamples.length > 0 ? (
          <div className="cards">
            {shownExamples.map((e) => (
              <ExampleCard key={e.file} example={e} onOpen={openExample} />
            ))}
          </div>
        ) : (
          !nothingFound && <p className="muted">No example matches the search.</p>
        )}
      </section>

      <RecentsSection
        query={parsed}
        queryKey={deferredQuery}
        shown={shownRecents}
        filters={filters}
        setFilters={setFilters}
      />
    </section>
  );
}
