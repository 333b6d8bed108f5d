/**
 * An evaluation's results as a share link (`#e=1.…`) and back. Pure: the eval-share slice gives it
 * the results document and shows what comes back.
 *
 * The link always carries the summary (config, methods, per-method and per-axis scores with their
 * intervals, McNemar pairs, Pareto front) and the spend; the per-task rows ride along only when the
 * link with them stays within the budget, and `rows` says which. Traces never travel in the link
 * (they stay in the sharer's browser; "Download OTLP" exports them). What comes back is checked
 * with the `baton.eval/1` schema, so a link is as untrusted as a results file.
 */
import { z } from 'zod';
import { problemOf } from '../../core/errors.ts';
import type { Result } from '../../core/result.ts';
import {
  EVAL_LIMITS,
  EvalDocumentSchema,
  EvalRowSchema,
  rowKey,
  type EvalDocument,
} from '../../eval/index.ts';
import { decodeJsonLink, encodeJsonLink, LINK_BUDGET_CHARS } from '../../share/index.ts';

export const EVAL_LINK_PARAM = 'e';

/** `included`: every per-task row is in the link; `omitted`: they did not fit, the summary is. */
export type RowsInLink = 'included' | 'omitted';

/**
 * A row in the link has no `key`: secret removal drops every field named `key` (share/redact.ts),
 * and the key is `method|taskId|seed` anyway, so it is rebuilt on the way in.
 */
const EvalLinkSchema = z.object({
  rows: z.enum(['included', 'omitted']),
  doc: EvalDocumentSchema.extend({
    rows: z.array(EvalRowSchema.omit({ key: true })).max(EVAL_LIMITS.rows),
  }),
});

export interface EvalLink {
  /** The whole address: base + `#e=1.…`. */
  url: string;
  chars: number;
  /** Even without the rows the link is longer than the budget. */
  overBudget: boolean;
  rows: RowsInLink;
  /** Per-task rows in the results (in the link or not). */
  rowCount: number;
}

export interface SharedEval {
  doc: EvalDocument;
  rows: RowsInLink;
}

/** The share link of a results document; `base` is the page's address (its fragment is dropped). */
export function buildEvalLink(doc: EvalDocument, base: string, budget = LINK_BUDGET_CHARS): EvalLink {
  const at = base.indexOf('#');
  const root = at >= 0 ? base.slice(0, at) : base;
  const make = (rows: RowsInLink): EvalLink => {
    const kept = rows === 'included' ? doc.rows.map(({ key: _key, ...row }) => row) : [];
    const value = { rows, doc: { ...doc, rows: kept } };
    const url = root + encodeJsonLink(value, EVAL_LINK_PARAM).fragment;
    return { url, chars: url.length, overBudget: url.length > budget, rows, rowCount: doc.rows.length };
  };
  const full = make('included');
  return full.overBudget ? make('omitted') : full;
}

/** What the page says about the rows in a link it made or opened. */
export function rowsNote(rows: RowsInLink, rowCount: number): string {
  if (rows === 'included')
    return `The link carries the summary and all ${rowCount.toLocaleString()} per-task rows (not the traces themselves).`;
  return `The ${rowCount.toLocaleString()} per-task rows did not fit within ${LINK_BUDGET_CHARS.toLocaleString()} characters, so the link carries the summary only (scores, intervals, pairs, Pareto front); export JSON for the rows.`;
}

/** Reads `#e=1.…` (or a full address) into a checked results document; errors are text. */
export function readEvalLink(input: string): Result<SharedEval> {
  const decoded = decodeJsonLink(input, EVAL_LINK_PARAM);
  if (!decoded.ok) return decoded;
  const parsed = EvalLinkSchema.safeParse(decoded.value);
  if (!parsed.success) {
    const detail = parsed.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
      .join('; ');
    return { ok: false, errors: [problemOf('E_EVAL_LINK', detail)] };
  }
  const { rows, doc } = parsed.data;
  if (rows === 'omitted' && doc.rows.length > 0)
    return { ok: false, errors: [problemOf('E_EVAL_LINK', 'it says it has no rows but carries some')] };
  const withKeys = doc.rows.map((r) => ({ key: rowKey(r.method, r.taskId, r.seed), ...r }));
  return { ok: true, value: { rows, doc: { ...doc, rows: withKeys } }, warnings: [] };
}
