import { describe, expect, it } from 'vitest';
import { documentOf, type EvalConfig, type EvalRow } from '../../eval/index.ts';
import { encodeJsonLink, LINK_BUDGET_CHARS, MAX_LINK_INPUT_CHARS } from '../../share/index.ts';
import { buildEvalLink, readEvalLink } from './eval-share.ts';

/**
 * The results' share link: the whole document round-trips when it fits; over the budget the link
 * keeps the summary (scores, intervals, pairs, Pareto front) and drops the rows; damaged or
 * foreign links come back as clear errors, never as a throw.
 */
const config: EvalConfig = {
  methods: [
    { kind: 'agent', agent: 'cot' },
    { kind: 'agent', agent: 'sc' },
  ],
  taskSet: { kind: 'masbench', axes: [{ axis: 'depth', values: [2, 6] }], n: 3, seed: 7, split: 'test' },
  seeds: [7],
  backend: { kind: 'simulated' },
  budget: {},
};

/** Rows for `n` tasks per value; correctness and tokens vary with a fixed LCG so numbers differ. */
function rowsFor(n: number): EvalRow[] {
  let s = 12345;
  const next = (): number => (s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const rows: EvalRow[] = [];
  for (const method of ['cot', 'sc'])
    for (const value of [2, 6])
      for (let i = 0; i < n; i++) {
        const tokens = 100 + Math.floor(next() * 900);
        rows.push({
          key: `${method}|masbench-depth-${value}-${i}|7`,
          method,
          taskId: `masbench-depth-${value}-${i}`,
          seed: 7,
          axis: 'depth',
          value,
          traceId: `t-${method}-${value}-${i}-${Math.floor(next() * 1e9).toString(36)}`,
          correct: next() < (method === 'sc' ? 0.7 : 0.5),
          status: 'completed',
          tokens,
          promptTokens: tokens - 50,
          completionTokens: 50,
          costUsd: 0,
          wallMs: Math.floor(next() * 500),
          agents: method === 'sc' ? 5 : 1,
          llmCalls: method === 'sc' ? 6 : 1,
        });
      }
  return rows;
}

const docOf = (n: number) =>
  documentOf({ config, createdAt: '2026-01-01T00:00:00.000Z' }, 4 * n, rowsFor(n), { tokens: 0, usd: 0 });

const BASE = 'https://example.test/baton/';

describe('evaluation share link', () => {
  it('round-trips the whole document, rows included, when it fits', () => {
    const doc = docOf(3);
    const link = buildEvalLink(doc, `${BASE}#/eval`);
    expect(link.rows).toBe('included');
    expect(link.overBudget).toBe(false);
    expect(link.url.startsWith(`${BASE}#e=1.`)).toBe(true);
    expect(link.chars).toBe(link.url.length);
    const back = readEvalLink(link.url);
    expect(back.ok ? [] : back.errors).toEqual([]);
    expect(back.ok && back.value.rows).toBe('included');
    expect(back.ok && back.value.doc).toEqual(doc);
    expect(back.ok && back.value.doc.summary.methods.map((m) => m.overall.accuracy)).toEqual(
      doc.summary.methods.map((m) => m.overall.accuracy),
    );
  });

  it('drops the rows but keeps the summary when the rows do not fit', () => {
    const doc = docOf(1500);
    expect(doc.rows).toHaveLength(6000);
    const link = buildEvalLink(doc, BASE);
    expect(link.rows).toBe('omitted');
    expect(link.rowCount).toBe(6000);
    expect(link.chars).toBeLessThanOrEqual(LINK_BUDGET_CHARS);
    expect(link.overBudget).toBe(false);
    const back = readEvalLink(link.url);
    if (!back.ok) throw new Error(back.errors.map((e) => e.message).join('; '));
    expect(back.value.rows).toBe('omitted');
    expect(back.value.doc.rows).toEqual([]);
    expect(back.value.doc.summary).toEqual(doc.summary);
    expect(back.value.doc.config).toEqual(doc.config);
    expect(back.value.doc.summary.pairs).toHaveLength(1);
    expect(back.value.doc.summary.methods[0]?.perValue).toHaveLength(2);
  });

  it('uses the budget it is given', () => {
    const doc = docOf(3);
    const full = buildEvalLink(doc, BASE);
    const tight = buildEvalLink(doc, BASE, full.chars - 1);
    expect(tight.rows).toBe('omitted');
    expect(tight.chars).toBeLessThan(full.chars);
  });

  it('reads damaged and foreign links as clear errors', () => {
    const good = buildEvalLink(docOf(3), BASE).url;
    const cases: [string, string, RegExp][] = [
      [good.slice(0, Math.floor(good.length / 2)), 'E_LINK', /not valid/],
      [`${BASE}#e=1.@@@@`, 'E_LINK', /not valid/],
      [`${BASE}#e=2.abc`, 'E_LINK', /format 2/],
      [`${BASE}#r=1.abc`, 'E_LINK', /no "#e=" part/],
      [`${BASE}#e=1.`, 'E_LINK', /empty/],
      [
        BASE + encodeJsonLink({ rows: 'included', doc: { format: 'x' } }, 'e').fragment,
        'E_EVAL_LINK',
        /format/,
      ],
      [BASE + encodeJsonLink([1, 2, 3], 'e').fragment, 'E_EVAL_LINK', /usable evaluation/],
      ['e'.repeat(MAX_LINK_INPUT_CHARS + 1), 'E_TOO_LARGE', /limit/],
    ];
    for (const [input, code, message] of cases) {
      const r = readEvalLink(input);
      expect(r.ok, input.slice(0, 60)).toBe(false);
      if (r.ok) continue;
      expect(r.errors[0]?.code, input.slice(0, 60)).toBe(code);
      expect(r.errors[0]?.message).toMatch(message);
    }
  });
});
