import { useEffect, useMemo, useRef, useState, type JSX } from 'react';
import { exampleMatches, recentMatches, type Example } from '../../store/slices/library.ts';
import { useBaton } from '../../store/store.ts';
import { useFileImport } from '../app/useFileImport.ts';
import { plural } from '../common/format.ts';
import { ProblemAlert } from '../common/ProblemAlert.tsx';
import { EmptyState, Loading } from '../common/Status.tsx';
import { ExampleCard } from './ExampleCard.tsx';
import { RecentsList } from './RecentsList.tsx';
import './gallery.css';

/** Recent traces listed before "Show all"; a search always shows every match. */
const RECENTS_SHOWN = 25;

/** Examples, recent traces, search and import: where every visit starts. */
export function GalleryPage(): JSX.Element {
  const examples = useBaton((s) => s.examples);
  const recents = useBaton((s) => s.recents);
  const libraryReady = useBaton((s) => s.libraryReady);
  const storageProblem = useBaton((s) => s.storageProblem);
  const loadExamples = useBaton((s) => s.loadExamples);
  const rememberTraces = useBaton((s) => s.rememberTraces);
  const removeRecent = useBaton((s) => s.removeRecent);
  const clearRecents = useBaton((s) => s.clearRecents);
  const importFiles = useFileImport();
  const fileInput = useRef<HTMLInputElement>(null);
  const [query, setQuery] = useState('');
  const [confirmClear, setConfirmClear] = useState(false);
  const [showAll, setShowAll] = useState(false);

  useEffect(() => {
    if (examples.status === 'idle') void loadExamples();
  }, [examples.status, loadExamples]);

  const shownExamples = useMemo(
    () => (examples.status === 'ready' ? examples.value.filter((e) => exampleMatches(e, query)) : []),
    [examples, query],
  );
  const shownRecents = useMemo(() => recents.filter((e) => recentMatches(e, query)), [recents, query]);

  // The card's link navigates; this only records the example file as the trace's source.
  const openExample = (example: Example): void => {
    if (!example.trace.ok) return;
    const trace = example.trace.value;
    void rememberTraces([{ trace, source: 'example', sourceLabel: example.file }]);
  };

  const searching = query.trim() !== '';
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
            placeholder="Search titles, questions, files, tags"
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

      <section className="gallery-section" aria-labelledby="recents-heading">
        <h2 id="recents-heading" className="section-title">
          Recent traces
          {recents.length > 0 && (
            <span className="count">
              {searching ? `${shownRecents.length} of ${recents.length}` : recents.length}
            </span>
          )}
          {recents.length > 0 &&
            (confirmClear ? (
              <span className="section-action">
                <span className="muted">
                  Remove all {plural(recents.length, 'recent trace')} from this browser?
                </span>{' '}
                <button
                  type="button"
                  className="btn btn-danger btn-small"
                  onClick={() => {
                    setConfirmClear(false);
                    void clearRecents();
                  }}
                  data-testid="recents-clear-confirm"
                >
                  Remove all
                </button>{' '}
                <button
                  type="button"
                  className="btn btn-ghost btn-small"
                  onClick={() => setConfirmClear(false)}
                >
                  Cancel
                </button>
              </span>
            ) : (
              <button
                type="button"
                className="btn btn-ghost btn-small section-action"
                onClick={() => setConfirmClear(true)}
                data-testid="recents-clear"
              >
                Clear all
              </button>
            ))}
        </h2>
        {storageProblem && (
          <ProblemAlert title="Recent traces are not being saved" problems={[storageProblem]} />
        )}
        {!libraryReady ? (
          <Loading>Loading recent traces…</Loading>
        ) : recents.length === 0 ? (
          <EmptyState title="No recent traces yet">
            <p>Traces you open, import or receive as links are listed here and kept in this browser.</p>
          </EmptyState>
        ) : shownRecents.length > 0 ? (
          <>
            <RecentsList
              entries={showAll || searching ? shownRecents : shownRecents.slice(0, RECENTS_SHOWN)}
              onRemove={(id) => void removeRecent(id)}
            />
            {!showAll && !searching && shownRecents.length > RECENTS_SHOWN && (
              <div>
                <button
                  type="button"
                  className="btn btn-small"
                  onClick={() => setShowAll(true)}
                  data-testid="recents-show-all"
                >
                  Show all {shownRecents.length}
                </button>
              </div>
            )}
          </>
        ) : (
          !nothingFound && <p className="muted">No recent trace matches the search.</p>
        )}
      </section>
    </section>
  );
}
