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
  /** What the import kept but could not map (OTLP attributes, spans, events kept as notes). */
  notes?: { label: string; message: string }[];
}

export interface ImportReport {
  files: FileImport[];
  imported: number;
  failed: number;
}

function failureOf(label: string, problems: readonly Problem[]): { label: string; message: string } {
  return { label, message: problems.map((p) => p.message).join('; ') || 'Unknown problem.' };
}

/**
 * OTLP/JSON (an OpenTelemetry trace export) goes to src/interop's importer, which the importers
 * layer may not call. The cheap text check keeps every other file from being parsed twice, and
 * src/interop (with the OpenTelemetry and Parquet code) loads only when such a file comes, so it
 * stays out of the first page.
 */
async function importOtlpFile(name: string, text: string): Promise<FileImport | null> {
  if (!text.includes('"resourceSpans"')) return null;
  let value: unknown;
  try {
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    return null;
  }
  const { importOtlpValue, looksLikeOtlp } = await import('../../interop/index.ts');
  if (!looksLikeOtlp(value)) return null;
  const result = importOtlpValue(value);
  if (!result.ok) return { name, kind: 'otlp-json', traces: [], failures: [failureOf(name, [result.error])] };
  const file: FileImport = { name, kind: 'otlp-json', traces: [], failures: [], notes: [] };
  for (const item of result.items) {
    if (!item.result.ok) file.failures.push(failureOf(item.label, item.result.errors));
    else {
      file.traces.push(item.result.value);
      for (const w of item.result.warnings) file.notes!.push({ label: item.label, message: w.message });
    }
  }
  return file;
}

/** Runs the importers over one text; never rejects, even if an importer throws. */
export async function importOne(name: string, text: string): Promise<FileImport> {
  try {
    const otlp = await importOtlpFile(name, text);
    if (otlp) return otlp;
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
