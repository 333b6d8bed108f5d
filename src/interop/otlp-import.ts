import { describe } from '../core/errors.ts';
import { zodProblems } from '../core/parse-trace.ts';
import type { Problem, Result } from '../core/result.ts';
import type { Trace } from '../core/trace.ts';
import { Attrs, toBig } from './otlp-attrs.ts';
import { ExportTraceServiceRequestSchema } from './otlp-schema.ts';
import type { SpanInfo } from './otlp-spans.ts';
import { traceOf } from './otlp-trace.ts';

export { anyToJs } from './otlp-attrs.ts';

/**
 * OTLP/JSON → Baton traces. Reads exports of agent frameworks instrumented with OpenTelemetry's
 * GenAI conventions, OpenLLMetry or OpenInference, and Baton's own exports (otlp-export.ts), which
 * come back whole. One Baton trace per OTLP trace id:
 *
 * - agents: spans with `gen_ai.operation.name = invoke_agent`, `openinference.span.kind = AGENT`
 *   or `traceloop.span.kind = agent`; an LLM span with no agent above it belongs to its nearest
 *   non-LLM ancestor, which becomes an agent, or is an agent of its own when it has none;
 * - LLM calls: `chat` / `text_completion` / `generate_content` spans, OpenInference `LLM` spans, or
 *   spans that name a request model; messages from `gen_ai.input.messages` /
 *   `gen_ai.output.messages`, else OpenInference's or OpenLLMetry's flattened lists; tokens from
 *   `gen_ai.usage.*` (or the older `prompt_tokens` names, or `llm.token_count.*`); timings from the
 *   span times (ms since the earliest span);
 * - edges: span links between agent spans; without links, a nested agent feeds its parent agent.
 *
 * Nothing is dropped silently: attributes no rule reads, span events that are not Baton's, and
 * spans that are neither agents nor LLM calls (tools, retrievers…) are kept as `agent.note` events
 * of kind `otel.unmapped`, `otel.event` and `otel.span` on the nearest agent, which the viewer shows
 * in the timeline and the inspector; each imported trace's warnings count them. Pure and total:
 * never throws, whatever the input.
 *
 * One file per part: otlp-attrs.ts (reading attributes), otlp-messages.ts (messages and output in
 * each convention's format), otlp-spans.ts (the span graph: agents, LLM calls, ids),
 * otlp-events.ts (agents' events, LLM calls, span events, edges), otlp-trace.ts (the root span and
 * the trace); this file is the front door.
 */

export const OTLP_IMPORT_LIMITS = {
  /** Characters of text read (as the other importers). */
  chars: 64 * 1024 * 1024,
  /** Traces in one file. */
  traces: 10_000,
} as const;

/** Same contract as the importers' items (src/importers/types.ts). */
export interface OtlpImportItem {
  label: string;
  result: Result<Trace>;
}
export type OtlpImportOutcome = { ok: true; items: OtlpImportItem[] } | { ok: false; error: Problem };

/** True for a value shaped like an OTLP/JSON trace export: `{"resourceSpans": [...]}`. */
export function looksLikeOtlp(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Array.isArray((value as { resourceSpans?: unknown }).resourceSpans)
  );
}
// ---------------------------------------------------------------- the front door

function fileError(code: 'E_OTLP_SCHEMA' | 'E_TOO_LARGE' | 'E_JSON', detail: string): OtlpImportOutcome {
  return { ok: false, error: { code, message: describe(code, detail) } };
}

/** An already parsed OTLP/JSON export → one item per OTLP trace id. Never throws. */
export function importOtlpValue(value: unknown): OtlpImportOutcome {
  try {
    const parsed = ExportTraceServiceRequestSchema.safeParse(value);
    if (!parsed.success) {
      const problems = zodProblems(parsed.error, 'E_OTLP_SCHEMA', 5);
      return fileError('E_OTLP_SCHEMA', problems.map((p) => p.message).join('; '));
    }
    const groups = new Map<string, SpanInfo[]>();
    for (const rs of parsed.data.resourceSpans ?? []) {
      const resource = new Attrs(rs.resource?.attributes);
      for (const ss of rs.scopeSpans ?? []) {
        for (const span of ss.spans ?? []) {
          const key = span.traceId.toLowerCase();
          let g = groups.get(key);
          if (!g) {
            if (groups.size >= OTLP_IMPORT_LIMITS.traces) {
              return fileError('E_TOO_LARGE', `more than ${OTLP_IMPORT_LIMITS.traces} traces`);
            }
            g = [];
            groups.set(key, g);
          }
          g.push({
            span,
            attrs: new Attrs(span.attributes),
            start: toBig(span.startTimeUnixNano),
            end: toBig(span.endTimeUnixNano),
            resource,
            scope: ss.scope?.name,
          });
        }
      }
    }
    if (groups.size === 0) return fileError('E_OTLP_SCHEMA', 'the export holds no spans');
    const items: OtlpImportItem[] = [];
    for (const [traceId, spans] of groups) {
      let result: Result<Trace>;
      try {
        result = traceOf(traceId, spans);
      } catch (e) {
        result = {
          ok: false,
          errors: [
            {
              code: 'E_OTLP_TRACE',
              message: describe(
                'E_OTLP_TRACE',
                `internal error: ${e instanceof Error ? e.message : String(e)}`,
              ),
            },
          ],
        };
      }
      const title = result.ok ? result.value.title.trim().slice(0, 80) : '';
      items.push({ label: `OTLP trace ${traceId}${title ? ` · ${title}` : ''}`, result });
    }
    return { ok: true, items };
  } catch (e) {
    return fileError('E_OTLP_SCHEMA', `internal error: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** OTLP/JSON text → traces. Never throws. */
export function importOtlpText(text: string): OtlpImportOutcome {
  if (typeof text !== 'string') return fileError('E_OTLP_SCHEMA', 'expected text');
  if (text.length > OTLP_IMPORT_LIMITS.chars) {
    return fileError('E_TOO_LARGE', `${text.length} characters; the limit is ${OTLP_IMPORT_LIMITS.chars}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (e) {
    return fileError(
      'E_JSON',
      `${(e instanceof Error ? e.message : String(e)).slice(0, 200)}. Expected an OTLP/JSON trace export ({"resourceSpans": [...]}).`,
    );
  }
  if (!looksLikeOtlp(value))
    return fileError('E_OTLP_SCHEMA', 'expected an object with a "resourceSpans" array');
  return importOtlpValue(value);
}
