import type { GraphEdge } from '../core/graph.ts';
import type { Agent, ConstructionStep, Trace, TraceEvent } from '../core/trace.ts';
import { sinkOf } from '../design/validate.ts';

/**
 * The replay model behind the Trace page. A trace is linearised into positions 0..N:
 * position 0 is the start, positions 1..S are "after construction step k" (S = construction steps),
 * positions S+1..S+E are "after execution event j" (E = events). N = S + E and the viewer opens at N,
 * which shows the whole trace. A run whose source recorded its outcome but no events (imported case
 * pages) gets one more position, S+1, the outcome: N = S + 1. Pure: `buildReplay` indexes the trace once; `replayStateAt` derives
 * what the graph, inspector and timeline show at one position in O(S + E).
 */

export type AgentStatus = 'pending' | 'running' | 'done' | 'failed';

export type ReplayItem =
  | { kind: 'start' }
  | { kind: 'construction'; index: number; step: ConstructionStep }
  | { kind: 'event'; index: number; event: TraceEvent }
  /** A finished run recorded without events: its status and final answer are all there is. */
  | { kind: 'outcome'; status: RecordedOutcome };

/** The execution statuses that say a run happened. */
export type RecordedOutcome = 'completed' | 'failed' | 'cancelled';

export interface Replay {
  /** items[p] is what position p adds; items[0] is the start. */
  items: ReplayItem[];
  /** N, the last position. */
  length: number;
  constructionSteps: number;
  /** Every agent that appears at any position: the design's agents, then construction-only ones. */
  agents: Map<string, Agent>;
  /** Every edge that appears at any position (design edges plus construction links). */
  edges: GraphEdge[];
  /** The design's sink (final answer agent), when it has exactly one. */
  sink: string | null;
  /** Indices into `trace.execution.events` per agent, in order. */
  eventsByAgent: Map<string, number[]>;
  /** Execution time span in ms (first event to last event end), for the timeline. */
  timeSpan: { start: number; end: number };
  /**
   * Set when the trace says the run finished but holds no events (a source that published only
   * the outcome, such as MAS-Orchestra's case pages): the last position shows that outcome.
   */
  outcomeOnly: RecordedOutcome | null;
}

/** A dashed candidate edge of the current construction step, labelled with π_edge. */
export interface CandidateEdge {
  from: string;
  to: string;
  p: number;
  chosen: boolean;
}

export interface AgentProgress {
  status: AgentStatus;
  /**
   * LLM calls finished by the replay cursor (`ReplayState.time`), with their tokens and cost: a
   * call is recorded at its start (`t`) and counts once the cursor reaches its end (`t + latencyMs`)
   * or its agent has ended.
   */
  calls: number;
  tokens: number;
  costUsd: number;
  /** Calls started but not finished at the cursor: under way, their tokens not counted yet. */
  callsInFlight: number;
  /** Set once the agent ended (its output) or failed (its placeholder). */
  output: string | null;
}

export interface ReplayState {
  position: number;
  phase: 'start' | 'construction' | 'execution';
  item: ReplayItem;
  description: string;
  /** Agents visible at this position, in a stable order. */
  agents: string[];
  edges: GraphEdge[];
  /** The construction step just applied, with its candidate edges (construction phase only). */
  candidate: { step: ConstructionStep; target: string | null; edges: CandidateEdge[] } | null;
  progress: Map<string, AgentProgress>;
  /** How many execution events are applied (0 before execution). */
  eventsApplied: number;
  /** Edges carrying data now: producer done (or failed) and consumer running. Keys are `from>to`. */
  flowing: Set<string>;
  /** The replay cursor in execution time (ms); null before execution starts. */
  time: number | null;
  /** The agent the current item is about, if any. */
  focus: string | null;
}

export const edgeId = (e: GraphEdge): string => `${e.from}>${e.to}`;

function eventEnd(e: TraceEvent): number {
  return e.t + (e.type === 'llm.call' ? e.latencyMs : 0);
}

/** The finished status of a run recorded without any event, else null. */
export function outcomeOnlyOf(trace: Trace): RecordedOutcome | null {
  const status = trace.execution.status;
  if (trace.execution.events.length > 0) return null;
  return status === 'completed' || status === 'failed' || status === 'cancelled' ? status : null;
}

export function buildReplay(trace: Trace): Replay {
  const agents = new Map<string, Agent>();
  for (const a of trace.design.agents) agents.set(a.id, a);
  const edges: GraphEdge[] = [];
  const seen = new Set<string>();
  const addEdge = (e: GraphEdge): void => {
    const k = edgeId(e);
    if (!seen.has(k) && e.from !== e.to) {
      seen.add(k);
      edges.push({ from: e.from, to: e.to });
    }
  };
  for (const e of trace.design.edges) addEdge(e);
  for (const step of trace.construction) {
    const a = step.action;
    if (a.kind === 'add') {
      if (!agents.has(a.agentId)) {
        agents.set(a.agentId, {
          id: a.agentId,
          type: a.agentType,
          role: a.role,
          description: `${a.role} (added during construction)`,
          input: '',
          params: {},
        });
      }
      for (const from of a.links) addEdge({ from, to: a.agentId });
    }
  }
  const eventsByAgent = new Map<string, number[]>();
  let start = Infinity;
  let end = 0;
  trace.execution.events.forEach((e, i) => {
    start = Math.min(start, e.t);
    end = Math.max(end, eventEnd(e));
    if ('agentId' in e) {
      const list = eventsByAgent.get(e.agentId);
      if (list) list.push(i);
      else eventsByAgent.set(e.agentId, [i]);
    }
  });
  const items: ReplayItem[] = [{ kind: 'start' }];
  trace.construction.forEach((step, index) => items.push({ kind: 'construction', index, step }));
  trace.execution.events.forEach((event, index) => items.push({ kind: 'event', index, event }));
  const outcomeOnly = outcomeOnlyOf(trace);
  if (outcomeOnly) items.push({ kind: 'outcome', status: outcomeOnly });
  return {
    items,
    length: items.length - 1,
    constructionSteps: trace.construction.length,
    agents,
    edges,
    sink: trace.result.answerAgent ?? sinkOf(trace.design),
    eventsByAgent,
    timeSpan: Number.isFinite(start) ? { start: Math.min(start, 0), end } : { start: 0, end: 0 },
    outcomeOnly,
  };
}

/** Short text for the position readout, e.g. "llm.call judge" or "add Critic → a3". */
export function describeItem(item: ReplayItem): string {
  if (item.kind === 'start') return 'start';
  if (item.kind === 'outcome') return `outcome: ${item.status} · no events recorded`;
  if (item.kind === 'construction') {
    const a = item.step.action;
    if (a.kind === 'add') return `add ${a.role} → ${a.agentId}`;
    if (a.kind === 'delete') return `delete ${a.agentId}`;
    return a.summarizerId ? `exit → ${a.summarizerId}` : 'exit';
  }
  const e = item.event;
  if (e.type === 'run.end') return `run.end ${e.status}`;
  if (e.type === 'agent.note') return `agent.note ${e.agentId} (${e.kind})`;
  return `${e.type} ${e.agentId}`;
}

/** The construction graph after applying steps [0, count). */
function constructionGraph(
  trace: Trace,
  count: number,
): { agents: string[]; edges: GraphEdge[]; target: string | null } {
  const present: string[] = [];
  let edges: GraphEdge[] = [];
  let target: string | null = null;
  const designInto = (id: string): GraphEdge[] => trace.design.edges.filter((e) => e.to === id);
  for (let i = 0; i < count; i++) {
    const a = (trace.construction[i] as ConstructionStep).action;
    if (a.kind === 'add') {
      const links = a.links.filter((l) => present.includes(l));
      if (!present.includes(a.agentId)) present.push(a.agentId);
      edges = edges.concat(links.map((from) => ({ from, to: a.agentId })));
      target = a.agentId;
    } else if (a.kind === 'delete') {
      const at = present.indexOf(a.agentId);
      if (at >= 0) present.splice(at, 1);
      edges = edges.filter((e) => e.from !== a.agentId && e.to !== a.agentId);
      target = a.agentId;
    } else {
      target = a.summarizerId ?? null;
      if (a.summarizerId && !present.includes(a.summarizerId)) {
        const id = a.summarizerId;
        // EXIT hands every intermediate answer to the summariser: use the design's edges into it
        // when the design has them, otherwise link every agent present.
        const fromDesign = designInto(id).filter((e) => present.includes(e.from));
        const froms = fromDesign.length > 0 ? fromDesign.map((e) => e.from) : [...present];
        present.push(id);
        edges = edges.concat(froms.map((from) => ({ from, to: id })));
      }
    }
  }
  return { agents: present, edges, target };
}

/**
 * What a recorded outcome says about each agent. A completed run ran every agent, and the final
 * agent's output is the final answer. A failed or cancelled one says nothing about the others; its
 * final agent finished if there is a final answer, and failed otherwise.
 */
function applyOutcome(
  progress: Map<string, AgentProgress>,
  status: RecordedOutcome,
  sink: string | null,
  finalAnswer: string | null,
): void {
  if (status === 'completed') for (const pr of progress.values()) pr.status = 'done';
  const last = sink === null ? undefined : progress.get(sink);
  if (!last) return;
  last.status = finalAnswer !== null || status === 'completed' ? 'done' : 'failed';
  last.output = finalAnswer;
}

/**
 * Counts each started call into its agent's progress once it has finished at the cursor: its end
 * (`t + latencyMs`) is at or before `time`, or its agent has already ended or failed. The rest are
 * in flight.
 */
function countCalls(
  started: readonly { call: Extract<TraceEvent, { type: 'llm.call' }>; pr: AgentProgress }[],
  time: number | null,
): void {
  for (const { call, pr } of started) {
    const ended = pr.status === 'done' || pr.status === 'failed';
    if (ended || (time !== null && call.t + call.latencyMs <= time)) {
      pr.calls += 1;
      pr.tokens += call.promptTokens + call.completionTokens;
      pr.costUsd += call.costUsd;
    } else pr.callsInFlight += 1;
  }
}

export function replayStateAt(replay: Replay, trace: Trace, position: number): ReplayState {
  const p = Math.max(0, Math.min(replay.length, Math.round(Number.isFinite(position) ? position : 0)));
  const item = replay.items[p] as ReplayItem;
  const S = replay.constructionSteps;
  const inConstruction = S > 0 && p <= S;
  const phase: ReplayState['phase'] = p === 0 ? 'start' : p <= S ? 'construction' : 'execution';

  let agents: string[];
  let edges: GraphEdge[];
  let candidate: ReplayState['candidate'] = null;
  if (inConstruction) {
    const g = constructionGraph(trace, p);
    agents = g.agents;
    edges = g.edges;
    if (item.kind === 'construction') {
      const step = item.step;
      const to = step.action.kind === 'add' ? step.action.agentId : null;
      const chosen = new Set(step.action.kind === 'add' ? step.action.links : []);
      candidate = {
        step,
        target: g.target,
        edges: to
          ? step.edgeProbabilities
              .filter((ep) => ep.from !== to && agents.includes(ep.from))
              .map((ep) => ({ from: ep.from, to, p: ep.p, chosen: chosen.has(ep.from) }))
          : [],
      };
    }
  } else {
    agents = trace.design.agents.map((a) => a.id);
    edges = trace.design.edges;
  }

  const events = trace.execution.events;
  const eventsApplied = Math.min(events.length, Math.max(0, p - S));
  const progress = new Map<string, AgentProgress>();
  const fresh = (): AgentProgress => ({
    status: 'pending',
    calls: 0,
    tokens: 0,
    costUsd: 0,
    callsInFlight: 0,
    output: null,
  });
  for (const id of agents) progress.set(id, fresh());
  const started: { call: Extract<TraceEvent, { type: 'llm.call' }>; pr: AgentProgress }[] = [];
  let time: number | null = null;
  for (let i = 0; i < eventsApplied; i++) {
    const e = events[i] as TraceEvent;
    time = e.t;
    if (!('agentId' in e)) continue;
    let pr = progress.get(e.agentId);
    if (!pr) {
      // Events may name agents outside the design (imported traces); track them all the same.
      pr = fresh();
      progress.set(e.agentId, pr);
    }
    if (e.type === 'agent.start') pr.status = 'running';
    else if (e.type === 'llm.call') {
      started.push({ call: e, pr });
      if (pr.status === 'pending') pr.status = 'running';
    } else if (e.type === 'agent.end') {
      pr.status = 'done';
      pr.output = e.output;
    } else if (e.type === 'agent.error') {
      pr.status = 'failed';
      pr.output = e.placeholder;
    }
  }
  if (item.kind === 'outcome') applyOutcome(progress, item.status, replay.sink, trace.result.finalAnswer);
  // At the end of the run the cursor sits at the end of the last call, not its start.
  if (eventsApplied === events.length && events.length > 0) time = replay.timeSpan.end;
  countCalls(started, time);

  const flowing = new Set<string>();
  if (phase === 'execution') {
    for (const e of edges) {
      const from = progress.get(e.from)?.status;
      if ((from === 'done' || from === 'failed') && progress.get(e.to)?.status === 'running')
        flowing.add(edgeId(e));
    }
  }

  let focus: string | null = null;
  if (item.kind === 'event' && 'agentId' in item.event) focus = item.event.agentId;
  else if (item.kind === 'outcome') focus = replay.sink;
  else if (item.kind === 'construction') focus = candidate?.target ?? null;

  return {
    position: p,
    phase,
    item,
    description: describeItem(item),
    agents,
    edges,
    candidate,
    progress,
    eventsApplied,
    flowing,
    time,
    focus,
  };
}
