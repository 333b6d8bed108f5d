import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTraceValue } from '../core/parse-trace.ts';
import type { Trace } from '../core/trace.ts';
import { toOtlpJson } from './otlp-export.ts';
import { importOtlpText, importOtlpValue } from './otlp-import.ts';
import { StrictExportTraceServiceRequestSchema } from './otlp-schema.ts';

/**
 * Must-show 3: every bundled example exports to OTLP/JSON that validates against the OTLP JSON
 * schema (otlp-schema.ts, from opentelemetry-proto) and comes back through the importer with its
 * agents, calls, tokens and timings.
 */
const EXAMPLES = join(import.meta.dirname, '../../public/examples');
const index = JSON.parse(readFileSync(join(EXAMPLES, 'index.json'), 'utf8')) as {
  examples: { file: string }[];
};
const examples: Trace[] = index.examples.map(({ file }) => {
  const r = parseTraceValue(JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')));
  if (!r.ok) throw new Error(`${file}: ${r.errors.map((e) => e.message).join('; ')}`);
  return r.value;
});

function attr(span: { attributes?: { key: string; value?: unknown }[] }, key: string): unknown {
  return span.attributes?.find((a) => a.key === key)?.value;
}

describe('OTLP export of the bundled examples', () => {
  it('there are examples to check', () => {
    expect(examples.length).toBeGreaterThanOrEqual(6);
  });

  it.each(examples.map((t) => [t.id, t] as const))(
    '%s validates against the OTLP/JSON schema',
    (_id, trace) => {
      const req = toOtlpJson([trace]);
      const parsed = StrictExportTraceServiceRequestSchema.safeParse(JSON.parse(JSON.stringify(req)));
      expect(parsed.success ? [] : parsed.error.issues.slice(0, 3)).toEqual([]);
      const spans = req.resourceSpans[0]!.scopeSpans![0]!.spans!;
      const calls = trace.execution.events.filter((e) => e.type === 'llm.call');
      const ops = spans.map((s) => (attr(s, 'gen_ai.operation.name') as { stringValue: string }).stringValue);
      expect(ops.filter((o) => o === 'chat')).toHaveLength(calls.length);
      expect(ops.filter((o) => o === 'invoke_agent')).toHaveLength(trace.design.agents.length);
      expect(ops.filter((o) => o === 'invoke_workflow')).toHaveLength(1);
      // One trace id, unique span ids, every parent present.
      expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
      const ids = new Set(spans.map((s) => s.spanId));
      expect(ids.size).toBe(spans.length);
      for (const s of spans) if (s.parentSpanId) expect(ids.has(s.parentSpanId)).toBe(true);
      // Links carry the design's edges.
      expect(spans.flatMap((s) => s.links ?? [])).toHaveLength(trace.design.edges.length);
      // OpenInference beside the GenAI names on every LLM span.
      for (const s of spans.filter(
        (x) =>
          attr(x, 'gen_ai.operation.name') !== undefined &&
          (attr(x, 'gen_ai.operation.name') as { stringValue: string }).stringValue === 'chat',
      )) {
        expect(attr(s, 'openinference.span.kind')).toEqual({ stringValue: 'LLM' });
        expect(attr(s, 'llm.token_count.prompt')).toEqual(attr(s, 'gen_ai.usage.input_tokens'));
        expect(attr(s, 'llm.model_name')).toEqual(attr(s, 'gen_ai.request.model'));
      }
    },
  );

  it.each(examples.map((t) => [t.id, t] as const))('%s round-trips through the importer', (_id, trace) => {
    const text = JSON.stringify(toOtlpJson([trace]));
    const outcome = importOtlpText(text);
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.items).toHaveLength(1);
    const r = outcome.items[0]!.result;
    if (!r.ok) throw new Error(r.errors.map((e) => e.message).join('; '));
    const back = r.value;
    // Nothing was left unmapped from Baton's own export.
    expect(r.warnings).toEqual([]);
    expect(back.design).toEqual(trace.design);
    expect(back.execution).toEqual(trace.execution);
    expect(back.totals).toEqual(trace.totals);
    // Everything else too (the examples hold no secrets, so redaction changes nothing).
    expect(back).toEqual(trace);
  });

  it('exports an evaluation (many traces) as one request, one trace id each, and imports them all', () => {
    const req = toOtlpJson(examples);
    const spans = req.resourceSpans[0]!.scopeSpans![0]!.spans!;
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(examples.length);
    const outcome = importOtlpValue(JSON.parse(JSON.stringify(req)));
    expect(outcome.ok && outcome.items.map((i) => (i.result.ok ? i.result.value.id : null))).toEqual(
      examples.map((t) => t.id),
    );
  });

  it('is deterministic: the same trace gives the same bytes', () => {
    expect(JSON.stringify(toOtlpJson(examples))).toBe(JSON.stringify(toOtlpJson(examples)));
  });

  it('keeps API keys out of the export', () => {
    const base = examples[0]!;
    const key = 'sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
    const leaky: Trace = {
      ...base,
      design: {
        ...base.design,
        agents: base.design.agents.map((a, i) =>
          i === 0 ? { ...a, params: { ...a.params, apiKey: key, note: `Authorization: Bearer ${key}` } } : a,
        ),
      },
      execution: {
        ...base.execution,
        events: base.execution.events.map((e) =>
          e.type === 'llm.call'
            ? { ...e, messages: [...e.messages, { role: 'user' as const, content: `my key is ${key}` }] }
            : e,
        ),
      },
    };
    expect(JSON.stringify(leaky)).toContain(key);
    const text = JSON.stringify(toOtlpJson([leaky]));
    expect(text).not.toContain(key);
    expect(text).not.toContain('AbCdEfGhIjKlMnOp');
    expect(text).toContain('[redacted]');
  });
});
