import { describe, expect, it } from 'vitest';
import { MAX_IMPORT_NOTES, TraceSchema } from '../core/trace.ts';
import { minimalTrace } from '../core/trace-builders.ts';
import { importText } from './index.ts';
import { withImportNotes } from './notes.ts';

const trace = minimalTrace({
  id: 't',
  query: 'Q?',
  groundTruth: null,
  source: { kind: 'custom' },
  designer: { kind: 'manual' },
});

describe('importer notes on the trace', () => {
  it('carries every warning of an imported slide onto its trace, as the CLI prints them', () => {
    const slide = {
      row: 2,
      step: 'final',
      question: 'Q?',
      mas_code: '',
      image: 'data:image/gif;base64,R0lGOD==',
      error: false,
      execution_output: '1',
      ground_truth: '1',
    };
    const outcome = importText(JSON.stringify([slide]), 'qwen2.5_7b_oss_20b_high_depth3.json');
    expect(outcome.ok).toBe(true);
    const item = outcome.ok ? outcome.items[0] : undefined;
    expect(item?.result.ok).toBe(true);
    if (!item?.result.ok) return;
    expect(item.result.warnings.length).toBeGreaterThanOrEqual(2);
    expect(item.result.value.importNotes?.map((n) => n.message)).toEqual(
      item.result.warnings.map((w) => w.message),
    );
    expect(TraceSchema.parse(item.result.value)).toEqual(item.result.value);
  });

  it('keeps notes already on a trace, repeats none, and caps the list with a count', () => {
    const once = withImportNotes(trace, [{ code: 'E_X', message: 'a' }]);
    const twice = withImportNotes(once, [
      { code: 'E_X', message: 'a' },
      { code: 'E_Y', message: 'b', path: 'row 1' },
    ]);
    expect(twice.importNotes).toEqual([
      { code: 'E_X', message: 'a' },
      { code: 'E_Y', message: 'b', path: 'row 1' },
    ]);
    expect(withImportNotes(trace, [])).toBe(trace);
    const many = withImportNotes(
      trace,
      Array.from({ length: 250 }, (_, i) => ({ code: 'E_X', message: `note ${i}` })),
    );
    expect(many.importNotes).toHaveLength(MAX_IMPORT_NOTES);
    expect(many.importNotes?.at(-1)?.message).toBe('…and 51 more notes, left out to keep the trace small.');
    expect(TraceSchema.safeParse(many).success).toBe(true);
  });
});
