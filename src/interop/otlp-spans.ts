/**
 * The spans of one OTLP trace as a graph (otlp-import.ts): which span is an agent and which an LLM
 * call (GenAI's `gen_ai.operation.name`, OpenInference's and OpenLLMetry's span kinds, or a request
 * model), the agent above each span, agent ids and order, and the events collected for the trace.
 */
import type { TraceEvent } from '../core/trace.ts';
import { BATON, GENAI, OI, OPENLLMETRY, OPERATION } from './attributes.ts';
import type { Attrs, Js } from './otlp-attrs.ts';
import { firstStr } from './otlp-messages.ts';
import type { OtlpSpan } from './otlp-schema.ts';

export interface SpanInfo {
  span: OtlpSpan;
  attrs: Attrs;
  start: bigint;
  end: bigint;
  resource: Attrs;
  scope: string | undefined;
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

export interface Pending {
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

/** One trace's spans, classified, with the events and notes its readers collect. */
export interface SpanGraph {
  spans: SpanInfo[];
  byId: Map<string, SpanInfo>;
  root: SpanInfo;
  /** The root is a Baton export's (it carries `baton.trace.id`): the trace comes back whole. */
  fromBaton: boolean;
  /** The earliest span start, ns. */
  t0: bigint;
  /** ns → ms since `t0`. */
  ms: (ns: bigint) => number;
  llm: Set<SpanInfo>;
  agents: Set<SpanInfo>;
  agentAbove: (s: SpanInfo) => SpanInfo | undefined;
  agentList: SpanInfo[];
  idOf: Map<SpanInfo, string>;
  agentOfSpan: (s: SpanInfo) => string | undefined;
  pending: Pending[];
  push: (event: TraceEvent, index: number | undefined) => void;
  /** Keeps what no rule reads as an `agent.note` of `kind` on the agent (else the first agent). */
  keep: (agentId: string | undefined, t: number, kind: string, payload: Record<string, Js>) => void;
  counts: { unmappedAttrs: number; keptSpans: number; keptEvents: number };
}

/** The graph of one trace's spans; null when it has none. */
export function spanGraph(spans: SpanInfo[]): SpanGraph | null {
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
  if (!root) return null;
  const fromBaton = root.attrs.has(BATON.traceId);
  let t0 = spans[0]!.start;
  for (const s of spans) if (s.start < t0) t0 = s.start;
  const ms = (ns: bigint): number => Math.max(0, Number(ns - t0) / 1e6);

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
  const counts = { unmappedAttrs: 0, keptSpans: 0, keptEvents: 0 };
  const keep = (agentId: string | undefined, t: number, kind: string, payload: Record<string, Js>): void => {
    const target = agentId ?? firstAgent;
    if (target === undefined) return;
    // A fenced block, so the inspector shows the JSON as code; the text is still the JSON inside.
    const text = '```json\n' + JSON.stringify(payload, null, 2) + '\n```';
    push({ type: 'agent.note', t, agentId: target, kind, text }, undefined);
  };
  return {
    spans,
    byId,
    root,
    fromBaton,
    t0,
    ms,
    llm,
    agents,
    agentAbove,
    agentList,
    idOf,
    agentOfSpan,
    pending,
    push,
    keep,
    counts,
  };
}
