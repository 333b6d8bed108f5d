import { z } from 'zod';
import { AGENT_TYPES, type AgentType } from '../core/agents.ts';
import { describe } from '../core/errors.ts';
import { parseTraceValue, zodProblems } from '../core/parse-trace.ts';
import type { Problem, Result } from '../core/result.ts';
import { computeTotals } from '../core/totals.ts';
import { traceIdFrom } from '../core/trace-builders.ts';
import {
  AgentParamsSchema,
  ConstructionStepSchema,
  DesignerSchema,
  ExecutionBackendSchema,
  TaskSourceSchema,
  TRACE_FORMAT,
  type Agent,
  type ChatMessage,
  type Design,
  type Edge,
  type Trace,
  type TraceEvent,
} from '../core/trace.ts';
import {
  BATON,
  BATON_EVENTS,
  DESIGN_EDGE,
  GENAI,
  OI,
  OPENLLMETRY,
  OPERATION,
  RESOURCE,
} from './attributes.ts';
import {
  ExportTraceServiceRequestSchema,
  type AnyValue,
  type KeyValue,
  type OtlpEvent,
  type OtlpSpan,
} from './otlp-schema.ts';
import { DESIGNER_SPAN } from './otlp-designer.ts';

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

// ---------------------------------------------------------------- attribute reading

type Js = string | number | boolean | null | Js[] | { [k: string]: Js };

/** An AnyValue as plain JSON (int64 strings become numbers when exact, else stay strings). */
export function anyToJs(v: AnyValue | undefined, depth = 0): Js {
  if (!v || depth > 16) return null;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) {
    const n = Number(v.intValue);
    return Number.isSafeInteger(n) ? n : String(v.intValue);
  }
  if (v.doubleValue !== undefined)
    return typeof v.doubleValue === 'number' ? v.doubleValue : String(v.doubleValue);
  if (v.arrayValue) return (v.arrayValue.values ?? []).map((x) => anyToJs(x, depth + 1));
  if (v.kvlistValue) {
    const o: Record<string, Js> = {};
    for (const kv of v.kvlistValue.values ?? []) o[kv.key] = anyToJs(kv.value, depth + 1);
    return o;
  }
  if (v.bytesValue !== undefined) return v.bytesValue;
  return null;
}

/** The attributes of one span (or resource, or event), remembering which ones a rule read. */
class Attrs {
  private readonly map = new Map<string, AnyValue | undefined>();
  private readonly used = new Set<string>();
  constructor(list: readonly KeyValue[] | undefined) {
    for (const kv of list ?? []) this.map.set(kv.key, kv.value);
  }
  has(key: string): boolean {
    return this.map.has(key);
  }
  /** Marks a key as read without reading it (a duplicate of something read elsewhere). */
  consume(key: string): void {
    if (this.map.has(key)) this.used.add(key);
  }
  consumePrefix(prefix: string): void {
    for (const k of this.map.keys()) if (k.startsWith(prefix)) this.used.add(k);
  }
  raw(key: string): AnyValue | undefined {
    if (!this.map.has(key)) return undefined;
    this.used.add(key);
    return this.map.get(key);
  }
  str(key: string): string | undefined {
    const v = this.raw(key);
    if (!v) return undefined;
    if (v.stringValue !== undefined) return v.stringValue;
    const js = anyToJs(v);
    return js === null ? undefined : typeof js === 'string' ? js : JSON.stringify(js);
  }
  num(key: string): number | undefined {
    const v = this.raw(key);
    if (!v) return undefined;
    const n =
      v.intValue !== undefined
        ? Number(v.intValue)
        : typeof v.doubleValue === 'number'
          ? v.doubleValue
          : v.stringValue !== undefined && /^\s*-?\d+(\.\d+)?([eE][-+]?\d+)?\s*$/.test(v.stringValue)
            ? Number(v.stringValue)
            : NaN;
    return Number.isFinite(n) ? n : undefined;
  }
  bool(key: string): boolean | undefined {
    const v = this.raw(key);
    if (v?.boolValue !== undefined) return v.boolValue;
    if (v?.stringValue === 'true') return true;
    if (v?.stringValue === 'false') return false;
    return undefined;
  }
  strings(key: string): string[] | undefined {
    const js = anyToJs(this.raw(key));
    return Array.isArray(js) ? js.filter((x): x is string => typeof x === 'string') : undefined;
  }
  /** A JSON-valued attribute (a JSON string, or structured AnyValue), parsed with `schema`. */
  json<T>(key: string, schema: z.ZodType<T>): T | undefined {
    const v = this.raw(key);
    if (!v) return undefined;
    let js: unknown;
    if (v.stringValue !== undefined) {
      try {
        js = JSON.parse(v.stringValue);
      } catch {
        return undefined;
      }
    } else js = anyToJs(v);
    const parsed = schema.safeParse(js);
    return parsed.success ? parsed.data : undefined;
  }
  /** Attributes no rule read, as plain JSON. */
  unread(): Record<string, Js> {
    const out: Record<string, Js> = {};
    for (const [k, v] of this.map) if (!this.used.has(k)) out[k] = anyToJs(v);
    return out;
  }
}

// ---------------------------------------------------------------- spans of one trace

interface SpanInfo {
  span: OtlpSpan;
  attrs: Attrs;
  start: bigint;
  end: bigint;
  resource: Attrs;
  scope: string | undefined;
}

function toBig(v: string | number): bigint {
  try {
    return typeof v === 'number' ? BigInt(Math.trunc(v)) : BigInt(v);
  } catch {
    return 0n;
  }
}

const LLM_OPERATIONS = new Set<string>([OPERATION.chat, OPERATION.textCompletion, OPERATION.generateContent]);

function operationOf(s: SpanInfo): string | undefined {
  return s.attrs.has(GENAI.operation) ? s.attrs.str(GENAI.operation) : undefined;
}
function oiKindOf(s: SpanInfo): string | undefined {
  return s.attrs.has(OI.spanKind) ? s.attrs.str(OI.spanKind)?.toUpperCase() : undefined;
}
function isLlm(s: SpanInfo): boolean {
  const op = operationOf(s);
  if (op !== undefined) return LLM_OPERATIONS.has(op);
  const oi = oiKindOf(s);
  if (oi !== undefined) return oi === 'LLM';
  return s.attrs.has(GENAI.requestModel) || s.attrs.has(OI.modelName) || s.attrs.has(OPENLLMETRY.requestType);
}
function isAgent(s: SpanInfo): boolean {
  return (
    operationOf(s) === OPERATION.invokeAgent ||
    oiKindOf(s) === 'AGENT' ||
    (s.attrs.has(OPENLLMETRY.spanKind) && s.attrs.str(OPENLLMETRY.spanKind) === 'agent')
  );
}

const ID_RE = /[^A-Za-z0-9_.:-]+/g;
function cleanId(raw: string | undefined): string {
  const id = (raw ?? '')
    .replace(ID_RE, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 120);
  return id === '' ? 'agent' : id;
}

const ROLE_MAP: Record<string, ChatMessage['role']> = {
  system: 'system',
  developer: 'system',
  user: 'user',
  human: 'user',
  assistant: 'assistant',
  model: 'assistant',
  ai: 'assistant',
  tool: 'tool',
  function: 'tool',
};
function roleOf(raw: unknown): { role: ChatMessage['role']; prefix: string } {
  const r = typeof raw === 'string' ? raw.toLowerCase() : '';
  const role = ROLE_MAP[r];
  return role ? { role, prefix: '' } : { role: 'user', prefix: `(${String(raw).slice(0, 40)}) ` };
}

/** The GenAI conventions' message shape: `{role, parts: [{type: "text", content}], …}`. */
const GenAiMessages = z
  .array(
    z
      .object({
        role: z.unknown().optional(),
        parts: z.array(z.record(z.string(), z.unknown())).max(1_000).optional(),
        content: z.unknown().optional(),
      })
      .loose(),
  )
  .max(10_000);

function partsText(m: z.infer<typeof GenAiMessages>[number]): string {
  if (m.parts) {
    return m.parts
      .map((p) => (p.type === 'text' && typeof p.content === 'string' ? p.content : JSON.stringify(p)))
      .join('\n');
  }
  return typeof m.content === 'string' ? m.content : m.content === undefined ? '' : JSON.stringify(m.content);
}

/** Flattened `{prefix}{i}.{role|content}` lists (OpenInference adds `.message`). */
function flattened(attrs: Attrs, prefix: string, inner: string): { role: unknown; content: string }[] {
  const out: { role: unknown; content: string }[] = [];
  for (let i = 0; i < 10_000; i++) {
    const role = attrs.has(`${prefix}${i}${inner}role`) ? attrs.str(`${prefix}${i}${inner}role`) : undefined;
    const content = attrs.has(`${prefix}${i}${inner}content`)
      ? attrs.str(`${prefix}${i}${inner}content`)
      : undefined;
    if (role === undefined && content === undefined) break;
    out.push({ role: role ?? 'user', content: content ?? '' });
  }
  return out;
}

function inputMessages(a: Attrs): ChatMessage[] {
  const toChat = (list: { role: unknown; content: string }[]): ChatMessage[] =>
    list.map((m) => {
      const { role, prefix } = roleOf(m.role);
      return { role, content: prefix + m.content };
    });
  let result: ChatMessage[] | undefined;
  const genai = a.json(GENAI.inputMessages, GenAiMessages);
  if (genai) result = toChat(genai.map((m) => ({ role: m.role, content: partsText(m) })));
  const oi = flattened(a, OI.inputMessagesPrefix, '.message.');
  if (!result && oi.length > 0) result = toChat(oi);
  const ollm = flattened(a, OPENLLMETRY.promptPrefix, '.');
  if (!result && ollm.length > 0) result = toChat(ollm);
  const systemInstructions = a.has('gen_ai.system_instructions')
    ? a.str('gen_ai.system_instructions')
    : undefined;
  if (!result && a.has(OI.inputValue)) {
    const v = a.str(OI.inputValue) ?? '';
    // Baton's own exports write `{"messages": [...]}` here too.
    let msgs: ChatMessage[] | undefined;
    try {
      const parsed = z
        .object({ messages: z.array(z.object({ role: z.unknown(), content: z.string() })).max(10_000) })
        .safeParse(JSON.parse(v));
      if (parsed.success) msgs = toChat(parsed.data.messages);
    } catch {
      msgs = undefined;
    }
    result = msgs ?? [{ role: 'user', content: v }];
  }
  // Duplicates of what was read above.
  a.consume(OI.inputValue);
  a.consume(OI.inputMime);
  a.consumePrefix(OI.inputMessagesPrefix);
  a.consumePrefix(OPENLLMETRY.promptPrefix);
  const out = result ?? [];
  if (systemInstructions !== undefined) {
    let text = systemInstructions;
    try {
      const parts = z.array(z.record(z.string(), z.unknown())).safeParse(JSON.parse(systemInstructions));
      if (parts.success)
        text = parts.data
          .map((p) => (typeof p.content === 'string' ? p.content : JSON.stringify(p)))
          .join('\n');
    } catch {
      text = systemInstructions;
    }
    out.unshift({ role: 'system', content: text });
  }
  return out.slice(0, 500);
}

function outputText(a: Attrs): string {
  let result: string | undefined;
  const genai = a.json(GENAI.outputMessages, GenAiMessages);
  if (genai) result = genai.map(partsText).join('\n');
  const oi = flattened(a, OI.outputMessagesPrefix, '.message.');
  if (result === undefined && oi.length > 0) result = oi.map((m) => m.content).join('\n');
  const ollm = flattened(a, OPENLLMETRY.completionPrefix, '.');
  if (result === undefined && ollm.length > 0) result = ollm.map((m) => m.content).join('\n');
  if (result === undefined && a.has(OI.outputValue)) result = a.str(OI.outputValue);
  a.consume(OI.outputValue);
  a.consume(OI.outputMime);
  a.consumePrefix(OI.outputMessagesPrefix);
  a.consumePrefix(OPENLLMETRY.completionPrefix);
  return result ?? '';
}

function firstNum(a: Attrs, keys: readonly string[]): number | undefined {
  let found: number | undefined;
  for (const k of keys) {
    const v = a.num(k);
    if (found === undefined && v !== undefined && v >= 0) found = v;
  }
  return found;
}

function firstStr(a: Attrs, keys: readonly string[]): string | undefined {
  let found: string | undefined;
  for (const k of keys) {
    const v = a.has(k) ? a.str(k) : undefined;
    if (found === undefined && v !== undefined && v !== '') found = v;
  }
  return found;
}

interface Pending {
  event: TraceEvent;
  /** Position in the original `execution.events` (Baton's own exports), else undefined. */
  index: number | undefined;
  rank: number;
}
const RANK: Record<TraceEvent['type'], number> = {
  'agent.start': 0,
  'llm.call': 1,
  'agent.note': 2,
  'agent.end': 3,
  'agent.error': 3,
  'run.end': 4,
};

function isoOfMs(ms: number): string | null {
  return Number.isFinite(ms) && ms >= 0 && ms <= 253_402_300_799_999 ? new Date(ms).toISOString() : null;
}

const shortStr = (s: string | undefined, max = 10_000): string | undefined =>
  s === undefined ? undefined : s.slice(0, max);

/** Builds one Baton trace from the spans of one OTLP trace. */
function traceOf(otlpTraceId: string, all: SpanInfo[]): Result<Trace> {
  // The orchestrator's spans (otlp-designer.ts) repeat the root's designer record: left out.
  const spans = all.filter((s) => !s.attrs.has(DESIGNER_SPAN));
  const byId = new Map<string, SpanInfo>();
  for (const s of spans) if (!byId.has(s.span.spanId.toLowerCase())) byId.set(s.span.spanId.toLowerCase(), s);
  const parentOf = (s: SpanInfo): SpanInfo | undefined => {
    const p = s.span.parentSpanId?.toLowerCase();
    return p ? byId.get(p) : undefined;
  };
  const roots = spans.filter((s) => parentOf(s) === undefined);
  const root =
    roots.find((s) => s.attrs.has(BATON.traceId)) ??
    [...roots].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0))[0] ??
    spans[0];
  if (!root) {
    return {
      ok: false,
      errors: [{ code: 'E_OTLP_TRACE', message: describe('E_OTLP_TRACE', 'it has no spans') }],
    };
  }
  const fromBaton = root.attrs.has(BATON.traceId);
  let t0 = spans[0]!.start;
  for (const s of spans) if (s.start < t0) t0 = s.start;
  const ms = (ns: bigint): number => Math.max(0, Number(ns - t0) / 1e6);
  const warnings: Problem[] = [];

  // ---- which span is an agent, which an LLM call
  const llm = new Set(spans.filter((s) => (s !== root || !fromBaton) && isLlm(s)));
  const agents = new Set(spans.filter((s) => isAgent(s) && !llm.has(s)));
  const agentAbove = (s: SpanInfo): SpanInfo | undefined => {
    const seen = new Set<SpanInfo>();
    let fallback: SpanInfo | undefined;
    for (let p = parentOf(s); p && !seen.has(p); p = parentOf(p)) {
      seen.add(p);
      if (agents.has(p)) return p;
      if (!llm.has(p) && fallback === undefined && (p !== root || !fromBaton)) fallback = p;
    }
    return fallback;
  };
  for (const s of llm) {
    if (agentAbove(s) === undefined) agents.add(s);
    else {
      const a = agentAbove(s)!;
      agents.add(a);
    }
  }
  // ---- agent ids and order
  const agentList = [...agents].sort((a, b) => {
    const oa = a.attrs.num(BATON.agentOrder) ?? Infinity;
    const ob = b.attrs.num(BATON.agentOrder) ?? Infinity;
    if (oa !== ob) return oa - ob;
    return a.start < b.start ? -1 : a.start > b.start ? 1 : 0;
  });
  const idOf = new Map<SpanInfo, string>();
  const used = new Set<string>();
  for (const s of agentList) {
    const base = cleanId(
      firstStr(s.attrs, [
        GENAI.agentId,
        OI.agentName,
        GENAI.agentName,
        OI.graphNodeId,
        OPENLLMETRY.entityName,
      ]) ?? s.span.name,
    );
    let id = base;
    for (let n = 2; used.has(id); n++) id = `${base}-${n}`;
    used.add(id);
    idOf.set(s, id);
  }
  const agentOfSpan = (s: SpanInfo): string | undefined => {
    if (idOf.has(s)) return idOf.get(s);
    const a = agentAbove(s);
    return a ? idOf.get(a) : undefined;
  };
  const firstAgent = agentList[0] ? idOf.get(agentList[0]) : undefined;

  const pending: Pending[] = [];
  const push = (event: TraceEvent, index: number | undefined): void => {
    pending.push({ event, index, rank: RANK[event.type] });
  };
  let unmappedAttrs = 0;
  let keptSpans = 0;
  let keptEvents = 0;
  const keep = (agentId: string | undefined, t: number, kind: string, payload: Record<string, Js>): void => {
    const target = agentId ?? firstAgent;
    if (target === undefined) return;
    // A fenced block, so the inspector shows the JSON as code; the text is still the JSON inside.
    const text = '```json\n' + JSON.stringify(payload, null, 2) + '\n```';
    push({ type: 'agent.note', t, agentId: target, kind, text }, undefined);
  };

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
        keptEvents += 1;
        keep(agentId, t, 'otel.event', { span: s.span.name, event: ev.name, attributes: eventAttrs(ev) });
      }
    }
  }

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
        keptEvents += 1;
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
      keptSpans += 1;
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
      unmappedAttrs += n;
      keep(agentId, ms(s.start), 'otel.unmapped', { span: s.span.name, attributes: rest });
    }
  }
  const resourceRest = root.resource.unread();
  if (Object.keys(resourceRest).length > 0) {
    unmappedAttrs += Object.keys(resourceRest).length;
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

function eventAttrs(ev: OtlpEvent): Record<string, Js> {
  return new Attrs(ev.attributes).unread();
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
