import type { Problem } from '../../core/result.ts';
import type { Trace } from '../../core/trace.ts';
import { importText } from '../../importers/index.ts';

/** What happened to one file (or fetched URL) in an import. */
export interface FileImport {
  name: string;
  /** The format the importers recognised, e.g. a MAS-Orchestra slides file; null when none. */
  kind: string | null;
  traces: Trace[];
  /** Items that could not be imported, or the whole file's problem when it was not read at all. */
  failures: { label: string; message: string }[];
}

export interface ImportReport {
  files: FileImport[];
  imported: number;
  failed: number;
}

function failureOf(label: string, problems: readonly Problem[]): { label: string; message: string } {
  return { label, message: problems.map((p) => p.message).join('; ') || 'Unknown problem.' };
}

/** Runs the importers over one text; never throws, even if an importer does. */
export function importOne(name: string, text: string): FileImport {
  try {
    const result = importText(text, name);
    if (!result.ok) return { name, kind: null, traces: [], failures: [failureOf(name, [result.error])] };
    const traces: Trace[] = [];
    const failures: FileImport['failures'] = [];
    for (const item of result.items) {
      if (item.result.ok) traces.push(item.result.value);
      else failures.push(failureOf(item.label, item.result.errors));
    }
    return { name, kind: result.kind, traces, failures };
  } catch (e) {
    return {
      name,
      kind: null,
      traces: [],
      failures: [{ label: name, message: e instanceof Error ? e.message : String(e) }],
    };
  }
}

export function fileFailure(name: string, problems: readonly Problem[]): FileImport {
  return { name, kind: null, traces: [], failures: [failureOf(name, problems)] };
}

export function summarise(files: FileImport[]): ImportReport {
  return {
    files,
    imported: files.reduce((n, f) => n + f.traces.length, 0),
    failed: files.reduce((n, f) => n + f.failures.length, 0),
  };
}
