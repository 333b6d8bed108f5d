import { describe, expect, it } from 'vitest';
import { findCycle, longestPath, topoOrder } from './graph.ts';
import { migrateTrace, parseTraceJson, parseTraceValue } from './parse-trace.ts';
import { createRng } from './rng.ts';
import { computeTotals } from './totals.ts';
import type { Design, TraceEvent } from './trace.ts';
import { minimalTrace } from './trace-builders.ts';

describe('graph', () => {
  const edges = [
    { from: 'a', to: 'b' },
    { from: 'a', to: 'c' },
    { from: 'b', to: 'd' },
    { from: 'c', to: 'd' },
  ];
  it('orders a DAG and finds cycles', () => {
    expect(topoOrder(['d', 'c', 'b', 'a'], edges)).toEqual(['a', 'b', 'c', 'd']);
    expect(findCycle(['a', 'b', 'c', 'd'], edges)).toBeNull();
    expect(findCycle(['a', 'b'], [...edges, { from: 'b', to: 'a' }])).toEqual(['a', 'b', 'a']);
  });
  it('weighs the longest path', () => {
    const w: Record<string, number> = { a: 1, b: 5, c: 2, d: 1 };
    expect(longestPath(['a', 'b', 'c', 'd'], edges, (n) => w[n] ?? 0)).toEqual({
      length: 7,
      path: ['a', 'b', 'd'],
    });
  });
});

describe('rng', () => {
  it('is reproducible per seed and differs across seeds', () => {
    const a = createRng(7);
    const b = createRng(7);
    const c = createRng(8);
    const xs = Array.from({ length: 5 }, () => a.next());
    expect(Array.from({ length: 5 }, () => b.next())).toEqual(xs);
    expect(Array.from({ length: 5 }, () => c.next())).not.toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
  });
});

describe('totals', () => {
  it('sums calls and computes wall and critical path', () => {
    const design: Design = {
      dom: 'high',
      agents: ['a', 'b', 'c'].map((id) => ({ id, type: 'CoTAgent', description: '', input: '', params: {} })),
      edges: [
        { from: 'a', to: 'c' },
        { from: 'b', to: 'c' },
      ],
    };
    const call = (t: number, agentId: string): TraceEvent => ({
      type: 'llm.call',
      t,
      agentId,
      callId: `${agentId}-1`,
      model: 'm',
      messages: [],
      output: 'x',
      promptTokens: 10,
      completionTokens: 5,
      latencyMs: 100,
      costUsd: 0.001,
    });
    const events: TraceEvent[] = [
      { type: 'agent.start', t: 0, agentId: 'a', input: '' },
      { type: 'agent.start', t: 0, agentId: 'b', input: '' },
      call(0, 'a'),
      call(0, 'b'),
      { type: 'agent.end', t: 100, agentId: 'a', output: '1' },
      { type: 'agent.end', t: 300, agentId: 'b', output: '2' },
      { type: 'agent.start', t: 300, agentId: 'c', input: '' },
      call(300, 'c'),
      { type: 'agent.end', t: 400, agentId: 'c', output: '3' },
    ];
    const totals = computeTotals(design, events);
    expect(totals).toMatchObject({ promptTokens: 30, completionTokens: 15, llmCalls: 3, wallMs: 400 });
    expect(totals.costUsd).toBeCloseTo(0.003, 9);
    // b (300 ms) then c (100 ms).
    expect(totals.criticalPathMs).toBe(400);
  });
});

describe('parse and migrate traces', () => {
  it('accepts a minimal current trace and rejects others with clear messages', () => {
    const t = minimalTrace({ query: 'What is 2+2?' });
    expect(parseTraceValue(JSON.parse(JSON.stringify(t))).ok).toBe(true);
    const bad = parseTraceJson('{"format":"baton.trace/1","id":"x"}');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.errors[0]?.code).toBe('E_TRACE_SCHEMA');
    const newer = parseTraceJson('{"format":"baton.trace/99"}');
    expect(!newer.ok && newer.errors[0]?.message).toMatch(/newer version of Baton/);
    const notJson = parseTraceJson('{nope');
    expect(!notJson.ok && notJson.errors[0]?.code).toBe('E_JSON');
    const other = parseTraceValue({ slides: [] });
    expect(!other.ok && other.errors[0]?.message).toMatch(/baton\.trace/);
  });

  it('applies numbered migrations in order', () => {
    // A synthetic chain 1 → 2 → 3 exercises the mechanism that real versions will use.
    const migrations = {
      1: (t: unknown) => ({ ...(t as object), format: 'baton.trace/2', renamed: (t as { old: string }).old }),
      2: (t: unknown) => ({ ...(t as object), format: 'baton.trace/3', added: true }),
    };
    const r = migrateTrace({ format: 'baton.trace/1', old: 'v' }, migrations, 3);
    expect(r.ok && r.value).toEqual({ format: 'baton.trace/3', old: 'v', renamed: 'v', added: true });
    const gap = migrateTrace({ format: 'baton.trace/0' }, migrations, 3);
    expect(!gap.ok && gap.errors[0]?.code).toBe('E_TRACE_VERSION_UNKNOWN');
    const throwing = migrateTrace(
      { format: 'baton.trace/1' },
      {
        1: () => {
          throw new Error('boom');
        },
      },
      2,
    );
    expect(!throwing.ok && throwing.errors[0]?.message).toMatch(/boom/);
  });
});
