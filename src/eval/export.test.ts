import { describe, expect, it } from 'vitest';
import { parseEvalDocument, rowsCsv, summaryCsv } from './export.ts';
import { documentOf } from './harness.ts';
import type { EvalConfig, EvalRow } from './schema.ts';

const config: EvalConfig = {
  methods: [
    { kind: 'design', name: '=HYPERLINK("x"),a.json', design: { dom: 'low', agents: [], edges: [] } },
  ],
  taskSet: { kind: 'jsonl', name: 'q.jsonl' },
  seeds: [0],
  backend: { kind: 'simulated' },
  budget: {},
};
const row: EvalRow = {
  key: 'k',
  method: 'design:=HYPERLINK("x"),a.json',
  taskId: 'q-1',
  seed: 0,
  axis: null,
  value: null,
  traceId: 't-1',
  correct: true,
  status: 'completed',
  tokens: 10,
  promptTokens: 8,
  completionTokens: 2,
  costUsd: 0,
  wallMs: 3,
  agents: 1,
  llmCalls: 1,
};

describe('exports', () => {
  const doc = documentOf({ config, createdAt: '2026-01-01T00:00:00.000Z' }, 1, [row], { tokens: 0, usd: 0 });
  it('quotes CSV fields with commas and quotes', () => {
    const csv = rowsCsv(doc).trim().split('\n');
    expect(csv).toHaveLength(2);
    expect(csv[1]).toBe('"design:=HYPERLINK(""x""),a.json",q-1,0,,,true,completed,10,8,2,0,3,1,1,t-1');
    expect(summaryCsv(doc).split('\n')[1]).toMatch(/^"design:=HYPERLINK/);
  });
  it('keeps a spreadsheet from reading a field as a formula', () => {
    const d2 = documentOf(
      { config, createdAt: '2026-01-01T00:00:00.000Z' },
      1,
      [{ ...row, method: '=1+1' }],
      { tokens: 0, usd: 0 },
    );
    expect(rowsCsv(d2).split('\n')[1]?.startsWith("'=1+1,")).toBe(true);
  });
  it('reads a document back and refuses what is not one', () => {
    const back = parseEvalDocument(JSON.stringify(doc));
    expect(back.ok && back.doc.rows).toEqual([row]);
    expect(parseEvalDocument('{').ok).toBe(false);
    const bad = parseEvalDocument(JSON.stringify({ ...doc, rows: [{ ...row, tokens: -1 }] }));
    expect(bad.ok).toBe(false);
  });
});
