import { createStore, delMany, get, set, setMany, clear, type UseStore } from 'idb-keyval';
import { z } from 'zod';
import { parseTraceValue } from '../../core/parse-trace.ts';
import { fail, ok, type Result } from '../../core/result.ts';
import type { Trace } from '../../core/trace.ts';
import { errorText, serviceProblem } from './problems.ts';

/**
 * Recently opened traces in IndexedDB (idb-keyval). Layout: key `index` holds the list of
 * entries (newest first) as `{ format: 'baton.recents/2', entries }` (version 1 stored the bare
 * array, with fewer fields; `migrateRecents` in the library slice upgrades it from the stored
 * traces); key `trace:<id>` holds each full trace. Nothing is dropped here unless the caller says
 * so: the list has no cap. Everything read back is validated, since storage written by an older
 * Baton (or another tab) is not trusted blindly.
 */

export const RECENT_SOURCES = ['example', 'file', 'link', 'url', 'app'] as const;

export const RecentEntrySchema = z.object({
  id: z.string().min(1).max(200),
  title: z.string().max(10_000),
  createdAt: z.string().max(100),
  /** When the trace was last opened here (ISO); the list is sorted by it, newest first. */
  openedAt: z.string().max(100),
  agentCount: z.number().int().nonnegative(),
  correct: z.boolean().nullable(),
  source: z.enum(RECENT_SOURCES),
  /** File name, URL or example file the trace came from. */
  sourceLabel: z.string().max(2_000).optional(),
  /** Search fields, kept in the index so searching does not load whole traces. */
  query: z.string().max(2_000),
  agentTypes: z.array(z.string().max(100)).max(64),
  tags: z.array(z.string().max(10_000)).max(32),
  // Version 2: what the gallery groups, filters and sums by. Optional so that version-1 entries
  // parse; `migrateRecents` fills them in.
  /** The source's row (case-page slides), as the source writes it. */
  row: z.string().max(40).optional(),
  /** The orchestrator checkpoint's training step, when the source says it. */
  step: z.number().int().nonnegative().optional(),
  /** Degree of MAS: the imported designer's, else the design's. */
  dom: z.enum(['low', 'high', 'high_extensive']).optional(),
  result: z.enum(['correct', 'wrong', 'failed', 'unknown']).optional(),
  /** Prompt + completion tokens; null when the source did not record any. */
  tokens: z.number().nonnegative().nullable().optional(),
  /** US dollars; null when not recorded. */
  costUsd: z.number().nonnegative().nullable().optional(),
  /** About how many bytes the stored trace takes (its JSON length), for the storage quota. */
  bytes: z.number().int().nonnegative().optional(),
});

/** The stored index's current format; version 1 was a bare array of entries. */
export const RECENTS_FORMAT = 'baton.recents/2';
export const RECENTS_VERSION = 2;

export interface StoredIndex {
  /** 1 for a bare array (before `RECENTS_FORMAT`), 2 for the current format. */
  version: 1 | 2;
  entries: RecentEntry[];
}

/** How much this page's origin stores and may store, from `navigator.storage.estimate()`, bytes. */
export interface StorageUse {
  usage: number;
  quota: number;
}

export type RecentEntry = z.infer<typeof RecentEntrySchema>;
export type RecentSource = RecentEntry['source'];

const INDEX_KEY = 'index';
const traceKey = (id: string): string => `trace:${id}`;

export interface RecentsStorage {
  load(): Promise<Result<StoredIndex>>;
  loadTrace(id: string): Promise<Result<Trace> | null>;
  /** Writes the new index, the added traces, and deletes traces that fell off the list. */
  save(
    index: readonly RecentEntry[],
    added: readonly Trace[],
    dropped: readonly string[],
  ): Promise<Result<null>>;
  clear(): Promise<Result<null>>;
}

/** IndexedDB-backed storage; writes are chained so a later index never lands before an earlier one. */
export function idbRecents(dbName = 'baton-library', storeName = 'recents'): RecentsStorage {
  let store: UseStore | null = null;
  const db = (): UseStore => (store ??= createStore(dbName, storeName));
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(job: () => Promise<T>): Promise<T> => {
    const next = queue.then(job, job);
    queue = next.catch(() => undefined);
    return next;
  };

  return {
    async load() {
      try {
        const raw: unknown = await serial(() => get(INDEX_KEY, db()));
        return ok(readIndex(raw));
      } catch (e) {
        return fail(serviceProblem('E_STORAGE', errorText(e)));
      }
    },
    async loadTrace(id) {
      try {
        const raw: unknown = await serial(() => get(traceKey(id), db()));
        if (raw === undefined) return null;
        return parseTraceValue(raw);
      } catch (e) {
        return fail(serviceProblem('E_STORAGE', errorText(e)));
      }
    },
    async save(index, added, dropped) {
      try {
        await serial(async () => {
          if (added.length > 0)
            await setMany(
              added.map((t) => [traceKey(t.id), t]),
              db(),
            );
          if (dropped.length > 0) await delMany(dropped.map(traceKey), db());
          await set(INDEX_KEY, { format: RECENTS_FORMAT, entries: index }, db());
        });
        return ok(null);
      } catch (e) {
        return fail(serviceProblem('E_STORAGE', errorText(e)));
      }
    },
    async clear() {
      try {
        await serial(() => clear(db()));
        return ok(null);
      } catch (e) {
        return fail(serviceProblem('E_STORAGE', errorText(e)));
      }
    },
  };
}

/** Reads a stored index of either version; malformed entries are left out. */
export function readIndex(raw: unknown): StoredIndex {
  const v2 =
    typeof raw === 'object' &&
    raw !== null &&
    !Array.isArray(raw) &&
    (raw as { format?: unknown }).format === RECENTS_FORMAT;
  const list: unknown = v2 ? (raw as { entries?: unknown }).entries : raw;
  const entries: RecentEntry[] = [];
  if (Array.isArray(list))
    for (const item of list) {
      const parsed = RecentEntrySchema.safeParse(item);
      if (parsed.success) entries.push(parsed.data);
    }
  // Nothing stored yet counts as current: there is nothing to migrate.
  return { version: v2 || raw === undefined ? 2 : 1, entries };
}

/** `navigator.storage.estimate()` where the browser has it; null elsewhere or when it fails. */
export async function estimateStorage(): Promise<StorageUse | null> {
  try {
    const storage = globalThis.navigator?.storage;
    if (!storage || typeof storage.estimate !== 'function') return null;
    const e = await storage.estimate();
    if (typeof e.usage !== 'number' || typeof e.quota !== 'number' || e.quota <= 0) return null;
    return { usage: e.usage, quota: e.quota };
  } catch {
    return null;
  }
}

/** Memory-only storage, for tests and for browsers where IndexedDB is unavailable. */
export function memoryRecents(initial: StoredIndex = { version: 2, entries: [] }): RecentsStorage {
  let index: RecentEntry[] = initial.entries;
  let version = initial.version;
  const traces = new Map<string, Trace>();
  return {
    load: async () => ok({ version, entries: index.map((e) => ({ ...e })) }),
    loadTrace: async (id) => {
      const t = traces.get(id);
      return t ? ok(t) : null;
    },
    save: async (next, added, dropped) => {
      for (const t of added) traces.set(t.id, t);
      for (const id of dropped) traces.delete(id);
      index = [...next];
      version = 2;
      return ok(null);
    },
    clear: async () => {
      index = [];
      traces.clear();
      return ok(null);
    },
  };
}
