/**
 * The gallery's collections: an imported file (or fetched URL) is one collection of traces, and
 * traces that came another way are grouped by how they came (examples, share links, runs made
 * here). Per collection: how many traces, how many correct, wrong, failed and ungraded, the
 * accuracy over the graded ones, and the tokens where the source recorded them. Also the filters
 * (collection, result, agent type, Degree of MAS) and the flat row list the virtualised list
 * draws. Pure.
 */
import type { ResultKind } from '../../view/search.ts';
import type { RecentEntry, RecentSource } from '../services/recents.ts';
import { recentDoc } from './library-search.ts';

export interface Collection {
  /** `file:<name>`, `url:<address>`, or the source kind for traces that came another way. */
  key: string;
  source: RecentSource;
  /** What the list calls it: the file's name, the URL, "Examples", … */
  label: string;
  /** The entries shown (those the search and filters keep), newest first. */
  entries: RecentEntry[];
  /** Every entry of the collection, whatever the search. */
  total: number;
  counts: Record<ResultKind, number>;
  /** correct / (correct + wrong + failed) over the shown entries; null when none is graded. */
  accuracy: number | null;
  /** Tokens summed over the shown entries that recorded them; null when none did. */
  tokens: number | null;
  /** How many shown entries recorded no tokens. */
  tokensNotRecorded: number;
}

const KIND_LABEL: Record<RecentSource, string> = {
  file: 'file',
  url: 'URL',
  example: 'Examples',
  link: 'Share links',
  app: 'Made in Baton',
};

const keys = new WeakMap<RecentEntry, string>();

export function collectionKey(entry: RecentEntry): string {
  let key = keys.get(entry);
  if (key === undefined) {
    key =
      (entry.source === 'file' || entry.source === 'url') && entry.sourceLabel
        ? `${entry.source}:${entry.sourceLabel}`
        : entry.source;
    keys.set(entry, key);
  }
  return key;
}

/** Entries per collection of a whole list, counted once per list (the store replaces the list on change). */
const totalsOf = new WeakMap<readonly RecentEntry[], Map<string, number>>();

function collectionTotals(all: readonly RecentEntry[]): Map<string, number> {
  let totals = totalsOf.get(all);
  if (!totals) {
    totals = new Map();
    for (const e of all) {
      const k = collectionKey(e);
      totals.set(k, (totals.get(k) ?? 0) + 1);
    }
    totalsOf.set(all, totals);
  }
  return totals;
}

export function collectionLabel(entry: RecentEntry): string {
  if (entry.source === 'file' && entry.sourceLabel) return entry.sourceLabel.split(/[/\\]/).pop() ?? '';
  if (entry.source === 'url' && entry.sourceLabel) return entry.sourceLabel;
  return KIND_LABEL[entry.source];
}

export interface GalleryFilters {
  collection: string | null;
  result: ResultKind | null;
  /** An agent type, exactly (`DebateAgent`). */
  type: string | null;
  dom: 'low' | 'high' | null;
}

export const NO_FILTERS: GalleryFilters = { collection: null, result: null, type: null, dom: null };

export function passesFilters(entry: RecentEntry, f: GalleryFilters): boolean {
  if (f.collection !== null && collectionKey(entry) !== f.collection) return false;
  const doc = recentDoc(entry);
  if (f.result !== null && doc.result !== f.result) return false;
  if (f.type !== null && !entry.agentTypes.includes(f.type)) return false;
  if (f.dom !== null && (f.dom === 'high' ? !doc.dom.startsWith('high') : doc.dom !== f.dom)) return false;
  return true;
}

/**
 * Groups `shown` (a subset of `all`, in list order) into collections, ordered by their newest
 * entry; `total` counts from `all`.
 */
export function groupRecents(all: readonly RecentEntry[], shown: readonly RecentEntry[]): Collection[] {
  const totals = collectionTotals(all);
  const groups = new Map<string, Collection>();
  for (const e of shown) {
    const key = collectionKey(e);
    let g = groups.get(key);
    if (!g) {
      g = {
        key,
        source: e.source,
        label: collectionLabel(e),
        entries: [],
        total: totals.get(key) ?? 0,
        counts: { correct: 0, wrong: 0, failed: 0, unknown: 0 },
        accuracy: null,
        tokens: null,
        tokensNotRecorded: 0,
      };
      groups.set(key, g);
    }
    g.entries.push(e);
    g.counts[recentDoc(e).result]++;
    if (typeof e.tokens === 'number') g.tokens = (g.tokens ?? 0) + e.tokens;
    else g.tokensNotRecorded++;
  }
  for (const g of groups.values()) {
    const graded = g.counts.correct + g.counts.wrong + g.counts.failed;
    g.accuracy = graded === 0 ? null : g.counts.correct / graded;
  }
  return [...groups.values()];
}

/** What the filter menus offer: the collections, agent types and DoMs present in the list. */
export function facetsOf(all: readonly RecentEntry[]): {
  collections: { key: string; label: string; count: number }[];
  types: string[];
  doms: ('low' | 'high')[];
} {
  const collections = new Map<string, { key: string; label: string; count: number }>();
  const types = new Set<string>();
  const doms = new Set<'low' | 'high'>();
  for (const e of all) {
    const key = collectionKey(e);
    const c = collections.get(key);
    if (c) c.count++;
    else collections.set(key, { key, label: collectionLabel(e), count: 1 });
    for (const t of e.agentTypes) types.add(t);
    if (e.dom) doms.add(e.dom === 'low' ? 'low' : 'high');
  }
  return { collections: [...collections.values()], types: [...types].sort(), doms: [...doms].sort() };
}

/** One row of the virtualised list: a collection's header, or one of its traces. */
export type GalleryRow =
  | { kind: 'collection'; collection: Collection; open: boolean }
  | { kind: 'trace'; entry: RecentEntry; collection: string };

/** Headers, each followed by its traces unless the collection is folded. */
export function galleryRows(groups: readonly Collection[], folded: ReadonlySet<string>): GalleryRow[] {
  const rows: GalleryRow[] = [];
  for (const g of groups) {
    const open = !folded.has(g.key);
    rows.push({ kind: 'collection', collection: g, open });
    if (open) for (const entry of g.entries) rows.push({ kind: 'trace', entry, collection: g.key });
  }
  return rows;
}
