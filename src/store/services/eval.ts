/**
 * The Evaluate page's effects: the evaluation worker, and the journal in IndexedDB. Every finished
 * (method, task, seed) row is written as it arrives, keyed by the evaluation's configuration (its
 * budget aside), with its trace in a second store; after a reload the same configuration resumes
 * from those rows and runs only what is missing. What comes back from IndexedDB is validated.
 */
import { clear, createStore, entries, get, set, setMany, type UseStore } from 'idb-keyval';
import { hashString } from '../../core/rng.ts';
import { parseTraceValue } from '../../core/parse-trace.ts';
import type { Trace } from '../../core/trace.ts';
import { EvalRowSchema, type EvalConfig, type EvalRow } from '../../eval/index.ts';
import { createEvalWorkerClient, type EvalWorkerClient } from '../../workers/index.ts';

export type { EvalProvider } from '../../workers/index.ts';

/** The journal's key for a configuration: everything but the budget, which may grow on resume. */
export function configKey(config: EvalConfig): string {
  const text = JSON.stringify({ ...config, budget: null });
  return `${hashString(text).toString(36)}-${hashString(`${text}\u0001`).toString(36)}`;
}

export interface EvalJournal {
  rows(config: EvalConfig): Promise<EvalRow[]>;
  add(config: EvalConfig, row: EvalRow, trace: Trace): Promise<void>;
  trace(id: string): Promise<Trace | null>;
  clear(config: EvalConfig): Promise<void>;
}

export function idbEvalJournal(prefix = 'baton-eval'): EvalJournal {
  let rowsDb: UseStore | null = null;
  let tracesDb: UseStore | null = null;
  const rows = (): UseStore => (rowsDb ??= createStore(`${prefix}-rows`, 'rows'));
  const traces = (): UseStore => (tracesDb ??= createStore(`${prefix}-traces`, 'traces'));
  return {
    async rows(config) {
      const k = `${configKey(config)}|`;
      const out: EvalRow[] = [];
      for (const [key, value] of await entries(rows())) {
        if (typeof key !== 'string' || !key.startsWith(k)) continue;
        const p = EvalRowSchema.safeParse(value);
        if (p.success) out.push(p.data);
      }
      return out;
    },
    async add(config, row, trace) {
      await set(trace.id, trace, traces());
      await set(`${configKey(config)}|${row.key}`, row, rows());
    },
    async trace(id) {
      const raw: unknown = await get(id, traces());
      if (raw === undefined) return null;
      const p = parseTraceValue(raw);
      return p.ok ? p.value : null;
    },
    async clear(config) {
      const k = `${configKey(config)}|`;
      const keep: [IDBValidKey, unknown][] = [];
      const all = await entries(rows());
      await clear(rows());
      for (const [key, value] of all)
        if (typeof key !== 'string' || !key.startsWith(k)) keep.push([key, value]);
      if (keep.length > 0) await setMany(keep, rows());
    },
  };
}

/** A journal in memory (tests, and the page when IndexedDB is unavailable). */
export function memoryEvalJournal(): EvalJournal {
  const rowMap = new Map<string, EvalRow>();
  const traceMap = new Map<string, Trace>();
  return {
    rows: (config) =>
      Promise.resolve(
        [...rowMap.entries()].filter(([k]) => k.startsWith(`${configKey(config)}|`)).map(([, r]) => r),
      ),
    add: (config, row, trace) => {
      rowMap.set(`${configKey(config)}|${row.key}`, row);
      traceMap.set(trace.id, trace);
      return Promise.resolve();
    },
    trace: (id) => Promise.resolve(traceMap.get(id) ?? null),
    clear: (config) => {
      for (const k of [...rowMap.keys()]) if (k.startsWith(`${configKey(config)}|`)) rowMap.delete(k);
      return Promise.resolve();
    },
  };
}

let client: EvalWorkerClient | null = null;
/** The one evaluation worker, started on first use. */
export function evalWorker(): EvalWorkerClient {
  return (client ??= createEvalWorkerClient());
}

/** Swaps the evaluation worker (tests: the real handlers on a MessageChannel); returns the previous one. */
export function configureEvalWorker(next: EvalWorkerClient | null): EvalWorkerClient | null {
  const prev = client;
  client = next;
  return prev;
}
