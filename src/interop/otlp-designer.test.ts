import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTraceValue } from '../core/parse-trace.ts';
import type { Designer, Trace } from '../core/trace.ts';
import { decodeTraceLink, encodeTraceLink } from '../share/index.ts';
import { DESIGNER_SPAN } from './otlp-designer.ts';
import { toOtlpJson } from './otlp-export.ts';
import { importOtlpText } from './otlp-import.ts';

/** A provider wrote the design: two attempts, the first broken; a key pasted into one output. */
const KEY = 'sk-proj-AbCdEfGhIjKlMnOpQrSt123456';
const designer: Designer = {
  kind: 'orchestrator',
  model: 'gpt-4.1-mini',
  parseErrors: [],
  provider: 'https://api.example.com/v1',
  output: 'xml',
  repairTurns: 2,
  valid: true,
  attempts: [
    {
      rawOutput: `<agent>broken, with ${KEY}</agent>`,
      problems: ['rule 4: two sinks'],
      valid: false,
      promptTokens: 900,
      completionTokens: 300,
      costUsd: 0.00084,
      latencyMs: 1200,
      finishReason: 'stop',
    },
    {
      rawOutput: '<agent>fixed</agent>',
      problems: [],
      valid: true,
      promptTokens: 1300,
      completionTokens: 280,
      costUsd: 0.000968,
      latencyMs: 900,
      finishReason: 'stop',
    },
  ],
  usedAttempt: 1,
  usage: { promptTokens: 2200, completionTokens: 580, costUsd: 0.001808, calls: 2 },
};

const example = (): Trace => {
  const r = parseTraceValue(
    JSON.parse(readFileSync(join(import.meta.dirname, '../../public/examples/debate.json'), 'utf8')),
  );
  if (!r.ok) throw new Error('example');
  return r.value;
};

const attr = (s: { attributes?: { key: string; value?: unknown }[] }, key: string): unknown =>
  s.attributes?.find((a) => a.key === key)?.value;

describe("the orchestrator's calls in OTLP and links", () => {
  const trace: Trace = { ...example(), designer };

  it('exports the designer as its own agent span with one GenAI chat span per attempt, before the run', () => {
    const spans = toOtlpJson([trace]).resourceSpans[0]!.scopeSpans![0]!.spans!;
    const mine = spans.filter((s) => attr(s, DESIGNER_SPAN) !== undefined);
    expect(mine.map((s) => s.name)).toEqual([
      'invoke_agent orchestrator',
      'chat gpt-4.1-mini',
      'chat gpt-4.1-mini',
    ]);
    const [agent, a1, a2] = mine;
    const root = spans.find((s) => s.parentSpanId === undefined)!;
    expect(agent!.parentSpanId).toBe(root.spanId);
    expect(a1!.parentSpanId).toBe(agent!.spanId);
    expect(attr(agent!, 'gen_ai.provider.name')).toEqual({ stringValue: 'https://api.example.com/v1' });
    expect(attr(agent!, 'baton.designer.attempts')).toEqual({ intValue: '2' });
    expect(attr(agent!, 'baton.designer.output')).toEqual({ stringValue: 'xml' });
    expect(attr(a1!, 'gen_ai.operation.name')).toEqual({ stringValue: 'chat' });
    expect(attr(a1!, 'gen_ai.usage.input_tokens')).toEqual({ intValue: '900' });
    expect(attr(a2!, 'gen_ai.usage.output_tokens')).toEqual({ intValue: '280' });
    expect(BigInt(a2!.endTimeUnixNano)).toBeLessThanOrEqual(BigInt(root.startTimeUnixNano));
    expect(BigInt(a1!.endTimeUnixNano)).toBeLessThanOrEqual(BigInt(a2!.startTimeUnixNano));
  });

  it('keeps the key out of the export and the link, and both give the trace back', () => {
    const text = JSON.stringify(toOtlpJson([trace]));
    expect(text).not.toContain(KEY);
    const outcome = importOtlpText(text);
    if (!outcome.ok || !outcome.items[0]!.result.ok) throw new Error('import');
    const back = outcome.items[0]!.result.value;
    expect(back.execution).toEqual(trace.execution);
    expect(back.totals).toEqual(trace.totals);
    const d = back.designer;
    expect(d.kind === 'orchestrator' && d.attempts?.map((a) => a.problems)).toEqual([
      ['rule 4: two sinks'],
      [],
    ]);
    expect(JSON.stringify(back)).not.toContain(KEY);

    const link = encodeTraceLink(trace);
    expect(link.fragment).not.toContain(KEY);
    const decoded = decodeTraceLink(link.fragment);
    if (!decoded.ok) throw new Error('link');
    const dd = decoded.value.designer;
    expect(dd.kind === 'orchestrator' && dd.usedAttempt).toBe(1);
    expect(dd.kind === 'orchestrator' && dd.attempts?.[0]?.rawOutput).toBe(
      '<agent>broken, with [redacted]</agent>',
    );
  });
});
