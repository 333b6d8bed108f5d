/**
 * Results as files: the document as JSON (validated on the way back in), the per-task rows as CSV
 * and JSONL, and the per-method summary as CSV. CSV fields are quoted when they hold a comma, a
 * quote or a line break, and a field that starts with = + - @ is prefixed with ' so a spreadsheet
 * does not read it as a formula.
 */
import { EvalDocumentSchema, type EvalDocument, type EvalRow } from './schema.ts';

/** Largest results file read back, characters. */
export const MAX_EVAL_CHARS = 256 * 1024 * 1024;

function cell(v: unknown): string {
  let s = v === null || v === undefined ? '' : String(v);
  if (/^[=+\-@]/.test(s) && !/^-?\d/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const ROW_COLUMNS: readonly (keyof EvalRow)[] = [
  'method',
  'taskId',
  'seed',
  'axis',
  'value',
  'correct',
  'status',
  'tokens',
  'promptTokens',
  'completionTokens',
  'costUsd',
  'wallMs',
  'agents',
  'llmCalls',
  'traceId',
];

export function rowsCsv(doc: EvalDocument): string {
  const lines = [ROW_COLUMNS.join(',')];
  for (const r of doc.rows) lines.push(ROW_COLUMNS.map((c) => cell(r[c])).join(','));
  return lines.join('\n') + '\n';
}

export function rowsJsonl(doc: EvalDocument): string {
  return doc.rows.map((r) => JSON.stringify(r) + '\n').join('');
}

/** One line per method and per (method, axis, value). */
export function summaryCsv(doc: EvalDocument): string {
  const head = [
    'method',
    'axis',
    'value',
    'n',
    'correct',
    'accuracy',
    'ci95_low',
    'ci95_high',
    'mean_tokens',
    'total_tokens',
    'total_usd',
    'mean_wall_ms',
    'agents_per_task',
    'calls_per_task',
    'failed',
  ];
  const lines = [head.join(',')];
  for (const m of doc.summary.methods) {
    const scores = [
      { axis: '', value: '', s: m.overall },
      ...m.perValue.map((s) => ({ axis: s.axis, value: String(s.value), s })),
    ];
    for (const { axis, value, s } of scores)
      lines.push(
        [
          m.method,
          axis,
          value,
          s.n,
          s.correct,
          s.accuracy,
          s.ci95[0],
          s.ci95[1],
          s.meanTokens,
          s.totalTokens,
          s.totalCostUsd,
          s.meanWallMs,
          s.agentsPerTask,
          s.callsPerTask,
          s.failed,
        ]
          .map(cell)
          .join(','),
      );
  }
  return lines.join('\n') + '\n';
}

/** A results file read back: validated, with the problems as sentences. */
export function parseEvalDocument(
  text: string,
): { ok: true; doc: EvalDocument } | { ok: false; problems: string[] } {
  if (text.length > MAX_EVAL_CHARS)
    return { ok: false, problems: [`the file is larger than ${MAX_EVAL_CHARS} characters`] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, problems: [`not JSON: ${e instanceof Error ? e.message : String(e)}`] };
  }
  const p = EvalDocumentSchema.safeParse(value);
  if (!p.success)
    return {
      ok: false,
      problems: p.error.issues.slice(0, 10).map((i) => `${i.path.join('.') || '(document)'}: ${i.message}`),
    };
  return { ok: true, doc: p.data };
}
