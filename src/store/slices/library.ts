import { fail, ok, type Problem, type Result } from '../../core/result.ts';
import type { Trace } from '../../core/trace.ts';
import { decodeTraceLink } from '../../share/index.ts';
import type { SliceCreator } from '../store.ts';
import { loadExamples, type Example } from '../services/examples.ts';
import { fetchText } from '../services/fetch-source.ts';
import { readFileText, yieldToBrowser, type TextSource } from '../services/files.ts';
import { fileFailure, importOne, summarise, type FileImport, type ImportReport } from '../services/import.ts';
import { serviceProblem } from '../services/problems.ts';
import {
  estimateStorage,
  idbRecents,
  type RecentEntry,
  type RecentSource,
  type RecentsStorage,
  type StorageUse,
} from '../services/recents.ts';
import { mergeRecents, recentEntryOf } from './library-lists.ts';
import { migrateRecents } from './library-migrate.ts';
import { recentDoc } from './library-search.ts';
import { planEviction } from './library-quota.ts';

export type { Example } from '../services/examples.ts';
export type { ImportReport, FileImport } from '../services/import.ts';
export type { RecentEntry, RecentSource, StorageUse } from '../services/recents.ts';
export {
  agentTypesOf,
  exampleMatches,
  matchesSearch,
  mergeRecents,
  recentEntryOf,
  recentMatches,
  resultOf,
  rowOf,
  taskSourceWords,
} from './library-lists.ts';
export { exampleDoc, recentDoc, searchRecents } from './library-search.ts';
export {
  NO_FILTERS,
  collectionKey,
  facetsOf,
  galleryRows,
  groupRecents,
  passesFilters,
  type Collection,
  type GalleryFilters,
  type GalleryRow,
} from './library-groups.ts';
export { QUOTA_SHARE } from './library-quota.ts';
export {
  cutAtWord,
  listTitle,
  plainText,
  shownTitle,
  traceDetail,
  traceListTitle,
} from './library-titles.ts';

export type LoadState<T> =
  | { status: 'idle' }
  | { status: 'loading' }
  | { status: 'ready'; value: T }
  | { status: 'error'; problems: Problem[] };

export type TraceLoad = { status: 'loading' } | { status: 'error'; problems: Problem[] };

/** Traces removed because the browser's storage quota was nearly reached; shown until dismissed. */
export interface EvictionNotice {
  count: number;
  /** The first titles removed (at most 20). */
  titles: string[];
  /** The storage estimate that called for it, bytes. */
  use: StorageUse;
}

/** A failure to open something the user pointed at (a share link, a `?src=` URL). */
export interface OpenError {
  title: string;
  problems: Problem[];
}

/** Open traces, recents, import and share state. */
export interface LibrarySlice {
  /** True once the recents list has been read from storage (or storage has failed). */
  libraryReady: boolean;
  /** Traces held in memory, by id. */
  openTraces: Record<string, Trace>;
  /** The trace the Trace tab returns to. */
  lastOpenedId: string | null;
  /** Traces being looked up by id (route `#/trace/<id>`), or why they could not be found. */
  traceLoads: Record<string, TraceLoad>;
  /**
   * Every trace opened, imported or received here, newest first. No cap: entries leave only by
   * `removeRecents` / `clearRecents`, or by the storage quota (announced in `evictionNotice`).
   */
  recents: RecentEntry[];
  /** Why recents could not be read or saved; the app keeps working in memory. */
  storageProblem: Problem | null;
  /** The browser's storage estimate for this page, when it gives one. */
  storageUse: StorageUse | null;
  evictionNotice: EvictionNotice | null;
  examples: LoadState<Example[]>;
  /** Non-null while files or a URL are being imported; `label` says what. */
  importing: { label: string } | null;
  importReport: ImportReport | null;
  openError: OpenError | null;

  /** Reads the recents from storage. Idempotent: later calls return the same promise. */
  initLibrary(): Promise<void>;
  /** Loads the bundled examples once (again after an error). */
  loadExamples(): Promise<void>;
  /** Opens traces in memory and puts them at the top of the recents, in the given order. */
  rememberTraces(
    items: readonly { trace: Trace; source: RecentSource; sourceLabel?: string }[],
  ): Promise<void>;
  /** Returns the trace with this id from memory, storage, `src` or the examples; null if not found. */
  ensureTrace(id: string, options?: { src?: string | null }): Promise<Trace | null>;
  /** Imports files (each may hold many traces); returns the id of the first imported trace. */
  importFiles(files: readonly TextSource[]): Promise<string | null>;
  /** Fetches and imports `?src=<url>`; returns the id of the first trace, or null (see openError). */
  importFromUrl(url: string): Promise<string | null>;
  /** Decodes a `#t=…` share link and opens it; returns its id, or null (see openError). */
  openShareLink(input: string): string | null;
  removeRecent(id: string): Promise<void>;
  /** Removes these traces from the list and from storage (a whole collection, say). */
  removeRecents(ids: readonly string[]): Promise<void>;
  clearRecents(): Promise<void>;
  dismissEvictionNotice(): void;
  dismissImportReport(): void;
  dismissOpenError(): void;
}

/** Effects the library uses; replaced in tests through `configureLibrary`. */
export interface LibraryEnv {
  storage: RecentsStorage;
  /** The page address that relative URLs (examples, `?src=`) resolve against. */
  base: () => string;
  fetchImpl?: typeof fetch;
  now: () => Date;
  /** The browser's storage estimate (`navigator.storage.estimate()`), or null without one. */
  estimate: () => Promise<StorageUse | null>;
}

const defaultEnv = (): LibraryEnv => ({
  storage: idbRecents(),
  estimate: estimateStorage,
  base: () => globalThis.document?.baseURI ?? globalThis.location?.href ?? 'http://localhost/',
  now: () => new Date(),
});

let env: LibraryEnv = defaultEnv();

/** Swaps the library's effects (storage, base URL, fetch, clock); returns the previous ones. */
export function configureLibrary(next: Partial<LibraryEnv>): LibraryEnv {
  const previous = env;
  env = { ...env, ...next };
  return previous;
}

function firstTraceOf(files: readonly FileImport[]): Trace | null {
  for (const f of files) if (f.traces[0]) return f.traces[0];
  return null;
}

// ---------------------------------------------------------------- slice

export const createLibrarySlice: SliceCreator<LibrarySlice> = (set, get) => {
  // Memoised loads. A reset store (tests, `resetBaton`) is back to idle / not ready, which starts
  // a fresh load rather than reusing one that filled the old state.
  let init: Promise<void> | null = null;
  let initPending = false;
  let examplesLoad: Promise<void> | null = null;

  const persist = async (
    list: RecentEntry[],
    added: readonly Trace[],
    dropped: readonly string[],
  ): Promise<void> => {
    const saved = await env.storage.save(list, added, dropped);
    if (!saved.ok) set({ storageProblem: saved.errors[0] ?? serviceProblem('E_STORAGE') });
    set({ storageUse: await env.estimate() });
  };

  return {
    libraryReady: false,
    openTraces: {},
    lastOpenedId: null,
    traceLoads: {},
    recents: [],
    storageProblem: null,
    storageUse: null,
    evictionNotice: null,
    examples: { status: 'idle' },
    importing: null,
    importReport: null,
    openError: null,

    initLibrary() {
      if (init && (initPending || get().libraryReady)) return init;
      initPending = true;
      init = (async () => {
        const loaded = await env.storage.load();
        if (loaded.ok) {
          let entries = loaded.value.entries;
          if (loaded.value.version < 2) {
            entries = await migrateRecents(entries, async (id) => {
              const t = await env.storage.loadTrace(id);
              return t?.ok ? t.value : null;
            });
            const saved = await env.storage.save(entries, [], []);
            if (!saved.ok) set({ storageProblem: saved.errors[0] ?? serviceProblem('E_STORAGE') });
          }
          initPending = false;
          // Entries remembered while storage was being read stay on top.
          set((s) => ({ recents: mergeRecents(entries, s.recents), libraryReady: true }));
          set({ storageUse: await env.estimate() });
          // The search index, built once now (after the list is drawn) rather than on the first keystroke.
          for (const e of entries) recentDoc(e);
        } else {
          initPending = false;
          set({ libraryReady: true, storageProblem: loaded.errors[0] ?? serviceProblem('E_STORAGE') });
        }
      })();
      return init;
    },

    loadExamples() {
      const current = get().examples.status;
      if (examplesLoad && (current === 'loading' || current === 'ready')) return examplesLoad;
      set({ examples: { status: 'loading' } });
      examplesLoad = (async () => {
        const loaded = await loadExamples(env.base(), env.fetchImpl ? { fetchImpl: env.fetchImpl } : {});
        set({
          examples: loaded.ok
            ? { status: 'ready', value: loaded.value }
            : { status: 'error', problems: loaded.errors },
        });
      })();
      return examplesLoad;
    },

    async rememberTraces(items) {
      if (items.length === 0) return;
      const openedAt = env.now().toISOString();
      const unique = new Map<string, (typeof items)[number]>();
      for (const item of items) if (!unique.has(item.trace.id)) unique.set(item.trace.id, item);
      const first = items[0];
      set((s) => {
        const openTraces = { ...s.openTraces };
        for (const { trace } of unique.values()) openTraces[trace.id] = trace;
        return { openTraces, lastOpenedId: first ? first.trace.id : s.lastOpenedId };
      });
      await get().initLibrary();
      const added = [...unique.values()].map((i) =>
        recentEntryOf(i.trace, i.source, openedAt, i.sourceLabel),
      );
      let list = mergeRecents(get().recents, added);
      // The storage quota is the only thing that removes a trace unasked, and it says so.
      const incoming = added.reduce((n, e) => n + (e.bytes ?? 0), 0);
      const use = await env.estimate();
      const plan = planEviction(list, use, incoming, new Set(unique.keys()));
      if (plan.drop.length > 0 && use) {
        const gone = new Set(plan.drop);
        const titles = list.filter((e) => gone.has(e.id)).map((e) => e.title);
        list = list.filter((e) => !gone.has(e.id));
        const before = get().evictionNotice;
        set({
          evictionNotice: {
            count: plan.drop.length + (before?.count ?? 0),
            titles: [...titles, ...(before?.titles ?? [])].slice(0, 20),
            use,
          },
        });
      }
      set({ recents: list });
      await persist(
        list,
        [...unique.values()].map((i) => i.trace),
        plan.drop,
      );
    },

    async ensureTrace(id, options = {}) {
      const inMemory = get().openTraces[id];
      if (inMemory) return inMemory;
      const setLoad = (load: TraceLoad | null): void =>
        set((s) => {
          const traceLoads = { ...s.traceLoads };
          if (load) traceLoads[id] = load;
          else delete traceLoads[id];
          return { traceLoads };
        });
      setLoad({ status: 'loading' });
      const found = await findTrace(id, options.src ?? null);
      if (found.ok) {
        const previous = get().recents.find((e) => e.id === id);
        await get().rememberTraces([
          {
            trace: found.value.trace,
            source: previous?.source ?? found.value.source,
            ...(previous?.sourceLabel !== undefined ? { sourceLabel: previous.sourceLabel } : {}),
          },
        ]);
        setLoad(null);
        return found.value.trace;
      }
      setLoad({ status: 'error', problems: found.errors });
      return null;
    },

    async importFiles(files) {
      if (files.length === 0) return null;
      const label = files.length === 1 ? (files[0]?.name ?? 'file') : `${files.length} files`;
      set({ importing: { label }, importReport: null });
      const results: FileImport[] = [];
      for (const file of files) {
        await yieldToBrowser();
        const text = await readFileText(file);
        results.push(text.ok ? await importOne(file.name, text.value) : fileFailure(file.name, text.errors));
      }
      const report = summarise(results);
      await get().rememberTraces(
        results.flatMap((f) =>
          f.traces.map((trace) => ({ trace, source: 'file' as const, sourceLabel: f.name })),
        ),
      );
      set({ importing: null, importReport: report });
      return firstTraceOf(results)?.id ?? null;
    },

    async importFromUrl(url) {
      set({ importing: { label: url }, openError: null });
      const title = `Could not open ${url.length > 120 ? `${url.slice(0, 120)}…` : url}`;
      const fetched = await fetchText(url, {
        base: env.base(),
        ...(env.fetchImpl ? { fetchImpl: env.fetchImpl } : {}),
      });
      if (!fetched.ok) {
        set({ importing: null, openError: { title, problems: fetched.errors } });
        return null;
      }
      const result = await importOne(fetched.value.name, fetched.value.text);
      if (result.traces.length === 0) {
        set({
          importing: null,
          openError: {
            title,
            problems: result.failures.map((f) => ({ code: 'E_IMPORT_ITEM', message: f.message })),
          },
        });
        return null;
      }
      await get().rememberTraces(
        result.traces.map((trace) => ({ trace, source: 'url' as const, sourceLabel: fetched.value.url })),
      );
      const report = summarise([result]);
      set({ importing: null, importReport: report.imported > 1 || report.failed > 0 ? report : null });
      return result.traces[0]?.id ?? null;
    },

    openShareLink(input) {
      const decoded = decodeTraceLink(input);
      if (!decoded.ok) {
        set({ openError: { title: 'This share link could not be opened', problems: decoded.errors } });
        return null;
      }
      set({ openError: null });
      void get().rememberTraces([{ trace: decoded.value, source: 'link' }]);
      return decoded.value.id;
    },

    async removeRecent(id) {
      await get().removeRecents([id]);
    },

    async removeRecents(ids) {
      await get().initLibrary();
      const gone = new Set(ids);
      const list = get().recents.filter((e) => !gone.has(e.id));
      set({ recents: list });
      await persist(list, [], [...gone]);
    },

    async clearRecents() {
      await get().initLibrary();
      set({ recents: [] });
      const cleared = await env.storage.clear();
      if (!cleared.ok) set({ storageProblem: cleared.errors[0] ?? serviceProblem('E_STORAGE') });
      set({ storageUse: await env.estimate() });
    },

    dismissEvictionNotice() {
      set({ evictionNotice: null });
    },

    dismissImportReport() {
      set({ importReport: null });
    },

    dismissOpenError() {
      set({ openError: null });
    },
  };

  /** Storage first, then the `?src=` file, then the bundled examples. */
  async function findTrace(
    id: string,
    src: string | null,
  ): Promise<Result<{ trace: Trace; source: RecentSource }>> {
    const stored = await env.storage.loadTrace(id);
    if (stored?.ok) return ok({ trace: stored.value, source: 'app' });
    const problems: Problem[] = stored && !stored.ok ? [...stored.errors] : [];
    if (src) {
      const fetched = await fetchText(src, {
        base: env.base(),
        ...(env.fetchImpl ? { fetchImpl: env.fetchImpl } : {}),
      });
      if (fetched.ok) {
        const hit = (await importOne(fetched.value.name, fetched.value.text)).traces.find((t) => t.id === id);
        if (hit) return ok({ trace: hit, source: 'url' });
      } else problems.push(...fetched.errors);
    }
    await get().loadExamples();
    const examples = get().examples;
    if (examples.status === 'ready') {
      for (const e of examples.value)
        if (e.trace.ok && e.trace.value.id === id) return ok({ trace: e.trace.value, source: 'example' });
    }
    return fail(serviceProblem('E_NOT_FOUND', `no trace with id "${id}" on this device`), ...problems);
  }
};
