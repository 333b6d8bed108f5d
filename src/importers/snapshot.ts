import { z } from 'zod';
import { describe } from '../core/errors.ts';
import { topoOrder } from '../core/graph.ts';
import { zodProblems } from '../core/parse-trace.ts';
import { fail, ok, type Problem, type Result } from '../core/result.ts';
import { minimalTrace, traceIdFrom, withTotals } from '../core/trace-builders.ts';
import { TraceSchema, type Designer, type TaskSource, type Trace, type TraceEvent } from '../core/trace.ts';
import { parseDesign } from '../design/parse.ts';
import type { RawAgent, RawDesign } from '../design/raw.ts';
import { sinkOf } from '../design/validate.ts';
import { lenientCorrect } from '../answers/index.ts';
import { finishDesign } from './design.ts';
import { MAS_ORCHESTRA } from './slides.ts';
import type { ImportItem } from './types.ts';

/**
 * MAS-Orchestra's live demo shares a run as one JSON object (shape in docs/importers.md). It has
 * the plan, the graph, each agent's final state and the final answer, but no times and no
 * per-call detail, so the trace gets one `agent.start` / `agent.end` / `agent.error` per agent,
 * all at t = 0, in graph order, with a note saying so.
 */

const text = z.union([z.string(), z.number()]).transform(String);

const SnapshotAgentSchema = z.looseObject({
  id: z.string().max(10_000),
  type: z.string().max(10_000),
  description: z.string().nullish(),
  input: z.string().nullish(),
  depends_on: z.array(z.string().max(10_000)).max(5_000).nullish(),
  debate_roles: z.array(z.string()).nullish(),
  subagent_config: z.record(z.string(), z.unknown()).nullish(),
});

const GraphSchema = z.looseObject({
  agents: z.array(SnapshotAgentSchema).max(5_000).default([]),
  edges: z
    .array(z.looseObject({ source: z.string().max(10_000), target: z.string().max(10_000) }))
    .max(50_000)
    .default([]),
  answer_agent: z.string().nullish(),
  direct_solution: z.union([z.string(), z.boolean(), z.number()]).nullish(),
});

const AgentStateSchema = z.looseObject({
  status: z.string().max(100),
  output: text.nullish(),
  error: text.nullish(),
});

export const SnapshotSchema = z.looseObject({
  problem: z.string(),
  dataset: z.string().max(10_000).nullish(),
  dom: z.string().max(100).nullish(),
  subagent_model: z.string().max(10_000).nullish(),
  expected_answer: z.union([text, z.array(text).max(64)]).nullish(),
  plan: z
    .looseObject({ xml: z.string().nullish(), graph: z.unknown().optional(), thinking: z.string().nullish() })
    .nullish(),
  graph: GraphSchema.nullish(),
  agent_states: z.record(z.string(), AgentStateSchema).nullish(),
  final_answer: text.nullish(),
  chat_messages: z.array(z.unknown()).nullish(),
  title: z.string().nullish(),
  created_at: z.union([z.string(), z.number()]).nullish(),
});
type Snapshot = z.infer<typeof SnapshotSchema>;

/** True when an object has the fields of a demo snapshot. */
export function looksLikeSnapshot(v: unknown): boolean {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return 'problem' in o && ('graph' in o || 'plan' in o || 'agent_states' in o);
}

export const NO_TIMING_NOTE =
  'MAS-Orchestra demo snapshots record no timing: every event of this run is at t = 0 ms, in graph order, not in the order things happened.';

/** Parameter names in `subagent_config` → Baton's agent parameters. */
const PARAM_NAMES: Record<string, string> = {
  debate_roles: 'debateRoles',
  num_samples: 'samples',
  n_samples: 'samples',
  samples: 'samples',
  max_rounds: 'maxRounds',
  rounds: 'maxRounds',
  num_rounds: 'maxRounds',
  max_tokens: 'maxTokens',
  temperature: 'temperature',
  model: 'model',
};

function createdAtOf(v: string | number | null | undefined, warnings: Problem[]): string | undefined {
  if (v === null || v === undefined || v === '') return undefined;
  // Epoch numbers: below 1e11 they are seconds (that is the year 5138 in milliseconds).
  const ms = typeof v === 'number' ? (v < 1e11 ? v * 1000 : v) : Date.parse(v);
  const d = Number.isFinite(ms) ? new Date(ms) : null;
  if (d === null || Number.isNaN(d.getTime())) {
    warnings.push({
      code: 'E_IMPORT_ITEM',
      message: `created_at ${JSON.stringify(v).slice(0, 60)} is not a date; it was left out.`,
    });
    return undefined;
  }
  return d.toISOString();
}

function sourceOf(dataset: string | null | undefined): TaskSource {
  if (!dataset) return { kind: 'imported', tool: MAS_ORCHESTRA, ref: 'demo snapshot' };
  const axis = /(depth|horizon|breadth|parallel|robustness)[_-]?(\d{1,2})\b/i.exec(dataset);
  if (axis && Number(axis[2]) >= 1 && Number(axis[2]) <= 64) {
    return {
      kind: 'masbench',
      axis: (axis[1] as string).toLowerCase() as 'depth',
      value: Number(axis[2]),
    };
  }
  return { kind: 'dataset', name: dataset.slice(0, 200) };
}

function agentOf(a: z.infer<typeof SnapshotAgentSchema>): RawAgent {
  const agent: RawAgent = {
    id: a.id.trim(),
    type: a.type.trim(),
    description: a.description ?? '',
    input: a.input ?? '',
  };
  const params: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(a.subagent_config ?? {})) {
    const name = PARAM_NAMES[k] ?? k;
    if (name === 'debateRoles') {
      if (Array.isArray(v)) agent.debateRoles = v.map(String);
    } else params[name] = v;
  }
  if (a.debate_roles) agent.debateRoles = a.debate_roles;
  if (Object.keys(params).length > 0) agent.params = params;
  return agent;
}

function rawDesignOf(s: Snapshot, dom: 'low' | 'high', warnings: Problem[]): RawDesign | null {
  const graph = s.graph ?? GraphSchema.safeParse(s.plan?.graph).data;
  if (graph) {
    const agents = graph.agents.map(agentOf);
    const edges = graph.edges.map((e) => ({ from: e.source.trim(), to: e.target.trim() }));
    // `depends_on` says the same as the edges; an edge only it names is added, not duplicated.
    const keys = new Set(edges.map((e) => `${e.from}\u0000${e.to}`));
    for (const a of graph.agents) {
      for (const d of a.depends_on ?? []) {
        const key = `${d.trim()}\u0000${a.id.trim()}`;
        if (!keys.has(key)) {
          keys.add(key);
          edges.push({ from: d.trim(), to: a.id.trim() });
        }
      }
    }
    return { dom, agents, edges };
  }
  if (s.plan?.xml) {
    const report = parseDesign(s.plan.xml, dom);
    for (const p of report.problems) warnings.push({ code: 'E_DESIGN_PARSE', message: `plan.xml: ${p}` });
    return report.raw;
  }
  return null;
}

export function snapshotToItem(value: unknown, fileName?: string): ImportItem {
  const parsed = SnapshotSchema.safeParse(value);
  if (!parsed.success) {
    return {
      label: 'demo snapshot',
      result: fail(
        ...zodProblems(parsed.error, 'E_IMPORT_ITEM', 5).map((p) => ({
          ...p,
          message: describe('E_IMPORT_ITEM', `not a MAS-Orchestra demo snapshot — ${p.message}`),
        })),
      ),
    };
  }
  const s = parsed.data;
  const label = (s.title?.trim() || s.problem.trim().split('\n')[0] || 'demo snapshot').slice(0, 120);
  try {
    return { label, result: snapshotToTrace(s, fileName) };
  } catch (e) {
    // Defensive: the steps above are written not to throw; a bug must not abort the import.
    return {
      label,
      result: fail({
        code: 'E_IMPORT_ITEM',
        message: describe('E_IMPORT_ITEM', `internal error: ${e instanceof Error ? e.message : String(e)}`),
      }),
    };
  }
}

function snapshotToTrace(s: Snapshot, fileName?: string): Result<Trace> {
  const warnings: Problem[] = [];
  const domRaw = s.dom === 'low' || s.dom === 'high' || s.dom === 'high_extensive' ? s.dom : undefined;
  if (s.dom && domRaw === undefined) {
    warnings.push({
      code: 'E_IMPORT_ITEM',
      message: `dom ${JSON.stringify(s.dom)} is not low, high or high_extensive; it was left out.`,
    });
  }
  const raw = rawDesignOf(s, domRaw === 'low' ? 'low' : 'high', warnings) ?? {
    dom: domRaw === 'low' ? 'low' : 'high',
    agents: [],
    edges: [],
  };
  const finalAnswer = s.final_answer ?? null;
  const direct = s.graph?.direct_solution;
  const tags = ['mas-orchestra', 'demo-snapshot', 'no-timing'];
  let validate = true;
  if (raw.agents.length === 0) {
    validate = false;
    if (typeof direct === 'string' && direct.trim() !== '') raw.directAnswer = direct;
    else if (direct === true || direct === 1 || finalAnswer !== null) raw.directAnswer = finalAnswer ?? '';
    if (raw.directAnswer !== undefined) tags.push('direct-answer');
  }
  const thinking = s.plan?.thinking ?? raw.thinking;
  if (thinking) raw.thinking = thinking;
  const finished = finishDesign(raw, { validate });
  warnings.push(...finished.warnings);
  tags.push(...finished.tags);
  const design = finished.design;
  const idOf = (id: string): string => finished.renamed.get(id.trim()) ?? id.trim();

  // Events: graph order (topological when the graph allows it), everything at t = 0.
  const ids = design.agents.map((a) => a.id);
  const idSet = new Set(ids);
  const byId = new Map(design.agents.map((a) => [a.id, a]));
  const order = topoOrder(
    [...idSet],
    design.edges.filter((e) => idSet.has(e.from) && idSet.has(e.to)),
  ) ?? [...idSet];
  const states = new Map<string, z.infer<typeof AgentStateSchema>>();
  for (const [id, st] of Object.entries(s.agent_states ?? {})) {
    const mapped = idOf(id);
    if (!idSet.has(mapped)) {
      warnings.push({
        code: 'E_IMPORT_ITEM',
        message: `agent_states names "${id.slice(0, 80)}", which is not an agent of the graph; it was left out.`,
      });
    } else states.set(mapped, st);
  }
  const events: TraceEvent[] = [];
  const first = order[0];
  if (first !== undefined)
    events.push({ type: 'agent.note', t: 0, agentId: first, kind: 'import', text: NO_TIMING_NOTE });
  let unfinished = 0;
  let failed = 0;
  for (const id of order) {
    const agent = byId.get(id);
    const st = states.get(id);
    const status = st?.status.trim().toLowerCase();
    if (status === 'completed' || status === 'failed' || status === 'running') {
      events.push({ type: 'agent.start', t: 0, agentId: id, input: agent?.input ?? '' });
    }
    if (status === 'completed') {
      events.push({ type: 'agent.end', t: 0, agentId: id, output: st?.output ?? '' });
    } else if (status === 'failed') {
      failed++;
      const error = st?.error ?? 'failed (the snapshot gives no reason)';
      events.push({
        type: 'agent.error',
        t: 0,
        agentId: id,
        error,
        placeholder: `[${id} failed: ${error.slice(0, 500)}]`,
      });
    } else {
      unfinished++;
      events.push({
        type: 'agent.note',
        t: 0,
        agentId: id,
        kind: 'status',
        text: st ? `${st.status.slice(0, 100)} when the snapshot was taken` : 'no state in the snapshot',
      });
    }
  }
  // A failure without a final answer ended the run; otherwise a snapshot taken mid-run stays
  // "running", which is what the demo showed when it was shared.
  const status: Trace['execution']['status'] =
    failed > 0 && (finalAnswer === null || finalAnswer.trim() === '')
      ? 'failed'
      : unfinished > 0 && design.agents.length > 0
        ? 'running'
        : 'completed';
  if (status === 'running') tags.push('snapshot-incomplete');
  if (status !== 'running' && design.agents.length > 0) events.push({ type: 'run.end', t: 0, status });

  const truths =
    s.expected_answer === null || s.expected_answer === undefined
      ? []
      : ([] as string[]).concat(s.expected_answer);
  const groundTruth = truths[0] ?? null;
  const correct =
    truths.length === 0
      ? null
      : status === 'running'
        ? null
        : truths.some((t) => lenientCorrect(finalAnswer, t) === true);

  const answerRaw = s.graph?.answer_agent?.trim();
  const answerAgent = answerRaw ? idOf(answerRaw) : (sinkOf(design) ?? undefined);
  const hasAnswerAgent = answerAgent !== undefined && idSet.has(answerAgent);
  if (answerRaw && !hasAnswerAgent) {
    warnings.push({
      code: 'E_IMPORT_ITEM',
      message: `answer_agent "${answerRaw.slice(0, 80)}" is not an agent of the graph.`,
    });
  }
  if ((s.chat_messages?.length ?? 0) > 0) {
    warnings.push({
      code: 'E_IMPORT_ITEM',
      message: `The snapshot's ${s.chat_messages?.length} chat messages are not part of a trace and were left out.`,
    });
  }

  const createdAt = createdAtOf(s.created_at, warnings);
  const designer: Designer = {
    kind: 'imported',
    tool: MAS_ORCHESTRA,
    ...(s.subagent_model ? { subAgentModel: s.subagent_model } : {}),
    ...(domRaw ? { dom: domRaw } : {}),
  };
  const base = minimalTrace({
    id: traceIdFrom(fileName ?? '', 'snapshot', s.problem, String(s.created_at ?? '')),
    query: s.problem,
    groundTruth,
    source: sourceOf(s.dataset),
    designer,
    ...(createdAt ? { createdAt } : {}),
    ...(s.title?.trim() ? { title: s.title.trim().slice(0, 200) } : {}),
  });
  const trace: Trace = {
    ...base,
    ...(createdAt ? {} : { createdAtKnown: false }),
    task: { ...base.task, ...(truths.length > 1 ? { groundTruths: truths } : {}) },
    design,
    execution: {
      backend: {
        kind: 'imported',
        tool: MAS_ORCHESTRA,
        ...(s.subagent_model ? { model: s.subagent_model } : {}),
      },
      status,
      ...(createdAt ? { startedAt: createdAt } : {}),
      events,
    },
    result: { finalAnswer, ...(hasAnswerAgent ? { answerAgent } : {}), correct },
    tags: [...new Set(tags)].slice(0, 32),
  };
  const checked = TraceSchema.safeParse(withTotals(trace));
  if (!checked.success) return fail(...zodProblems(checked.error, 'E_IMPORT_ITEM'));
  return ok(checked.data, warnings);
}
