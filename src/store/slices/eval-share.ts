/**
 * Sharing an evaluation's results, next to the Evaluate slice (eval.ts) and reading its document:
 *
 * - "Share": the results as a `#e=1.…` link (services/eval-share.ts), the per-task rows only when
 *   they fit;
 * - the read-only view of a shared evaluation: the decoded, validated document, or why the link
 *   could not be read;
 * - "Download OTLP": every trace of the results (from memory or the evaluation journal) in one
 *   OTLP/JSON file; src/interop loads on first use, and it removes secrets.
 */
import { problemOf } from '../../core/errors.ts';
import type { Problem } from '../../core/result.ts';
import type { Trace } from '../../core/trace.ts';
import type { EvalDocument } from '../../eval/index.ts';
import { otlpJsonOfTraces } from '../interop.ts';
import { buildEvalLink, readEvalLink, type EvalLink, type SharedEval } from '../services/eval-share.ts';
import type { SliceCreator } from '../store.ts';
import { evalJournal } from './eval.ts';

export { rowsNote, type EvalLink, type RowsInLink } from '../services/eval-share.ts';

export interface EvalOtlpFile {
  name: string;
  text: string;
  /** Traces in the file. */
  traces: number;
  /** Rows whose trace is not kept in this browser (results opened from a file or a link). */
  missing: number;
}

export interface EvalShareSlice {
  /** The link made by "Share" and the results it was made from (null until made). */
  evalShareLink: (EvalLink & { doc: EvalDocument }) | null;
  /** The shared results shown read-only, or why the link could not be read. */
  evalShared: ({ input: string } & SharedEval) | { input: string; problems: Problem[] } | null;
  /** Why the last OTLP export failed, if it did. */
  evalOtlpProblems: Problem[];
  shareEval(base: string): EvalLink | null;
  /** Decodes `#e=…` for the read-only view (the same input again is a no-op). */
  openEvalLink(input: string): void;
  /** Every trace of the current results as one OTLP/JSON file, or null with the problem set. */
  exportEvalOtlp(): Promise<EvalOtlpFile | null>;
}

export const createEvalShareSlice: SliceCreator<EvalShareSlice> = (set, get) => ({
  evalShareLink: null,
  evalShared: null,
  evalOtlpProblems: [],

  shareEval(base) {
    const doc = get().evalDoc;
    if (!doc) return null;
    const link = buildEvalLink(doc, base);
    set({ evalShareLink: { ...link, doc } });
    return link;
  },

  openEvalLink(input) {
    if (get().evalShared?.input === input) return;
    const r = readEvalLink(input);
    set({ evalShared: r.ok ? { input, ...r.value } : { input, problems: r.errors } });
  },

  async exportEvalOtlp() {
    const doc = get().evalDoc;
    const fail = (detail: string): null => {
      set({ evalOtlpProblems: [problemOf('E_EVAL_OTLP', detail)] });
      return null;
    };
    if (!doc) return fail('there are no results');
    const ids = [...new Set(doc.rows.map((r) => r.traceId))];
    const traces: Trace[] = [];
    let missing = 0;
    try {
      for (const id of ids) {
        const t = get().openTraces[id] ?? (await evalJournal().trace(id));
        if (t) traces.push(t);
        else missing++;
      }
    } catch (e) {
      return fail(`the traces could not be read (${e instanceof Error ? e.message : String(e)})`);
    }
    if (traces.length === 0)
      return fail(
        ids.length === 0
          ? 'the results have no per-task rows'
          : `none of the ${ids.length} traces is kept in this browser (results opened from a file or a link)`,
      );
    try {
      const text = await otlpJsonOfTraces(traces);
      set({ evalOtlpProblems: [] });
      return { name: 'evaluation.otlp.json', text, traces: traces.length, missing };
    } catch (e) {
      return fail(e instanceof Error ? e.message : String(e));
    }
  },
});
