import { createStore, delMany, get, set, setMany, clear, type UseStore } from 'idb-keyval';
import { z } from 'zod';
import { parseTraceValue } from '../../core/parse-trace.ts';
import { fail, ok, type Result } from '../../core/result.ts';
import type { Trace } from '../../core/trace.ts';
import { errorText, serviceProblem } from './problems.ts';

/**
 * Recently opened traces in IndexedDB (idb-keyval). Layout: key `index` holds the list of
 * entries (newest first); key `trace:<id>` holds each full trace. Everything read back is
 * validated, since storage written by an older Baton (or another tab) is not trusted blindly.
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
});

export type RecentEntry = z.infer<typeof RecentEntrySchema>;
export type RecentSource = RecentEntry['source'];

const INDEX_KEY = 'index';
const traceKey = (id: string): string => `trace:${id}`;

export interface RecentsStorage {
  load(): Promise<Result<RecentEntry[]>>;
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
        if (raw === undefined) return ok([]);
        if (!Array.isArray(raw)) return ok([]);
        const entries: RecentEntry[] = [];
        for (const item of raw) {
          const parsed = RecentEntrySchema.safeParse(item);
          if (parsed.success) entries.push(parsed.data);
        }
        return ok(entries);
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
          await set(INDEX_KEY, index, db());
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

/** Memory-only storage, for tests and for browsers where IndexedDB is unavailable. */
export function memoryRecents(): RecentsStorage {
  let index: RecentEntry[] = [];
  const traces = new Map<string, Trace>();
  return {
    load: async () => ok(index.map((e) => ({ ...e }))),
    loadTrace: async (id) => {
      const t = traces.get(id);
      return t ? ok(t) : null;
    },
    save: async (next, added, dropped) => {
      for (const t of added) traces.set(t.id, t);
      for (const id of dropped) traces.delete(id);
      index = [...next];
      return ok(null);
    },
    clear: async () => {
      index = [];
      traces.clear();
      return ok(null);
    },
  };
}
