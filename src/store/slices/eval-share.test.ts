import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { parseTraceValue } from '../../core/parse-trace.ts';
import type { Trace } from '../../core/trace.ts';
import { documentOf, type EvalConfig, type EvalRow } from '../../eval/index.ts';
import { otlpTraceId, StrictExportTraceServiceRequestSchema, toOtlpJson } from '../../interop/index.ts';
import { memoryEvalJournal } from '../services/eval.ts';
import { resetBaton, useBaton } from '../store.ts';
import { configureEvalJournal } from './eval.ts';

/**
 * The eval-share slice: "Share" makes a link the read-only view reads back, and "Download OTLP"
 * puts every trace of the results (read from the evaluation journal) in one OTLP/JSON file with
 * one resource and one scope, with no API key, and says how many traces it could not find.
 */
const EXAMPLES = join(import.meta.dirname, '../../../public/examples');
const index = JSON.parse(readFileSync(join(EXAMPLES, 'index.json'), 'utf8')) as {
  examples: { file: string }[];
};
const examples: Trace[] = index.examples.slice(0, 3).map(({ file }) => {
  const r = parseTraceValue(JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')));
  if (!r.ok) throw new Error(file);
  return r.value;
});

const KEY = 'sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
/** The first trace with a key pasted into an agent's params, as a careless design might. */
const leaky: Trace[] = examples.map((t, i) =>
  i === 0
    ? {
        ...t,
        design: {
          ...t.design,
          agents: t.design.agents.map((a, j) =>
            j === 0 ? { ...a, params: { ...a.params, apiKey: KEY } } : a,
          ),
        },
      }
    : t,
);

const config: EvalConfig = {
  methods: [{ kind: 'agent', agent: 'cot' }],
  taskSet: { kind: 'traces', name: 'examples' },
  seeds: [0],
  backend: { kind: 'simulated' },
  budget: {},
};
const rowOf = (traceId: string, i: number): EvalRow => ({
  key: `cot|task-${i}|0`,
  method: 'cot',
  taskId: `task-${i}`,
  seed: 0,
  axis: null,
  value: null,
  traceId,
  correct: i % 2 === 0,
  status: 'completed',
  tokens: 10,
  promptTokens: 8,
  completionTokens: 2,
  costUsd: 0,
  wallMs: 1,
  agents: 1,
  llmCalls: 1,
});

const previous = configureEvalJournal(memoryEvalJournal());
afterAll(() => {
  configureEvalJournal(previous);
});
beforeEach(() => {
  resetBaton();
});

async function withResults(missing: number): Promise<void> {
  const journal = memoryEvalJournal();
  configureEvalJournal(journal);
  const rows = leaky.map((t, i) => rowOf(t.id, i));
  for (let i = 0; i < missing; i++) rows.push(rowOf(`not-kept-${i}`, leaky.length + i));
  for (const [i, t] of leaky.entries()) await journal.add(config, rows[i]!, t);
  useBaton.setState({
    evalDoc: documentOf({ config, createdAt: '2026-01-01T00:00:00.000Z' }, rows.length, rows, {
      tokens: 0,
      usd: 0,
    }),
  });
}

describe('Download OTLP of an evaluation', () => {
  it('has one resource and one scope with every trace’s spans, and no key', async () => {
    await withResults(1);
    const f = await useBaton.getState().exportEvalOtlp();
    if (!f) throw new Error(JSON.stringify(useBaton.getState().evalOtlpProblems));
    expect(f.traces).toBe(3);
    expect(f.missing).toBe(1);
    const parsed = StrictExportTraceServiceRequestSchema.safeParse(JSON.parse(f.text));
    expect(parsed.success ? [] : parsed.error.issues.slice(0, 3)).toEqual([]);
    const req = JSON.parse(f.text) as ReturnType<typeof toOtlpJson>;
    expect(req.resourceSpans).toHaveLength(1);
    expect(req.resourceSpans[0]?.scopeSpans).toHaveLength(1);
    const spans = req.resourceSpans[0]!.scopeSpans![0]!.spans!;
    for (const t of examples) {
      const alone = toOtlpJson([t]).resourceSpans[0]!.scopeSpans![0]!.spans!;
      expect(alone.length).toBeGreaterThan(0);
      expect(spans.filter((s) => s.traceId === otlpTraceId(t.id))).toHaveLength(alone.length);
    }
    expect(JSON.stringify(leaky[0])).toContain(KEY);
    expect(f.text).not.toContain(KEY);
    expect(f.text).not.toContain('AbCdEfGhIjKlMnOp');
  });

  it('says why when no trace of the results is kept here', async () => {
    useBaton.setState({
      evalDoc: documentOf({ config, createdAt: '2026-01-01T00:00:00.000Z' }, 1, [rowOf('gone', 0)], {
        tokens: 0,
        usd: 0,
      }),
    });
    expect(await useBaton.getState().exportEvalOtlp()).toBeNull();
    const p = useBaton.getState().evalOtlpProblems;
    expect(p[0]?.code).toBe('E_EVAL_OTLP');
    expect(p[0]?.message).toMatch(/none of the 1 traces/);
  });
});

describe('Share through the slice', () => {
  it('makes a link the read-only view reads back, and shows a bad link as an error', async () => {
    await withResults(0);
    const doc = useBaton.getState().evalDoc!;
    const link = useBaton.getState().shareEval('https://example.test/#/eval');
    expect(link?.rows).toBe('included');
    expect(useBaton.getState().evalShareLink?.doc).toBe(doc);
    useBaton.getState().openEvalLink(link!.url);
    const shared = useBaton.getState().evalShared;
    expect(shared && 'doc' in shared && shared.doc.summary).toEqual(doc.summary);
    expect(shared && 'doc' in shared && shared.doc.rows).toEqual(doc.rows);
    useBaton.getState().openEvalLink('#e=1.broken');
    const bad = useBaton.getState().evalShared;
    expect(bad && 'problems' in bad && bad.problems[0]?.code).toBe('E_LINK');
  });
});
