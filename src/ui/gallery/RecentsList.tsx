import { useEffect, useRef, useState, type JSX } from 'react';
import {
  galleryRows,
  groupRecents,
  shownTitle,
  type Collection,
  type GalleryRow,
  type RecentEntry,
} from '../../store/slices/library.ts';
import { traceHash } from '../app/route.ts';
import { CorrectnessBadge } from '../common/Badges.tsx';
import { agentCountOf, formatDate, formatTokens, NOT_RECORDED, plural } from '../common/format.ts';

/**
 * The recent traces as one virtualised list: a header row per collection (an imported file, or
 * how the traces came), then its traces. Rows have one fixed height, so only the rows in view
 * (and `OVERSCAN` either side) are in the DOM, whether the list holds 20 traces or 5,000.
 */

/** Height of every row, px (the CSS grid rows use the same). */
export const ROW_HEIGHT = 40;
/** Rows drawn above and below the visible ones. */
const OVERSCAN = 12;
/** Tallest the list's own scroll area grows, px. */
const MAX_HEIGHT = 640;

/**
 * The trace's own date. Imported traces whose source gives none carry the epoch (or nothing);
 * "1970" would be wrong, so they say so.
 */
export function traceDate(iso: string | undefined): string {
  const t = iso === undefined || iso.trim() === '' ? Number.NaN : Date.parse(iso);
  return Number.isNaN(t) || t === 0 ? 'date unknown' : formatDate(iso as string);
}

/** What the time in the list is: when the trace came into this browser, by how it came. */
const ADDED: Record<RecentEntry['source'], string> = {
  example: 'opened',
  file: 'imported',
  link: 'received',
  url: 'fetched',
  app: 'saved',
};

/** The rows between `first` and `last` (inclusive) that a scroll position shows, with overscan. */
export function visibleRange(
  scrollTop: number,
  viewport: number,
  count: number,
  overscan = OVERSCAN,
): { first: number; last: number } {
  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - overscan);
  const last = Math.min(count - 1, Math.ceil((scrollTop + viewport) / ROW_HEIGHT) + overscan);
  return { first, last };
}

/** Splits a list title into the cut question and what tells it apart (" · aime24 · row 3 · step 130"). */
function titleParts(e: RecentEntry): [string, string] {
  const title = shownTitle(e.title, e.query) || e.id;
  const at = title.indexOf(' · ');
  return at > 0 ? [title.slice(0, at), title.slice(at)] : [title, ''];
}

const percent = (x: number): string => `${Math.round(x * 100)}%`;

function CollectionHeader({
  c,
  open,
  onToggle,
  onRemove,
}: {
  c: Collection;
  open: boolean;
  onToggle: () => void;
  onRemove: () => void;
}): JSX.Element {
  const [confirm, setConfirm] = useState(false);
  const graded = c.counts.correct + c.counts.wrong + c.counts.failed;
  const shown = c.entries.length;
  return (
    <div className="recents-row recents-collection" role="row" data-testid="collection" data-key={c.key}>
      <button
        type="button"
        className="btn btn-ghost btn-small collection-toggle"
        aria-expanded={open}
        onClick={onToggle}
        title={c.key}
      >
        <span aria-hidden="true">{open ? '▾' : '▸'}</span>{' '}
        <span className="collection-label" data-testid="collection-label">
          {c.label}
        </span>
      </button>
      <span className="collection-count" data-testid="collection-count" data-count={c.total}>
        {shown === c.total
          ? plural(c.total, 'trace')
          : `${shown.toLocaleString()} of ${plural(c.total, 'trace')}`}
      </span>
      <span className="collection-stat" data-testid="collection-accuracy">
        {c.accuracy === null
          ? 'not graded'
          : `${percent(c.accuracy)} correct (${c.counts.correct} of ${graded})`}
        {c.counts.failed > 0 ? ` · ${c.counts.failed} failed` : ''}
      </span>
      <span
        className="collection-stat"
        data-testid="collection-tokens"
        title={
          c.tokensNotRecorded > 0 && c.tokens !== null
            ? `${c.tokensNotRecorded} of these traces recorded no tokens`
            : undefined
        }
      >
        {c.tokens === null ? `tokens ${NOT_RECORDED}` : `${formatTokens(c.tokens)} tok`}
        {c.tokens !== null && c.tokensNotRecorded > 0 ? ` (+${c.tokensNotRecorded} ${NOT_RECORDED})` : ''}
      </span>
      <span className="actions">
        {confirm ? (
          <>
            <button
              type="button"
              className="btn btn-danger btn-small"
              onClick={() => {
                setConfirm(false);
                onRemove();
              }}
              data-testid="collection-remove-confirm"
            >
              Remove {plural(shown, 'trace')}
            </button>
            <button type="button" className="btn btn-ghost btn-small" onClick={() => setConfirm(false)}>
              Cancel
            </button>
          </>
        ) : (
          <button
            type="button"
            className="btn btn-ghost btn-small"
            onClick={() => setConfirm(true)}
            data-testid="collection-remove"
            aria-label={`Remove the ${plural(shown, 'trace')} of ${c.label} shown here`}
          >
            Remove…
          </button>
        )}
      </span>
    </div>
  );
}

function TraceRow({ e, onRemove }: { e: RecentEntry; onRemove: (id: string) => void }): JSX.Element {
  const [title, detail] = titleParts(e);
  return (
    <div className="recents-row recents-trace" role="row" data-testid="recent-item" data-id={e.id}>
      <span className="recents-title" role="cell">
        <a href={traceHash(e.id)} title={e.title}>
          <span className="recents-question">{title}</span>
          {detail && <span className="recents-detail">{detail}</span>}
        </a>
      </span>
      <span className="num" role="cell">
        {agentCountOf(e.agentCount, e.agentTypes.includes('SummarizerAgent') ? 1 : 0)}
      </span>
      <span role="cell">
        {e.result === 'failed' ? (
          <span className="badge badge-warn">failed</span>
        ) : (
          <CorrectnessBadge correct={e.correct} />
        )}
      </span>
      <span className="muted num" role="cell" data-testid="recent-tokens">
        {typeof e.tokens === 'number' ? `${formatTokens(e.tokens)} tok` : NOT_RECORDED}
      </span>
      <span className="muted nowrap" role="cell" data-testid="recent-added">
        {ADDED[e.source]} {formatDate(e.openedAt)}
      </span>
      <span className="muted nowrap" role="cell" data-testid="recent-date">
        {traceDate(e.createdAt)}
      </span>
      <span className="actions" role="cell">
        <button
          type="button"
          className="btn btn-ghost btn-small"
          onClick={() => onRemove(e.id)}
          aria-label={`Remove ${e.title} from recent traces`}
          data-testid="recent-remove"
        >
          Remove
        </button>
      </span>
    </div>
  );
}

/** Every entry in its collection, none folded: the rows of a plain list. */
export function listRows(entries: readonly RecentEntry[]): GalleryRow[] {
  return galleryRows(groupRecents(entries, entries), new Set());
}

const nothing = (): void => undefined;

export function RecentsList({
  rows,
  total = rows.filter((r) => r.kind === 'trace').length,
  onToggle = nothing,
  onRemove,
  onRemoveMany = nothing,
  resetKey = '',
}: {
  rows: readonly GalleryRow[];
  /** How many traces the rows hold (folded ones included), for the list's label. */
  total?: number;
  onToggle?: (collection: string) => void;
  onRemove: (id: string) => void;
  onRemoveMany?: (ids: string[]) => void;
  /** When it changes (a new search), the list scrolls back to the top. */
  resetKey?: string;
}): JSX.Element {
  const scroller = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const height = Math.min(MAX_HEIGHT, rows.length * ROW_HEIGHT);

  useEffect(() => {
    if (scroller.current) scroller.current.scrollTop = 0;
    setScrollTop(0);
  }, [resetKey]);

  const { first, last } = visibleRange(scrollTop, height, rows.length);
  const drawn: JSX.Element[] = [];
  for (let i = first; i <= last; i++) {
    const row = rows[i]!;
    drawn.push(
      <div
        key={row.kind === 'collection' ? `c:${row.collection.key}` : `t:${row.entry.id}`}
        className="recents-slot"
        style={{ transform: `translateY(${i * ROW_HEIGHT}px)` }}
      >
        {row.kind === 'collection' ? (
          <CollectionHeader
            c={row.collection}
            open={row.open}
            onToggle={() => onToggle(row.collection.key)}
            onRemove={() => onRemoveMany(row.collection.entries.map((e) => e.id))}
          />
        ) : (
          <TraceRow e={row.entry} onRemove={onRemove} />
        )}
      </div>,
    );
  }

  return (
    <div className="recents-table">
      <div className="recents-row recents-head" aria-hidden="true">
        <span>Title</span>
        <span className="num">Agents</span>
        <span>Result</span>
        <span className="num">Tokens</span>
        <span title="When the trace was imported, received or last opened in this browser">Added here</span>
        <span title="The trace's own date, when its source records one">Trace date</span>
        <span />
      </div>
      <div
        ref={scroller}
        className="recents"
        role="table"
        aria-label={`Recent traces: ${plural(total, 'trace')}`}
        aria-rowcount={rows.length}
        data-testid="recents"
        data-rows={rows.length}
        data-total={total}
        style={{ height }}
        onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
      >
        <div className="recents-inner" style={{ height: rows.length * ROW_HEIGHT }}>
          {drawn}
        </div>
      </div>
    </div>
  );
}
