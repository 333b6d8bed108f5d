import { describe, expect, it } from 'vitest';
import type { Trace, TraceEvent } from '../core/trace.ts';
import { foreignCrewExport, FOREIGN_TRACE_ID } from '../../tests/support/otlp-samples.ts';
import { importOtlpText, importOtlpValue, looksLikeOtlp } from './otlp-import.ts';

function importOne(value: unknown): { trace: Trace; warnings: string[] } {
  const outcome = importOtlpValue(value);
  if (!outcome.ok) throw new Error(outcome.error.message);
  expect(outcome.items).toHaveLength(1);
  const r = outcome.items[0]!.result;
  if (!r.ok) throw new Error(r.errors.map((e) => e.message).join('; '));
  return { trace: r.value, warnings: r.warnings.map((w) => w.message) };
}

const notes = (t: Trace, kind: string): Extract<TraceEvent, { type: 'agent.note' }>[] =>
  t.execution.events.filter(
    (e): e is Extract<TraceEvent, { type: 'agent.note' }> => e.type === 'agent.note' && e.kind === kind,
  );

describe('importing OTLP/JSON from instrumented agent frameworks', () => {
  it('recognises an OTLP export', () => {
    expect(looksLikeOtlp(foreignCrewExport())).toBe(true);
    expect(looksLikeOtlp({ format: 'baton.trace/1' })).toBe(false);
  });

  it('maps agents, LLM calls, tokens, timings and nesting', () => {
    const { trace } = importOne(foreignCrewExport());
    expect(trace.design.agents.map((a) => a.id)).toEqual(['researcher', 'writer']);
    expect(trace.design.agents[1]!.description).toBe('Writes the final summary.');
    // The nested agent feeds the one that invoked it.
    expect(trace.design.edges).toEqual([{ from: 'writer', to: 'researcher' }]);
    const calls = trace.execution.events.filter((e) => e.type === 'llm.call');
    expect(calls).toHaveLength(2);
    const [first, second] = calls as Extract<TraceEvent, { type: 'llm.call' }>[];
    expect(first).toMatchObject({
      agentId: 'researcher',
      model: 'gpt-4o-mini-2024-07-18',
      promptTokens: 41,
      completionTokens: 87,
      t: 20,
      latencyMs: 1200,
      output: 'Rayleigh scattering: shorter wavelengths scatter more.',
    });
    expect(first!.messages).toEqual([
      { role: 'system', content: 'You research facts.' },
      { role: 'user', content: 'Why is the sky blue?' },
    ]);
    expect(second).toMatchObject({
      agentId: 'writer',
      model: 'gpt-4o',
      promptTokens: 120,
      completionTokens: 33,
      t: 2000,
      latencyMs: 2900,
    });
    expect(trace.totals).toMatchObject({
      promptTokens: 161,
      completionTokens: 120,
      llmCalls: 2,
      wallMs: 5200,
    });
    expect(trace.title).toBe('crew');
    expect(trace.task.query).toBe('Write a two-sentence summary of why the sky is blue.');
    expect(trace.result.finalAnswer).toBe('Sunlight scatters off air molecules; blue scatters most.');
    expect(trace.execution.backend).toEqual({
      kind: 'imported',
      tool: 'OpenTelemetry (crew-demo)',
      model: 'gpt-4o-mini-2024-07-18',
    });
    expect(trace.execution.startedAt).toBe('2026-11-01T10:00:00.000Z');
    expect(trace.task.source).toEqual({
      kind: 'imported',
      tool: 'OpenTelemetry (crew-demo)',
      ref: FOREIGN_TRACE_ID,
    });
  });

  it('keeps what it cannot map as notes and says so', () => {
    const { trace, warnings } = importOne(foreignCrewExport());
    const unmapped = notes(trace, 'otel.unmapped')
      .map((n) => n.text)
      .join('\n');
    expect(unmapped).toContain('llm.is_streaming');
    expect(unmapped).toContain('host.name');
    const spans = notes(trace, 'otel.span');
    expect(spans).toHaveLength(1);
    expect(spans[0]!.agentId).toBe('researcher');
    expect(spans[0]!.text).toContain('rayleigh scattering');
    const events = notes(trace, 'otel.event');
    expect(events.map((n) => n.agentId)).toEqual(['writer']);
    expect(events[0]!.text).toContain('handoff');
    expect(warnings.join(' ')).toMatch(
      /2 attributes no rule maps, 1 span that are neither agents nor LLM calls, 1 other span event/,
    );
    // Attributes a rule read (tokens, prompts, the OpenLLMetry kinds) are not repeated as notes.
    expect(unmapped).not.toContain('gen_ai.usage.prompt_tokens');
    expect(unmapped).not.toContain('traceloop.span.kind');
  });

  it('makes an agent of LLM calls that have none above them', () => {
    const bare = foreignCrewExport() as {
      resourceSpans: { scopeSpans: { spans: { spanId: string; parentSpanId?: string }[] }[] }[];
    };
    const spans = bare.resourceSpans[0]!.scopeSpans[0]!.spans.filter((s) => s.spanId === '1000000000000003');
    delete spans[0]!.parentSpanId;
    bare.resourceSpans[0]!.scopeSpans[0]!.spans = spans;
    const { trace } = importOne(bare);
    expect(trace.design.agents).toHaveLength(1);
    expect(trace.execution.events.filter((e) => e.type === 'llm.call')).toHaveLength(1);
  });

  it('refuses what is not an OTLP trace export, with a message', () => {
    for (const text of [
      '',
      '[]',
      '{"resourceSpans": 3}',
      '{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "zz"}]}]}]}',
      '{"resourceSpans": []}',
    ]) {
      const outcome = importOtlpText(text);
      expect(outcome.ok, text).toBe(false);
      if (!outcome.ok) expect(outcome.error.message.length).toBeGreaterThan(10);
    }
  });

  it('reports a trace with spans but no agent or LLM call as an item that failed', () => {
    const outcome = importOtlpValue({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  traceId: FOREIGN_TRACE_ID,
                  spanId: '1000000000000001',
                  name: 'GET /',
                  startTimeUnixNano: '1',
                  endTimeUnixNano: '2',
                },
              ],
            },
          ],
        },
      ],
    });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    const r = outcome.items[0]!.result;
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]!.message).toMatch(/no agent or LLM call/);
  });
});
