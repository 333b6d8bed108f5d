/**
 * The Train page's snapshot in IndexedDB: the last `baton.train/1` state of the run (config, start
 * and current checkpoints, Adam moments, history), saved every N iterations and on pause, so a
 * reload resumes where training stopped. Storage is outside input like any file: the record read
 * back is checked by `parseSnapshot`, and a damaged one is a clear `E_TRAIN_STORED` problem that
 * touches nothing else (the record stays until the user discards or replaces it).
 */
import { createStore, del, get, set, type UseStore } from 'idb-keyval';
import { problemOf } from '../../core/errors.ts';
import { fail, ok, type Result } from '../../core/result.ts';
import { SNAPSHOT_IDB, parseSnapshot, snapshotFromJson, type TrainerSnapshot } from '../../train/index.ts';
import { errorText } from './problems.ts';

export interface SnapshotStorage {
  /** The saved snapshot, null when there is none, or why it cannot be used. */
  load(): Promise<Result<TrainerSnapshot | null>>;
  save(s: TrainerSnapshot): Promise<Result<null>>;
  /**
   * Saves a snapshot as the worker sends it while training: `baton.train/1` JSON text, stored as
   * it is (checked when read back), so saving costs the page's main thread no parsing.
   */
  saveText(text: string): Promise<Result<null>>;
  clear(): Promise<Result<null>>;
}

const KEY = SNAPSHOT_IDB.key;

/** Checks a record read back from storage: a snapshot object, or its JSON text. */
export async function snapshotOfRecord(raw: unknown): Promise<Result<TrainerSnapshot | null>> {
  if (raw === undefined || raw === null) return ok(null);
  if (typeof Blob !== 'undefined' && raw instanceof Blob) raw = await raw.text();
  const r = typeof raw === 'string' ? snapshotFromJson(raw) : parseSnapshot(raw);
  return r.ok ? ok(r.snapshot) : fail(problemOf('E_TRAIN_STORED', r.problems.join('; ')));
}

export function idbSnapshots(
  dbName: string = SNAPSHOT_IDB.db,
  storeName: string = SNAPSHOT_IDB.store,
): SnapshotStorage {
  let store: UseStore | null = null;
  const db = (): UseStore => (store ??= createStore(dbName, storeName));
  const storageFail = (e: unknown): { ok: false; errors: ReturnType<typeof problemOf>[] } =>
    fail(problemOf('E_TRAIN_STORAGE', errorText(e)));
  return {
    async load() {
      try {
        return await snapshotOfRecord(await get(KEY, db()));
      } catch (e) {
        return storageFail(e);
      }
    },
    async save(s) {
      try {
        // Structured clone keeps the optimizer's Float32Arrays as they are.
        await set(KEY, s, db());
        return ok(null);
      } catch (e) {
        return storageFail(e);
      }
    },
    async saveText(text) {
      try {
        // As a Blob: IndexedDB then stores the bytes without cloning a large string on this thread.
        await set(KEY, new Blob([text], { type: 'application/json' }), db());
        return ok(null);
      } catch (e) {
        return storageFail(e);
      }
    },
    async clear() {
      try {
        await del(KEY, db());
        return ok(null);
      } catch (e) {
        return storageFail(e);
      }
    },
  };
}

/** In-memory stand-in for tests; `raw` lets a test plant any record. */
export function memorySnapshots(raw?: unknown): SnapshotStorage & { raw: unknown } {
  const m = {
    raw,
    load: () => snapshotOfRecord(structuredClone(m.raw)),
    save: (s: TrainerSnapshot) => {
      m.raw = structuredClone(s);
      return Promise.resolve(ok(null));
    },
    saveText: (text: string) => {
      m.raw = text;
      return Promise.resolve(ok(null));
    },
    clear: () => {
      m.raw = undefined;
      return Promise.resolve(ok(null));
    },
  };
  return m;
}
