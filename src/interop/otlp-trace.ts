/**
 * One Baton trace from the spans of one OTLP trace (otlp-import.ts): the span graph
 * (otlp-spans.ts), what the spans say (otlp-events.ts), the root span's task and run, and every
 * attribute no rule read, kept as notes.
 */
import { z } from 'zod';
import { describe } from '../core/errors.ts';
import { parseTraceValue } from '../core/parse-trace.ts';
import type { Problem, Result } from '../core/result.ts';
import { computeTotals } from '../core/totals.ts';
import { traceIdFrom } from '../core/trace-builders.ts';
import {
  ConstructionStepSchema,
  DesignerSchema,
  ExecutionBackendSchema,
  TaskSourceSchema,
  TRACE_FORMAT,
  type Design,
  type Trace,
  type TraceEvent,
} from '../core/trace.ts';
import { BATON, GENAI, OI, OPENLLMETRY, RESOURCE } from './attributes.ts';
import { DESIGNER_SPAN } from './otlp-designer.ts';
import { agentEvents, designEdges, llmCallEvents, spanEventNotes } from './otlp-events.ts';
import { firstStr } from './otlp-messages.ts';
import { spanGraph, type SpanInfo } from './otlp-spans.ts';

function isoOfMs(ms: number): string | null {
  return Number.isFinite(ms) && ms >= 0 && ms <= 253_402_300_799_999 ? new Date(ms).toISOString() : null;
}

/** Builds one Baton trace from the spans of one OTLP trace. */
export function traceOf(otlpTraceId: string, all: SpanInfo[]): Result<Trace> {
  // The orchestrator's spans (otlp-designer.ts) repeat the root's designer record: left out.
  const spans = all.filter((s) => !s.attrs.has(DESIGNER_SPAN));
  const g = spanGraph(spans);
  if (!g) {
    return {
      ok: false,
      errors: [{ code: 'E_OTLP_TRACE', message: describe('E_OTLP_TRACE', 'it has no spans') }],
    };
  }
  const { root, fromBaton, t0, ms, llm, agents, agentOfSpan, pending, push, keep, counts } = g;
  const warnings: Problem[] = [];
  const agentsOut = agentEvents(g);
  const firstModel = llmCallEvents(g, warnings);
  spanEventNotes(g);
  const edges = designEdges(g, otlpTraceId);

  // ---- root: the task and the run
  const r = root.attrs;
  const query =
    (r.has(OI.inputValue) ? r.str(OI.inputValue) : undefined) ??
    pending
      .map((p) => p.event)
      .find((e): e is Extract<TraceEvent, { type: 'llm.call' }> => e.type === 'llm.call')
      ?.messages.filter((m) => m.role === 'user')
      .at(-1)?.content ??
    root.span.name;
  r.consume(OI.inputMime);
  const finalAnswer =
    (r.has(BATON.finalAnswer) ? r.str(BATON.finalAnswer) : undefined) ??
    (r.has(OI.outputValue) ? r.str(OI.outputValue) : undefined) ??
    null;
  r.consume(OI.outputValue);
  for (const k of [GENAI.operation, GENAI.workflowName, GENAI.conversationId, OI.spanKind, OI.sessionId])
    r.consume(k);
  const startedMs = Number(t0 / 1_000_000n);
  const startedIso = isoOfMs(startedMs);
  const startedAt = (r.has(BATON.startedAt) ? r.str(BATON.startedAt) : undefined) ?? startedIso ?? undefined;
  const createdAt =
    (r.has(BATON.createdAt) ? r.str(BATON.createdAt) : undefined) ?? startedIso ?? new Date(0).toISOString();
  const serviceName = root.resource.has(RESOURCE.serviceName)
    ? root.resource.str(RESOURCE.serviceName)
    : undefined;
  const tool = `OpenTelemetry${serviceName ? ` (${serviceName.slice(0, 100)})` : ''}`;
  const backend = r.json(BATON.backend, ExecutionBackendSchema) ?? {
    kind: 'imported' as const,
    tool,
    ...(firstModel !== undefined ? { model: firstModel.slice(0, 10_000) } : {}),
  };
  const designer = r.json(BATON.designer, DesignerSchema) ?? { kind: 'imported' as const, tool };
  const source = r.json(BATON.taskSource, TaskSourceSchema) ?? {
    kind: 'imported' as const,
    tool,
    ref: otlpTraceId,
  };
  const statusRaw = r.has(BATON.status) ? r.str(BATON.status) : undefined;
  const status = z.enum(['not-run', 'running', 'completed', 'failed', 'cancelled']).safeParse(statusRaw);
  if (!fromBaton) {
    push(
      { type: 'run.end', t: ms(root.end), status: root.span.status?.code === 2 ? 'failed' : 'completed' },
      undefined,
    );
  }
  const construction = r.json(BATON.construction, z.array(ConstructionStepSchema).max(5_000));
  if (r.has(BATON.construction) && construction === undefined) {
    warnings.push({
      code: 'E_OTLP_TRACE',
      message: 'the construction steps in baton.construction could not be read; left out.',
    });
  }
  const groundTruth = r.has(BATON.groundTruth) ? (r.str(BATON.groundTruth) ?? null) : null;
  const groundTruths = r.json(BATON.groundTruths, z.array(z.string().max(10_000)).max(64));
  const seed = r.num(BATON.taskSeed);
  const correct = r.bool(BATON.correct);
  const answerAgent = r.has(BATON.answerAgent) ? r.str(BATON.answerAgent) : undefined;
  const thinking = r.has(BATON.thinking) ? r.str(BATON.thinking) : undefined;
  const directAnswer = r.has(BATON.directAnswer) ? r.str(BATON.directAnswer) : undefined;
  const domRaw = r.has(BATON.dom) ? r.str(BATON.dom) : undefined;
  const trimmed = r.json(
    BATON.trimmed,
    z.object({ fields: z.number().nonnegative(), charsRemoved: z.number().nonnegative() }),
  );
  const createdAtKnown = r.bool(BATON.createdAtKnown);
  const tags = r.strings(BATON.tags);
  const id = r.has(BATON.traceId) ? r.str(BATON.traceId) : undefined;
  const title =
    firstStr(r, [BATON.title, GENAI.workflowName, OPENLLMETRY.entityName]) ?? root.span.name.slice(0, 200);
  // ---- everything no rule read, kept as notes
  for (const s of spans) {
    const agentId = s === root ? undefined : agentOfSpan(s);
    const isKnown = s === root || agents.has(s) || llm.has(s);
    if (!isKnown) {
      counts.keptSpans += 1;
      keep(agentId, ms(s.start), 'otel.span', {
        span: s.span.name,
        startMs: ms(s.start),
        durationMs: Math.max(0, ms(s.end) - ms(s.start)),
        status: s.span.status?.code ?? 0,
        ...(s.span.status?.message ? { statusMessage: s.span.status.message } : {}),
        attributes: s.attrs.unread(),
      });
      continue;
    }
    const rest = s.attrs.unread();
    const n = Object.keys(rest).length;
    if (n > 0) {
      counts.unmappedAttrs += n;
      keep(agentId, ms(s.start), 'otel.unmapped', { span: s.span.name, attributes: rest });
    }
  }
  const resourceRest = root.resource.unread();
  if (Object.keys(resourceRest).length > 0) {
    counts.unmappedAttrs += Object.keys(resourceRest).length;
    keep(undefined, 0, 'otel.unmapped', {
      resource: resourceRest,
      ...(root.scope ? { scope: root.scope } : {}),
    });
  }
  if (agentsOut.length === 0) {
    return {
      ok: false,
      errors: [
        {
          code: 'E_OTLP_TRACE',
          message: describe(
            'E_OTLP_TRACE',
            `trace ${otlpTraceId} has ${spans.length} span${spans.length === 1 ? '' : 's'} but no agent or LLM call (no gen_ai.operation.name, openinference.span.kind or request model)`,
          ),
        },
      ],
    };
  }
  const { unmappedAttrs, keptSpans, keptEvents } = counts;
  if (unmappedAttrs + keptSpans + keptEvents > 0) {
    warnings.push({
      code: 'E_OTLP_TRACE',
      message: `kept as notes (kinds otel.unmapped, otel.span, otel.event, otel.link): ${unmappedAttrs} attribute${unmappedAttrs === 1 ? '' : 's'} no rule maps, ${keptSpans} span${keptSpans === 1 ? '' : 's'} that are neither agents nor LLM calls, ${keptEvents} other span event${keptEvents === 1 ? '' : 's'} or link${keptEvents === 1 ? '' : 's'}.`,
    });
  }
  // ---- events in order
  const allIndexed = fromBaton && pending.every((p) => p.index !== undefined);
  pending.sort((a, b) => (allIndexed ? a.index! - b.index! : a.event.t - b.event.t || a.rank - b.rank));
  const events = pending.map((p) => p.event);
  const design: Design = {
    dom: domRaw === 'low' || domRaw === 'high' ? domRaw : 'high',
    ...(thinking !== undefined ? { thinking } : {}),
    agents: agentsOut,
    edges,
    ...(directAnswer !== undefined ? { directAnswer } : {}),
  };
  const trace = {
    format: TRACE_FORMAT,
    id: id ?? traceIdFrom('otlp', otlpTraceId),
    title: title.slice(0, 10_000),
    createdAt,
    ...(createdAtKnown !== undefined ? { createdAtKnown } : {}),
    task: {
      query,
      groundTruth,
      ...(groundTruths ? { groundTruths } : {}),
      source,
      ...(seed !== undefined && Number.isInteger(seed) ? { seed } : {}),
    },
    designer,
    construction: construction ?? [],
    design,
    execution: {
      backend,
      status: status.success ? status.data : root.span.status?.code === 2 ? 'failed' : 'completed',
      ...(startedAt !== undefined ? { startedAt } : {}),
      events,
    },
    result: {
      finalAnswer,
      ...(answerAgent !== undefined ? { answerAgent } : {}),
      correct: correct ?? null,
    },
    totals: computeTotals(design, events),
    ...(trimmed ? { trimmed } : {}),
    tags: tags ?? ['otlp'],
  };
  const parsed = parseTraceValue(trace);
  if (!parsed.ok) return parsed;
  return { ok: true, value: parsed.value, warnings: [...parsed.warnings, ...warnings] };
}
