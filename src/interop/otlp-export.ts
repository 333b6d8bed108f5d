import type { Trace, TraceEvent } from '../core/trace.ts';
import { redactSecrets } from '../share/index.ts';
import { BATON, BATON_EVENTS, DESIGN_EDGE, GENAI, OI, OPERATION, RESOURCE } from './attributes.ts';
import { otlpSpanId, otlpTraceId } from './ids.ts';
import { designerSpans } from './otlp-designer.ts';
import type { AnyValue, ExportTraceServiceRequest, KeyValue, OtlpEvent, OtlpSpan } from './otlp-schema.ts';

/**
 * Baton traces → OTLP/JSON (`ExportTraceServiceRequest`, see otlp-schema.ts), following the
 * OpenTelemetry GenAI semantic conventions and writing OpenInference attributes beside them:
 *
 *   invoke_workflow baton          root span: the run (task, designer, result)      CHAIN
 *   └ invoke_agent <agent id>      one per agent (design agents and any that ran)   AGENT
 *     └ chat <model>               one per `llm.call` event                         LLM (CLIENT kind)
 *
 * The design's edges become span links on the receiving agent's span (`baton.link.type =
 * design.edge`), so a backend that draws links shows the DAG beside the parent/child tree. Agent
 * notes and the run's end are span events. Messages go in `gen_ai.input.messages` /
 * `gen_ai.output.messages` (JSON strings in the conventions' parts format) and in OpenInference's
 * flattened `llm.input_messages.{i}.message.*`. `baton.*` attributes carry the rest (agent types,
 * inputs, parameters, the order of events), so `importOtlp` gets the same trace back.
 *
 * Secrets are removed first with the same redaction share links use: an export leaves the tab.
 * Ids are derived from the trace id, so exports are deterministic. Pure.
 */

export const OTLP_SCOPE = { name: 'baton.interop.otlp', version: '1' } as const;

/** Span.kind values. */
const KIND_INTERNAL = 1;
const KIND_CLIENT = 3;
/** Status.code values. */
const STATUS_ERROR = 2;

// ---------------------------------------------------------------- attribute values

export function anyValue(v: string | number | boolean | readonly string[]): AnyValue {
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'number') return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
  return { arrayValue: { values: v.map((s) => ({ stringValue: s })) } };
}

class Attrs {
  readonly list: KeyValue[] = [];
  set(key: string, v: string | number | boolean | readonly string[] | null | undefined): this {
    if (v !== undefined && v !== null) this.list.push({ key, value: anyValue(v) });
    return this;
  }
  json(key: string, v: unknown): this {
    return v === undefined ? this : this.set(key, JSON.stringify(v));
  }
}

// ---------------------------------------------------------------- time

/** Unix nanoseconds as a decimal string: the run's start (ms since the epoch) plus `t` ms. */
function nanos(originMs: number, tMs: number): string {
  return (BigInt(Math.round(originMs)) * 1_000_000n + BigInt(Math.round(tMs * 1_000_000))).toString();
}

function originOf(trace: Trace): number {
  const ms = Date.parse(trace.execution.startedAt ?? trace.createdAt);
  return Number.isFinite(ms) && ms >= 0 ? ms : 0;
}

// ---------------------------------------------------------------- providers

/** `gen_ai.provider.name`: the conventions' well-known values where the provider is one of them. */
export function providerName(trace: Trace): string {
  const b = trace.execution.backend;
  const raw =
    b.kind === 'remote'
      ? b.provider
      : b.kind === 'imported'
        ? b.tool
        : b.kind === 'simulated'
          ? 'baton.simulator'
          : 'unknown';
  const lower = raw.trim().toLowerCase();
  const known: Record<string, string> = {
    openai: 'openai',
    anthropic: 'anthropic',
    deepseek: 'deepseek',
    groq: 'groq',
    mistral: 'mistral_ai',
    'mistral ai': 'mistral_ai',
    xai: 'x_ai',
    'x.ai': 'x_ai',
    gemini: 'gcp.gemini',
    'google gemini': 'gcp.gemini',
    perplexity: 'perplexity',
  };
  return known[lower] ?? (lower.replace(/\s+/g, '_') || 'unknown');
}

// ---------------------------------------------------------------- per agent

interface AgentRun {
  id: string;
  start?: { index: number; t: number; input: string };
  end?: { index: number; t: number; output: string };
  error?: { index: number; t: number; error: string; placeholder: string };
  calls: { index: number; e: Extract<TraceEvent, { type: 'llm.call' }> }[];
  notes: { index: number; e: Extract<TraceEvent, { type: 'agent.note' }> }[];
}

function agentRuns(trace: Trace): Map<string, AgentRun> {
  const runs = new Map<string, AgentRun>();
  const get = (id: string): AgentRun => {
    let r = runs.get(id);
    if (!r) {
      r = { id, calls: [], notes: [] };
      runs.set(id, r);
    }
    return r;
  };
  for (const a of trace.design.agents) get(a.id);
  trace.execution.events.forEach((e, index) => {
    switch (e.type) {
      case 'agent.start':
        get(e.agentId).start = { index, t: e.t, input: e.input };
        break;
      case 'agent.end':
        get(e.agentId).end = { index, t: e.t, output: e.output };
        break;
      case 'agent.error':
        get(e.agentId).error = { index, t: e.t, error: e.error, placeholder: e.placeholder };
        break;
      case 'llm.call':
        get(e.agentId).calls.push({ index, e });
        break;
      case 'agent.note':
        get(e.agentId).notes.push({ index, e });
        break;
      case 'run.end':
        break;
    }
  });
  return runs;
}

function runBounds(r: AgentRun): { start: number; end: number } {
  const times: number[] = [];
  if (r.start) times.push(r.start.t);
  if (r.end) times.push(r.end.t);
  if (r.error) times.push(r.error.t);
  for (const c of r.calls) times.push(c.e.t, c.e.t + c.e.latencyMs);
  for (const n of r.notes) times.push(n.e.t);
  if (times.length === 0) return { start: 0, end: 0 };
  const start = r.start?.t ?? Math.min(...times);
  const endMark = r.end?.t ?? r.error?.t;
  return { start, end: endMark ?? Math.max(...times) };
}

// ---------------------------------------------------------------- spans of one trace

function inputMessagesJson(messages: readonly { role: string; content: string }[]): string {
  return JSON.stringify(
    messages.map((m) => ({ role: m.role, parts: [{ type: 'text', content: m.content }] })),
  );
}

function outputMessagesJson(output: string, failed: boolean): string {
  return JSON.stringify([
    {
      role: 'assistant',
      parts: [{ type: 'text', content: output }],
      finish_reason: failed ? 'error' : 'stop',
    },
  ]);
}

/** The spans of one trace (already redacted). */
function traceSpans(trace: Trace): OtlpSpan[] {
  const traceId = otlpTraceId(trace.id);
  const origin = originOf(trace);
  const at = (t: number): string => nanos(origin, t);
  const provider = providerName(trace);
  const rootId = otlpSpanId(trace.id, 'run');
  const agentSpanId = (id: string): string => otlpSpanId(trace.id, `agent\u0002${id}`);
  const runs = agentRuns(trace);
  const order = new Map(trace.design.agents.map((a, i) => [a.id, i] as const));
  const byId = new Map(trace.design.agents.map((a) => [a.id, a] as const));
  const spans: OtlpSpan[] = [];

  let runEnd = 0;
  for (const e of trace.execution.events)
    runEnd = Math.max(runEnd, e.t + (e.type === 'llm.call' ? e.latencyMs : 0));

  // ---- root
  const root = new Attrs()
    .set(GENAI.operation, OPERATION.invokeWorkflow)
    .set(GENAI.workflowName, 'baton')
    .set(GENAI.conversationId, trace.id)
    .set(OI.spanKind, 'CHAIN')
    .set(OI.inputValue, trace.task.query)
    .set(OI.inputMime, 'text/plain')
    .set(OI.outputValue, trace.result.finalAnswer)
    .set(BATON.traceId, trace.id)
    .set(BATON.title, trace.title)
    .set(BATON.createdAt, trace.createdAt)
    .set(BATON.createdAtKnown, trace.createdAtKnown)
    .set(BATON.startedAt, trace.execution.startedAt)
    .set(BATON.tags, trace.tags)
    .set(BATON.groundTruth, trace.task.groundTruth)
    .json(BATON.groundTruths, trace.task.groundTruths)
    .json(BATON.taskSource, trace.task.source)
    .set(BATON.taskSeed, trace.task.seed)
    .json(BATON.designer, trace.designer)
    .json(BATON.backend, trace.execution.backend)
    .set(BATON.status, trace.execution.status)
    .set(BATON.dom, trace.design.dom)
    .set(BATON.thinking, trace.design.thinking)
    .set(BATON.directAnswer, trace.design.directAnswer)
    .json(BATON.construction, trace.construction.length > 0 ? trace.construction : undefined)
    .set(BATON.finalAnswer, trace.result.finalAnswer)
    .set(BATON.answerAgent, trace.result.answerAgent)
    .set(BATON.correct, trace.result.correct)
    .json(BATON.trimmed, trace.trimmed);
  const rootEvents: OtlpEvent[] = [];
  trace.execution.events.forEach((e, index) => {
    if (e.type !== 'run.end') return;
    rootEvents.push({
      timeUnixNano: at(e.t),
      name: BATON_EVENTS.runEnd,
      attributes: new Attrs().set(BATON.runStatus, e.status).set(BATON.eventIndex, index).list,
    });
  });
  spans.push({
    traceId,
    spanId: rootId,
    name: `${OPERATION.invokeWorkflow} baton`,
    kind: KIND_INTERNAL,
    startTimeUnixNano: at(0),
    endTimeUnixNano: at(runEnd),
    attributes: root.list,
    events: rootEvents,
    links: [],
    status:
      trace.execution.status === 'failed' ? { code: STATUS_ERROR, message: 'the run failed' } : { code: 0 },
  });

  // ---- the orchestrator's calls, when a provider wrote the design (otlp-designer.ts)
  spans.push(...designerSpans(trace, { traceId, rootId }, at));

  // ---- agents and their calls
  for (const run of runs.values()) {
    const agent = byId.get(run.id);
    const bounds = runBounds(run);
    const spanId = agentSpanId(run.id);
    const a = new Attrs()
      .set(GENAI.operation, OPERATION.invokeAgent)
      .set(GENAI.agentId, run.id)
      .set(GENAI.agentName, run.id)
      .set(GENAI.agentDescription, agent?.description)
      .set(GENAI.provider, provider)
      .set(OI.spanKind, 'AGENT')
      .set(OI.agentName, run.id)
      .set(OI.graphNodeId, run.id)
      .set(BATON.agentType, agent?.type)
      .set(BATON.agentInput, agent?.input)
      .set(BATON.agentRole, agent?.role)
      .json(BATON.agentParams, agent && Object.keys(agent.params).length > 0 ? agent.params : undefined)
      .set(BATON.agentOrder, order.get(run.id));
    if (run.start) {
      a.set(OI.inputValue, run.start.input).set(BATON.startIndex, run.start.index);
    }
    if (run.end) {
      a.set(OI.outputValue, run.end.output).set(BATON.endIndex, run.end.index);
    }
    if (run.error) {
      a.set(BATON.agentError, run.error.error)
        .set(BATON.placeholder, run.error.placeholder)
        .set(BATON.endIndex, run.error.index)
        .set(GENAI.errorType, 'agent_error');
    }
    const links = trace.design.edges
      .filter((e) => e.to === run.id)
      .map((e) => ({
        traceId,
        spanId: agentSpanId(e.from),
        attributes: new Attrs().set(BATON.linkType, DESIGN_EDGE).list,
      }));
    spans.push({
      traceId,
      spanId,
      parentSpanId: rootId,
      name: `${OPERATION.invokeAgent} ${run.id}`,
      kind: KIND_INTERNAL,
      startTimeUnixNano: at(bounds.start),
      endTimeUnixNano: at(bounds.end),
      attributes: a.list,
      events: run.notes.map((n) => ({
        timeUnixNano: at(n.e.t),
        name: BATON_EVENTS.note,
        attributes: new Attrs()
          .set(BATON.noteKind, n.e.kind)
          .set(BATON.noteText, n.e.text)
          .set(BATON.eventIndex, n.index).list,
      })),
      links,
      status: run.error ? { code: STATUS_ERROR, message: run.error.error } : { code: 0 },
    });

    run.calls.forEach(({ index, e }) => {
      const failed = e.error !== undefined;
      const c = new Attrs()
        .set(GENAI.operation, OPERATION.chat)
        .set(GENAI.provider, provider)
        .set(GENAI.system, provider)
        .set(GENAI.requestModel, e.model)
        .set(GENAI.responseModel, e.model)
        .set(GENAI.inputTokens, e.promptTokens)
        .set(GENAI.outputTokens, e.completionTokens)
        .set(GENAI.agentId, run.id)
        .set(GENAI.agentName, run.id)
        .set(GENAI.inputMessages, inputMessagesJson(e.messages))
        .set(GENAI.outputMessages, outputMessagesJson(e.output, failed))
        .set(OI.spanKind, 'LLM')
        .set(OI.modelName, e.model)
        .set(OI.system, provider)
        .set(OI.provider, provider)
        .set(OI.promptTokens, e.promptTokens)
        .set(OI.completionTokens, e.completionTokens)
        .set(OI.totalTokens, e.promptTokens + e.completionTokens)
        .set(OI.inputValue, JSON.stringify({ messages: e.messages }))
        .set(OI.inputMime, 'application/json')
        .set(OI.outputValue, e.output)
        .set(OI.outputMime, 'text/plain');
      e.messages.forEach((m, i) => {
        c.set(`${OI.inputMessagesPrefix}${i}.message.role`, m.role);
        c.set(`${OI.inputMessagesPrefix}${i}.message.content`, m.content);
      });
      c.set(`${OI.outputMessagesPrefix}0.message.role`, 'assistant')
        .set(`${OI.outputMessagesPrefix}0.message.content`, e.output)
        .set(BATON.callId, e.callId)
        .set(BATON.callLabel, e.label)
        .set(BATON.costUsd, e.costUsd)
        .set(BATON.tokensEstimated, e.tokensEstimated)
        .set(BATON.callError, e.error)
        .set(BATON.eventIndex, index);
      if (failed) c.set(GENAI.errorType, 'llm_error');
      spans.push({
        traceId,
        spanId: otlpSpanId(trace.id, `call\u0002${index}`),
        parentSpanId: spanId,
        name: `${OPERATION.chat} ${e.model}`,
        kind: KIND_CLIENT,
        startTimeUnixNano: at(e.t),
        endTimeUnixNano: at(e.t + e.latencyMs),
        attributes: c.list,
        events: [],
        links: [],
        status: failed ? { code: STATUS_ERROR, message: e.error } : { code: 0 },
      });
    });
  }
  return spans;
}

/**
 * One OTLP/JSON export request holding every given trace (an evaluation is many traces: each keeps
 * its own trace id). Secrets are removed before anything is read from a trace.
 */
export function toOtlpJson(traces: readonly Trace[]): ExportTraceServiceRequest & {
  resourceSpans: NonNullable<ExportTraceServiceRequest['resourceSpans']>;
} {
  const spans = traces.flatMap((t) => traceSpans(redactSecrets(t)));
  return {
    resourceSpans: [
      {
        resource: { attributes: new Attrs().set(RESOURCE.serviceName, 'baton').list },
        scopeSpans: [{ scope: { ...OTLP_SCOPE }, spans }],
      },
    ],
  };
}
