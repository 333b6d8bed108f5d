/**
 * What the spans of one trace say (otlp-import.ts): the agents and their start/end/error events, the
 * LLM calls, span events (Baton's notes and run end; others kept as notes) and the design's edges
 * (links between agent spans, else nesting).
 */
import { z } from 'zod';
import { AGENT_TYPES, type AgentType } from '../core/agents.ts';
import type { Problem } from '../core/result.ts';
import { AgentParamsSchema, type Agent, type Edge, type TraceEvent } from '../core/trace.ts';
import { BATON, BATON_EVENTS, DESIGN_EDGE, GENAI, OI, OPENLLMETRY } from './attributes.ts';
import { Attrs, shortStr, toBig, type Js } from './otlp-attrs.ts';
import { firstNum, firstStr, inputMessages, outputText } from './otlp-messages.ts';
import type { OtlpEvent } from './otlp-schema.ts';
import type { SpanGraph } from './otlp-spans.ts';

/** The agents, with their start, end and error events. */
export function agentEvents(g: SpanGraph): Agent[] {
  const { fromBaton, ms, llm, agentList, idOf, push } = g;
  // ---- agents
  const agentsOut: Agent[] = [];
  for (const s of agentList) {
    const id = idOf.get(s)!;
    const a = s.attrs;
    const typeRaw = a.has(BATON.agentType) ? a.str(BATON.agentType) : undefined;
    const type: AgentType = (AGENT_TYPES as readonly string[]).includes(typeRaw ?? '')
      ? (typeRaw as AgentType)
      : 'CoTAgent';
    const params = a.json(BATON.agentParams, AgentParamsSchema) ?? {};
    const description =
      firstStr(a, [GENAI.agentDescription]) ?? `${s.span.name.slice(0, 200)} (imported from OpenTelemetry)`;
    const role = a.has(BATON.agentRole) ? shortStr(a.str(BATON.agentRole)) : undefined;
    // Read so they count as mapped: these repeat the id or name the provider the calls carry.
    for (const k of [
      GENAI.agentName,
      OI.agentName,
      OI.graphNodeId,
      GENAI.operation,
      OI.spanKind,
      GENAI.provider,
      OPENLLMETRY.spanKind,
      OPENLLMETRY.entityName,
      BATON.agentOrder,
    ])
      a.consume(k);
    const isLlmAgent = llm.has(s);
    agentsOut.push({
      id,
      type,
      description,
      input: (a.has(BATON.agentInput) ? a.str(BATON.agentInput) : undefined) ?? '',
      ...(role !== undefined ? { role } : {}),
      params,
    });
    const start = ms(s.start);
    const end = Math.max(start, ms(s.end));
    if (fromBaton) {
      const startIndex = a.num(BATON.startIndex);
      const endIndex = a.num(BATON.endIndex);
      const input = a.has(OI.inputValue) ? (a.str(OI.inputValue) ?? '') : '';
      if (startIndex !== undefined) push({ type: 'agent.start', t: start, agentId: id, input }, startIndex);
      const error = a.has(BATON.agentError) ? a.str(BATON.agentError) : undefined;
      if (error !== undefined) {
        const placeholder = (a.has(BATON.placeholder) ? a.str(BATON.placeholder) : undefined) ?? '';
        a.consume(GENAI.errorType);
        push({ type: 'agent.error', t: end, agentId: id, error, placeholder }, endIndex);
      } else if (endIndex !== undefined) {
        push(
          {
            type: 'agent.end',
            t: end,
            agentId: id,
            output: a.has(OI.outputValue) ? (a.str(OI.outputValue) ?? '') : '',
          },
          endIndex,
        );
      }
    } else if (!isLlmAgent) {
      push(
        {
          type: 'agent.start',
          t: start,
          agentId: id,
          input: a.has(OI.inputValue) ? (a.str(OI.inputValue) ?? '') : '',
        },
        undefined,
      );
      a.consume(OI.inputMime);
      a.consume(OI.outputMime);
      if (s.span.status?.code === 2) {
        const error = s.span.status.message || 'the span ended with an error status';
        push(
          {
            type: 'agent.error',
            t: end,
            agentId: id,
            error,
            placeholder: `[${id} failed: ${error.slice(0, 200)}]`,
          },
          undefined,
        );
      } else {
        push(
          {
            type: 'agent.end',
            t: end,
            agentId: id,
            output: a.has(OI.outputValue) ? (a.str(OI.outputValue) ?? '') : '',
          },
          undefined,
        );
      }
    }
  }
  return agentsOut;
}

/** The LLM calls; a warning when some have no token counts. Returns the first call's model. */
export function llmCallEvents(g: SpanGraph, warnings: Problem[]): string | undefined {
  const { ms, llm, agentOfSpan, push } = g;
  // ---- LLM calls
  let untokened = 0;
  let firstModel: string | undefined;
  for (const s of llm) {
    const a = s.attrs;
    const agentId = agentOfSpan(s)!;
    const model =
      firstStr(a, [
        GENAI.responseModel,
        GENAI.requestModel,
        OI.modelName,
        'llm.response.model',
        'llm.request.model',
      ]) ?? 'unknown';
    firstModel ??= model;
    const promptTokens = firstNum(a, [GENAI.inputTokens, GENAI.promptTokens, OI.promptTokens]);
    const completionTokens = firstNum(a, [GENAI.outputTokens, GENAI.completionTokens, OI.completionTokens]);
    for (const k of [
      OI.totalTokens,
      OPENLLMETRY.usageTotal,
      GENAI.provider,
      GENAI.system,
      OI.system,
      OI.provider,
      GENAI.operation,
      OI.spanKind,
      OPENLLMETRY.requestType,
      GENAI.agentId,
      GENAI.agentName,
    ])
      a.consume(k);
    if (promptTokens === undefined && completionTokens === undefined) untokened += 1;
    const start = ms(s.start);
    const failed = s.span.status?.code === 2;
    const callError = a.has(BATON.callError) ? a.str(BATON.callError) : undefined;
    if (failed || callError !== undefined) a.consume(GENAI.errorType);
    const label = a.has(BATON.callLabel) ? shortStr(a.str(BATON.callLabel)) : undefined;
    const estimated = a.bool(BATON.tokensEstimated);
    const error =
      callError ?? (failed ? s.span.status?.message || 'the call ended with an error status' : undefined);
    const messages = inputMessages(a);
    const output = outputText(a);
    const event: TraceEvent = {
      type: 'llm.call',
      t: start,
      agentId,
      callId: shortStr(a.has(BATON.callId) ? a.str(BATON.callId) : undefined) ?? s.span.spanId,
      ...(label !== undefined ? { label } : {}),
      model: model.slice(0, 10_000),
      messages,
      output,
      promptTokens: Math.round(promptTokens ?? 0),
      completionTokens: Math.round(completionTokens ?? 0),
      ...(estimated !== undefined ? { tokensEstimated: estimated } : {}),
      latencyMs: Math.max(0, ms(s.end) - start),
      costUsd: Math.max(0, firstNum(a, [BATON.costUsd, 'gen_ai.usage.cost', 'llm.usage.cost']) ?? 0),
      ...(error !== undefined ? { error: error.slice(0, 10_000) } : {}),
    };
    push(event, a.num(BATON.eventIndex));
  }
  if (untokened > 0) {
    warnings.push({
      code: 'E_OTLP_TRACE',
      message: `${untokened} LLM call${untokened === 1 ? '' : 's'} had no token counts; counted as 0 tokens.`,
    });
  }
  return firstModel;
}

/** Span events: Baton's notes and run end, anything else kept as a note. */
export function spanEventNotes(g: SpanGraph): void {
  const { spans, root, ms, agentOfSpan, push, keep, counts } = g;
  // ---- span events, notes, run end
  for (const s of spans) {
    const agentId = s === root ? undefined : agentOfSpan(s);
    for (const ev of s.span.events ?? []) {
      const ea = new Attrs(ev.attributes);
      const t = ms(toBig(ev.timeUnixNano));
      if (ev.name === BATON_EVENTS.note && agentId !== undefined && ea.has(BATON.noteKind)) {
        push(
          {
            type: 'agent.note',
            t,
            agentId,
            kind: shortStr(ea.str(BATON.noteKind)) ?? 'note',
            text: (ea.has(BATON.noteText) ? ea.str(BATON.noteText) : undefined) ?? '',
          },
          ea.num(BATON.eventIndex),
        );
      } else if (ev.name === BATON_EVENTS.runEnd && s === root) {
        const status = z.enum(['completed', 'failed', 'cancelled']).safeParse(ea.str(BATON.runStatus));
        push(
          { type: 'run.end', t, status: status.success ? status.data : 'completed' },
          ea.num(BATON.eventIndex),
        );
      } else {
        counts.keptEvents += 1;
        keep(agentId, t, 'otel.event', { span: s.span.name, event: ev.name, attributes: eventAttrs(ev) });
      }
    }
  }
}

/** The design's edges: links between agent spans; without links, a nested agent feeds its parent. */
export function designEdges(g: SpanGraph, otlpTraceId: string): Edge[] {
  const { byId, fromBaton, ms, llm, agentAbove, agentList, idOf, keep, counts } = g;
  // ---- edges: links between agent spans; else nesting
  const edges: Edge[] = [];
  const edgeKeys = new Set<string>();
  const addEdge = (from: string, to: string): void => {
    const key = `${from}\u0001${to}`;
    if (from === to || edgeKeys.has(key)) return;
    edgeKeys.add(key);
    edges.push({ from, to });
  };
  let linked = false;
  for (const s of agentList) {
    for (const link of s.span.links ?? []) {
      const target = byId.get(link.spanId.toLowerCase());
      const la = new Attrs(link.attributes);
      const type = la.has(BATON.linkType) ? la.str(BATON.linkType) : undefined;
      if (
        target &&
        idOf.has(target) &&
        link.traceId.toLowerCase() === otlpTraceId &&
        (type === undefined || type === DESIGN_EDGE)
      ) {
        linked = true;
        addEdge(idOf.get(target)!, idOf.get(s)!);
      } else {
        counts.keptEvents += 1;
        keep(idOf.get(s), ms(s.start), 'otel.link', {
          span: s.span.name,
          link: { traceId: link.traceId, spanId: link.spanId, attributes: la.unread() },
        });
      }
    }
  }
  if (!linked && !fromBaton) {
    for (const s of agentList) {
      const above = agentAbove(s);
      if (above && idOf.has(above) && !llm.has(s)) addEdge(idOf.get(s)!, idOf.get(above)!);
    }
  }
  return edges;
}

function eventAttrs(ev: OtlpEvent): Record<string, Js> {
  return new Attrs(ev.attributes).unread();
}
