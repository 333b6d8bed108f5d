/**
 * The orchestrator's own calls in an OTLP export: when a provider wrote the design (a designer
 * record with `attempts`, docs/orchestrator.md), the root span gets a child
 *
 *   invoke_agent orchestrator       the designer: provider, model, attempts, the attempt used   AGENT
 *   └ chat <model>                  one per attempt: tokens, cost, raw output, problems         LLM (CLIENT)
 *
 * placed before the run (they end where the run's time 0 is). The spans are marked
 * `baton.designer.span`, and the importer leaves them out: the designer record on the root span
 * already holds everything, so an import gives the same trace back. Pure.
 */
import type { Trace } from '../core/trace.ts';
import { GENAI, OI, OPERATION } from './attributes.ts';
import { otlpSpanId } from './ids.ts';
import type { KeyValue, OtlpSpan } from './otlp-schema.ts';

/** Marks the spans this module writes (the importer skips them). */
export const DESIGNER_SPAN = 'baton.designer.span';

type Value = string | number | boolean | readonly string[] | null | undefined;

function attrs(pairs: readonly (readonly [string, Value])[]): KeyValue[] {
  const out: KeyValue[] = [];
  for (const [key, v] of pairs) {
    if (v === undefined || v === null) continue;
    const value =
      typeof v === 'string'
        ? { stringValue: v }
        : typeof v === 'boolean'
          ? { boolValue: v }
          : typeof v === 'number'
            ? Number.isInteger(v)
              ? { intValue: String(v) }
              : { doubleValue: v }
            : { arrayValue: { values: v.map((s) => ({ stringValue: s })) } };
    out.push({ key, value });
  }
  return out;
}

/** The designer's spans, or none when no provider wrote the design. `at(t)`: nanoseconds of run time t (ms). */
export function designerSpans(
  trace: Trace,
  ids: { traceId: string; rootId: string },
  at: (tMs: number) => string,
): OtlpSpan[] {
  const d = trace.designer;
  if (d.kind !== 'orchestrator' || !d.attempts || d.attempts.length === 0) return [];
  const provider = d.provider ?? 'unknown';
  const total = d.attempts.reduce((s, a) => s + a.latencyMs, 0);
  const spanId = otlpSpanId(trace.id, 'designer');
  const failed = d.usedAttempt === null || d.usedAttempt === undefined;
  const spans: OtlpSpan[] = [
    {
      traceId: ids.traceId,
      spanId,
      parentSpanId: ids.rootId,
      name: `${OPERATION.invokeAgent} orchestrator`,
      kind: 1,
      startTimeUnixNano: at(-total),
      endTimeUnixNano: at(0),
      attributes: attrs([
        [GENAI.operation, OPERATION.invokeAgent],
        [GENAI.agentId, 'orchestrator'],
        [GENAI.agentName, 'orchestrator'],
        [GENAI.provider, provider],
        [GENAI.requestModel, d.model],
        [GENAI.inputTokens, d.usage?.promptTokens],
        [GENAI.outputTokens, d.usage?.completionTokens],
        [OI.spanKind, 'AGENT'],
        ['baton.designer.attempts', d.attempts.length],
        ['baton.designer.used_attempt', d.usedAttempt ?? null],
        ['baton.designer.repair_turns', d.repairTurns],
        ['baton.designer.output', d.output],
        ['baton.designer.output_fallback', d.outputFallback],
        ['baton.designer.failure', d.failure],
        ['baton.cost_usd', d.usage?.costUsd],
        [DESIGNER_SPAN, true],
      ]),
      events: [],
      links: [],
      status: failed ? { code: 2, message: d.failure ?? 'no valid design' } : { code: 0 },
    },
  ];
  let t = -total;
  d.attempts.forEach((a, i) => {
    spans.push({
      traceId: ids.traceId,
      spanId: otlpSpanId(trace.id, `designer\u0002${i}`),
      parentSpanId: spanId,
      name: `${OPERATION.chat} ${d.model}`,
      kind: 3,
      startTimeUnixNano: at(t),
      endTimeUnixNano: at(t + a.latencyMs),
      attributes: attrs([
        [GENAI.operation, OPERATION.chat],
        [GENAI.provider, provider],
        [GENAI.system, provider],
        [GENAI.requestModel, d.model],
        [GENAI.inputTokens, a.promptTokens],
        [GENAI.outputTokens, a.completionTokens],
        [GENAI.agentId, 'orchestrator'],
        [
          GENAI.outputMessages,
          JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: a.rawOutput }] }]),
        ],
        [GENAI.errorType, a.error ? 'llm_error' : null],
        [OI.spanKind, 'LLM'],
        [OI.modelName, d.model],
        [OI.outputValue, a.rawOutput],
        ['baton.cost_usd', a.costUsd],
        ['baton.designer.attempt', i],
        ['baton.designer.valid', a.valid],
        ['baton.designer.problems', a.problems],
        ['baton.call.error', a.error],
        [DESIGNER_SPAN, true],
      ]),
      events: [],
      links: [],
      status: a.error ? { code: 2, message: a.error } : { code: 0 },
    });
    t += a.latencyMs;
  });
  return spans;
}
