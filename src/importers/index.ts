import { describe } from '../core/errors.ts';
import { parseTraceValue } from '../core/parse-trace.ts';
import type { Problem } from '../core/result.ts';
import { extractSlides, looksLikeHtml } from './html.ts';
import { withImportNotes } from './notes.ts';
import { crossCheckModels, looksLikeSlide, slideToItem } from './slides.ts';
import { looksLikeSnapshot, snapshotToItem } from './snapshot.ts';
import type { ImportItem, ImportKind, ImportOutcome } from './types.ts';

export type { ImportItem, ImportKind, ImportOutcome } from './types.ts';

/**
 * Other tools' files → Baton traces. `importText` takes a file's text (JSON, or a MAS-Orchestra
 * case page as HTML), `importValue` an already parsed value. Both are pure and total: whatever
 * the input, they return an outcome and never throw. The file as a whole either has a kind and
 * items, or an error that says what was expected; each item then succeeds or fails on its own.
 */

/** Bounds on what an import reads, so a hostile file cannot exhaust memory or time. */
export const IMPORT_LIMITS = {
  /** Characters (UTF-16 code units) of text read; a case page with its diagrams is ~10 MB. */
  chars: 64 * 1024 * 1024,
  /** Slides or traces in one file. */
  items: 10_000,
} as const;

const EXPECTED =
  'expected a MAS-Orchestra slides array, a MAS-Orchestra demo snapshot, or a baton.trace/1 object (or a list of them)';

function unknown(found: string): ImportOutcome {
  return {
    ok: false,
    error: { code: 'E_IMPORT_UNKNOWN', message: describe('E_IMPORT_UNKNOWN', `${EXPECTED}; found ${found}`) },
  };
}

/** An HTML file that is not a readable case page: one sentence saying what is wrong with it. */
function unknownPage(what: string): ImportOutcome {
  return {
    ok: false,
    error: { code: 'E_IMPORT_UNKNOWN', message: describe('E_IMPORT_UNKNOWN', `${what}.`) },
  };
}

/** A short description of a value for error messages: its type, keys or first element. */
export function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) {
    if (v.length === 0) return 'an empty array';
    return `an array of ${v.length} whose first element is ${describeValue(v[0]).replace(/^an? /, 'a ')}`;
  }
  if (typeof v === 'object') {
    const keys = Object.keys(v);
    if (keys.length === 0) return 'an empty object';
    const shown = keys.slice(0, 6).map((k) => JSON.stringify(k.slice(0, 40)));
    return `an object with keys ${shown.join(', ')}${keys.length > 6 ? ` and ${keys.length - 6} more` : ''}`;
  }
  if (typeof v === 'string') return `a string (${JSON.stringify(v.slice(0, 40))}${v.length > 40 ? '…' : ''})`;
  return `a ${typeof v} (${String(v).slice(0, 40)})`;
}

function tooMany(n: number, what: string): ImportOutcome {
  return {
    ok: false,
    error: {
      code: 'E_TOO_LARGE',
      message: describe('E_TOO_LARGE', `${n} ${what}; the limit is ${IMPORT_LIMITS.items}`),
    },
  };
}

function isTraceLike(v: unknown): boolean {
  return (
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    typeof (v as { format?: unknown }).format === 'string'
  );
}

function traceItems(values: readonly unknown[]): ImportItem[] {
  return values.map((v, i) => {
    const result = parseTraceValue(v);
    const title = result.ok ? result.value.title.trim() : '';
    return { label: `trace ${i + 1}${title ? ` · ${title.slice(0, 80)}` : ''}`, result };
  });
}

function slideItems(values: readonly unknown[], fileName?: string): ImportItem[] {
  return crossCheckModels(
    values.map((v, index) => slideToItem(v, { index, ...(fileName !== undefined ? { fileName } : {}) })),
  );
}

function ok(kind: ImportKind, items: ImportItem[]): ImportOutcome {
  return { ok: true, kind, items };
}

function fromArray(values: readonly unknown[], fileName: string | undefined, inPage: boolean): ImportOutcome {
  if (values.length === 0) return unknown('an empty array');
  if (values.length > IMPORT_LIMITS.items) return tooMany(values.length, 'items');
  const first = values.find((v) => typeof v === 'object' && v !== null && !Array.isArray(v));
  if (isTraceLike(first) && !inPage) return ok('baton-trace-list', traceItems(values));
  if (inPage || looksLikeSlide(first)) return ok('mas-orchestra-slides', slideItems(values, fileName));
  if (looksLikeSnapshot(first)) {
    return unknown(`${describeValue(values)} — a list of demo snapshots; import them one file at a time`);
  }
  return unknown(describeValue(values));
}

/** Every item's warnings travel on its trace too (`importNotes`), so the app can show them. */
function withNotes(outcome: ImportOutcome): ImportOutcome {
  if (!outcome.ok) return outcome;
  return {
    ...outcome,
    items: outcome.items.map((item) =>
      item.result.ok && item.result.warnings.length > 0
        ? {
            ...item,
            result: { ...item.result, value: withImportNotes(item.result.value, item.result.warnings) },
          }
        : item,
    ),
  };
}

export function importValue(value: unknown, fileName?: string): ImportOutcome {
  return withNotes(readValue(value, fileName));
}

function readValue(value: unknown, fileName?: string): ImportOutcome {
  try {
    if (Array.isArray(value)) return fromArray(value, fileName, false);
    if (typeof value !== 'object' || value === null) return unknown(describeValue(value));
    const o = value as Record<string, unknown>;
    if (typeof o.format === 'string') return ok('baton-trace', traceItems([value]));
    if (Array.isArray(o.traces)) {
      if (o.traces.length > IMPORT_LIMITS.items) return tooMany(o.traces.length, 'traces');
      return ok('baton-trace-list', traceItems(o.traces));
    }
    if (Array.isArray(o.slides)) return fromArray(o.slides, fileName, true);
    if (looksLikeSnapshot(value)) return ok('mas-orchestra-snapshot', [snapshotToItem(value, fileName)]);
    if (looksLikeSlide(value)) return ok('mas-orchestra-slides', slideItems([value], fileName));
    return unknown(describeValue(value));
  } catch (e) {
    // Defensive: the readers are written not to throw; a bug must surface as an error, not a crash.
    return {
      ok: false,
      error: {
        code: 'E_IMPORT_UNKNOWN',
        message: describe(
          'E_IMPORT_UNKNOWN',
          `internal error: ${e instanceof Error ? e.message : String(e)}`,
        ),
      },
    };
  }
}

function error(problem: Problem): ImportOutcome {
  return { ok: false, error: problem };
}

export function importText(text: string, fileName?: string): ImportOutcome {
  if (typeof text !== 'string') return unknown(describeValue(text));
  if (text.length > IMPORT_LIMITS.chars) {
    return error({
      code: 'E_TOO_LARGE',
      message: describe('E_TOO_LARGE', `${text.length} characters; the limit is ${IMPORT_LIMITS.chars}`),
    });
  }
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.trim() === '') return error({ code: 'E_JSON', message: describe('E_JSON', 'the file is empty') });
  const isHtml = /\.html?$/i.test(fileName ?? '') || looksLikeHtml(body);
  if (isHtml) {
    // The page is the whole story here; the list of every other format would only bury it.
    const slides = extractSlides(body);
    if (!slides.ok) return unknownPage(slides.error);
    if (!Array.isArray(slides.value)) {
      return unknownPage(
        `the \`slides\` of this MAS-Orchestra case page is ${describeValue(slides.value)}, not an array`,
      );
    }
    // Saved pages are often renamed; the page's own title keeps the case name.
    return withNotes(fromArray(slides.value, slides.pageName ?? fileName, true));
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (e) {
    const detail = e instanceof Error ? e.message : String(e);
    return error({ code: 'E_JSON', message: describe('E_JSON', `${detail.slice(0, 200)}. ${EXPECTED}.`) });
  }
  return importValue(value, fileName);
}

/** Convenience for callers that only want the traces: every item that imported. */
export function importedTraces(outcome: ImportOutcome): ImportItem[] {
  return outcome.ok ? outcome.items.filter((i) => i.result.ok) : [];
}
