import type { Problem, Result } from '../core/result.ts';
import type { Trace } from '../core/trace.ts';

/** One trace recovered from a file, or why that part of the file could not become one. */
export interface ImportItem {
  /** What the item is in its file, e.g. `row 10 · step 130`, `trace 3`, or the snapshot title. */
  label: string;
  result: Result<Trace>;
}

export type ImportKind =
  'mas-orchestra-slides' | 'mas-orchestra-snapshot' | 'baton-trace' | 'baton-trace-list';

/** Either the file's kind and one item per trace it holds, or why the file is not importable. */
export type ImportOutcome =
  { ok: true; kind: ImportKind; items: ImportItem[] } | { ok: false; error: Problem };
