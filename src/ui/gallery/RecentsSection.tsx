import { useMemo, useState, type JSX } from 'react';
import {
  facetsOf,
  galleryRows,
  groupRecents,
  NO_FILTERS,
  passesFilters,
  QUOTA_SHARE,
  searchRecents,
  type GalleryFilters,
  type RecentEntry,
} from '../../store/slices/library.ts';
import { useBaton } from '../../store/store.ts';
import { isEmptyQuery, RESULTS, type ParsedQuery } from '../../view/search.ts';
import { plural } from '../common/format.ts';
import { ProblemAlert } from '../common/ProblemAlert.tsx';
import { EmptyState, Loading } from '../common/Status.tsx';
import { RecentsList } from './RecentsList.tsx';

function bytes(n: number): string {
  if (n < 1024 * 1024) return `${Math.max(1, Math.round(n / 1024))} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(1)} GB`;
}

/** The entries the search and the filters keep, in list order. */
export function useShownRecents(query: ParsedQuery, filters: GalleryFilters): readonly RecentEntry[] {
  const recents = useBaton((s) => s.recents);
  return useMemo(() => {
    const found = isEmptyQuery(query) ? recents : searchRecents(recents, query);
    return Object.values(filters).every((v) => v === null)
      ? found
      : found.filter((e) => passesFilters(e, filters));
  }, [recents, query, filters]);
}

/** The recent traces, grouped into collections, with the filters, the storage note and notices. */
export function RecentsSection({
  query,
  queryKey,
  shown,
  filters,
  setFilters,
}: {
  query: ParsedQuery;
  /** The raw search text: a new one scrolls the list back to the top. */
  queryKey: string;
  shown: readonly RecentEntry[];
  filters: GalleryFilters;
  setFilters: (update: (f: GalleryFilters) => GalleryFilters) => void;
}): JSX.Element {
  const recents = useBaton((s) => s.recents);
  const libraryReady = useBaton((s) => s.libraryReady);
  const storageProblem = useBaton((s) => s.storageProblem);
  const storageUse = useBaton((s) => s.storageUse);
  const eviction = useBaton((s) => s.evictionNotice);
  const dismissEviction = useBaton((s) => s.dismissEvictionNotice);
  const removeRecent = useBaton((s) => s.removeRecent);
  const removeRecents = useBaton((s) => s.removeRecents);
  const clearRecents = useBaton((s) => s.clearRecents);
  const [confirmClear, setConfirmClear] = useState(false);
  const [folded, setFolded] = useState<ReadonlySet<string>>(new Set());

  const facets = useMemo(() => facetsOf(recents), [recents]);
  const groups = useMemo(() => groupRecents(recents, shown), [recents, shown]);
  const rows = useMemo(() => galleryRows(groups, folded), [groups, folded]);

  const filtered = Object.values(filters).some((v) => v !== null);
  const narrowed = !isEmptyQuery(query) || filtered;
  const setFilter = <K extends keyof GalleryFilters>(key: K, value: GalleryFilters[K]): void =>
    setFilters((f) => ({ ...f, [key]: value }));
  const toggle = (key: string): void =>
    setFolded((f) => {
      const next = new Set(f);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });

  return (
    <section className="gallery-section" aria-labelledby="recents-heading">
      <h2 id="recents-heading" className="section-title">
        Recent traces
        {recents.length > 0 && (
          <span className="count" data-testid="recents-count" data-count={shown.length}>
            {narrowed
              ? `${shown.length.toLocaleString()} of ${recents.length.toLocaleString()}`
              : recents.length.toLocaleString()}
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
      <p className="muted storage-note" data-testid="storage-note">
        Every trace you open, import or receive is kept in this browser
        {storageUse
          ? ` (${bytes(storageUse.usage)} of the ${bytes(storageUse.quota)} it allows this page).`
          : '.'}{' '}
        Traces leave only when you remove them
        {storageUse
          ? `, or when storage would pass ${Math.round(QUOTA_SHARE * 100)}% of that quota: then the least recently opened are removed, and listed here`
          : ''}
        .
      </p>
      {eviction && (
        <div className="alert alert-warn" role="alert" data-testid="eviction-notice">
          <p>
            <strong>
              {plural(eviction.count, 'trace')} removed to stay under {Math.round(QUOTA_SHARE * 100)}% of this
              browser’s storage quota
            </strong>{' '}
            ({bytes(eviction.use.usage)} of {bytes(eviction.use.quota)} used). The least recently opened went
            first:
          </p>
          <ul>
            {eviction.titles.map((t, i) => (
              <li key={i}>{t}</li>
            ))}
            {eviction.count > eviction.titles.length && (
              <li>… and {eviction.count - eviction.titles.length} more</li>
            )}
          </ul>
          <button type="button" className="btn btn-small" onClick={dismissEviction}>
            Dismiss
          </button>
        </div>
      )}
      {storageProblem && (
        <ProblemAlert title="Recent traces are not being saved" problems={[storageProblem]} />
      )}
      {recents.length > 0 && (
        <div className="gallery-filters" data-testid="gallery-filters">
          <label>
            File{' '}
            <select
              className="input"
              value={filters.collection ?? ''}
              onChange={(e) => setFilter('collection', e.target.value || null)}
              data-testid="filter-file"
            >
              <option value="">all</option>
              {facets.collections.map((c) => (
                <option key={c.key} value={c.key}>
                  {c.label} ({c.count.toLocaleString()})
                </option>
              ))}
            </select>
          </label>
          <label>
            Result{' '}
            <select
              className="input"
              value={filters.result ?? ''}
              onChange={(e) =>
                setFilter(
                  'result',
                  (RESULTS as readonly string[]).includes(e.target.value)
                    ? (e.target.value as GalleryFilters['result'])
                    : null,
                )
              }
              data-testid="filter-result"
            >
              <option value="">all</option>
              {RESULTS.map((r) => (
                <option key={r} value={r}>
                  {r === 'unknown' ? 'not graded' : r}
                </option>
              ))}
            </select>
          </label>
          <label>
            Agent type{' '}
            <select
              className="input"
              value={filters.type ?? ''}
              onChange={(e) => setFilter('type', e.target.value || null)}
              data-testid="filter-type"
            >
              <option value="">all</option>
              {facets.types.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </label>
          <label>
            Degree of MAS{' '}
            <select
              className="input"
              value={filters.dom ?? ''}
              onChange={(e) =>
                setFilter(
                  'dom',
                  e.target.value === 'low' || e.target.value === 'high' ? e.target.value : null,
                )
              }
              data-testid="filter-dom"
            >
              <option value="">all</option>
              {facets.doms.map((d) => (
                <option key={d} value={d}>
                  {d}
                </option>
              ))}
            </select>
          </label>
          {filtered && (
            <button
              type="button"
              className="btn btn-ghost btn-small"
              onClick={() => setFilters(() => NO_FILTERS)}
            >
              Clear filters
            </button>
          )}
        </div>
      )}
      {!libraryReady ? (
        <Loading>Loading recent traces…</Loading>
      ) : recents.length === 0 ? (
        <EmptyState title="No recent traces yet">
          <p>Traces you open, import or receive as links are listed here and kept in this browser.</p>
        </EmptyState>
      ) : rows.length > 0 ? (
        <RecentsList
          rows={rows}
          total={shown.length}
          resetKey={`${queryKey}|${JSON.stringify(filters)}`}
          onToggle={toggle}
          onRemove={(id) => void removeRecent(id)}
          onRemoveMany={(ids) => void removeRecents(ids)}
        />
      ) : (
        <p className="muted">No recent trace matches the search{filtered ? ' and filters' : ''}.</p>
      )}
    </section>
  );
}
