/**
 * The tiny orchestrator's format, version 2 (format id `tiny2`; version 1 is tiny-format.ts, and a
 * model folder says which it speaks in config.json `baton.provenance.training.format`).
 *
 * Prompt: `<|dom_low|>` or `<|dom_high|>`, the WHOLE query (whitespace runs collapsed), then
 * `<|design|>`. Nothing is cut: the training script sizes the model's positions to the longest
 * query it is built for plus the longest design.
 *
 * Output (no whitespace between tags; the thinking holds newlines):
 *   <thinking>STRUCTURE
 *   ID: WHAT, WHY
 *   …</thinking>
 *   then either agents and the edge block, as in version 1 but each agent's role chosen freely:
 *   <agent><agent_id>SLUG-K</agent_id><agent_name>TYPE</agent_name><agent_description>ROLE</agent_description>
 *     <required_arguments><agent_input>${I}…</agent_input></required_arguments></agent>…<edge>…</edge>
 *   or, in low DoM only, a direct answer with no agent (MAS-Orchestra's second low-DoM branch):
 *   <answer>TEXT</answer>
 * The thinking is the plan in words: one line for how the design follows the task's structure
 * ("3 independent sub-problems → 3 branches in parallel, then a merge"), then one line per agent,
 * what it does and why it is there (what it reads). The training script writes it from the teacher
 * design (`planNotes`); the model learns to say it; the constraint holds it to plain text.
 *
 * Roles: the pool's, the summariser, and the five standalone archive agents (CoT, SC, Debate,
 * Reflexion, CEO) at the archive's defaults, so every candidate the teacher weighs can be written.
 * Rules the `tiny2` grammar and writer enforce: agent K has id `SLUG-K`; ROLE is a name of
 * `tiny2Roles(pool)` and TYPE its archive type; inputs hold only `${I}` references to earlier
 * agents, each once; the edge block lists one pair per reference; high DoM: at least one agent and
 * one sink; low DoM: exactly one agent without references and an empty `<edge></edge>`, or the
 * direct answer.
 */
import { z } from 'zod';
import type { AgentType } from '../core/agents.ts';
import type { Agent, AgentParams, Design } from '../core/trace.ts';
import { parseDesignXml } from '../design/xml.ts';
import { referencesIn } from '../design/references.ts';
import { fromDesign, validateDesign } from '../design/validate.ts';
import { SUMMARIZER_PROMPT, roleInstruction, type RolePool } from '../policy/index.ts';
import {
  SUMMARIZER_ROLE,
  TINY_TAG_TOKENS,
  tinyAgentId,
  tinyRoles,
  type TinyPlan,
  type TinyRole,
} from './tiny-format.ts';

export const TINY2_FORMAT = 'tiny2';

const FormatSchema = z.object({
  baton: z.object({
    provenance: z.object({ training: z.object({ format: z.string().max(40) }) }),
  }),
});

/**
 * The tiny format version a model folder speaks: 2 when its config.json says
 * `baton.provenance.training.format: "tiny2"` (scripts/train-orchestrator.ts writes it), else 1
 * (version-1 folders say `"tiny"` or nothing).
 */
export function tinyVersionOf(config: unknown): 1 | 2 {
  const r = FormatSchema.safeParse(config);
  return r.success && r.data.baton.provenance.training.format === TINY2_FORMAT ? 2 : 1;
}

/** Version 1's tags, then the direct answer's. */
export const TINY2_TAG_TOKENS: readonly string[] = [...TINY_TAG_TOKENS, '<answer>', '</answer>'];

/** A standalone archive agent as a role: run alone on the query, at the archive's defaults. */
export interface ArchiveRole extends TinyRole {
  params: AgentParams;
  what: string;
}

/**
 * The archive agents at the defaults `baton eval` runs them with (src/eval/methods.ts
 * `ARCHIVE_AGENTS`; a test holds the two equal).
 */
export const ARCHIVE_ROLES: readonly ArchiveRole[] = [
  { name: 'CoT', agentType: 'CoTAgent', slug: 'cot', params: {}, what: 'reasons step by step alone' },
  {
    name: 'SC',
    agentType: 'SCAgent',
    slug: 'sc',
    params: { samples: 5 },
    what: 'samples 5 solutions and takes the majority',
  },
  {
    name: 'Debate',
    agentType: 'DebateAgent',
    slug: 'debate',
    params: { debateRoles: ['Proponent', 'Skeptic'], maxRounds: 2 },
    what: 'two debaters argue for 2 rounds, then decide',
  },
  {
    name: 'Reflexion',
    agentType: 'ReflexionAgent',
    slug: 'reflexion',
    params: {},
    what: 'answers, then critiques and revises itself',
  },
  {
    name: 'CEO',
    agentType: 'CEOAgent',
    slug: 'ceo',
    params: {},
    what: 'a CEO leads a discussion of experts',
  },
];

/** The roles a v2 design may name, in order: the pool's, the summariser, the archive agents. */
export function tiny2Roles(pool: RolePool): TinyRole[] {
  return [
    ...tinyRoles(pool),
    ...ARCHIVE_ROLES.map((r) => ({ name: r.name, agentType: r.agentType as AgentType, slug: r.slug })),
  ];
}

/** A v2 plan: version 1's, or no agent and a direct answer (low DoM). */
export interface Tiny2Plan extends TinyPlan {
  /** Low DoM's direct answer (then `agents` is empty). */
  direct?: string;
}

/** Short "what it does" per default role (the pool's own `does` for other roles). */
const WHAT: Readonly<Record<string, string>> = {
  Decomposer: 'splits the chain into ordered sub-questions',
  Planner: 'splits the task into independent parts',
  Solver: 'solves step by step',
  Calculator: 'does the exact arithmetic',
  'Consensus Solver': 'samples several solutions, keeps the majority',
  Verifier: 'rechecks the answer, ignores misleading notes',
  Critic: 'lists the errors',
  'Debate Panel': 'two sides argue, then decide',
  Researcher: 'looks up outside facts',
  Extractor: 'puts the answer in the asked form',
  [SUMMARIZER_ROLE]: 'merges the outputs into one answer',
};

function whatOf(role: string, pool: RolePool): string {
  const archive = ARCHIVE_ROLES.find((r) => r.name === role);
  if (archive) return archive.what;
  const w = WHAT[role];
  if (w) return w;
  const does = pool.roles.find((r) => r.name === role)?.does ?? role;
  return does.replace(/\.$/, '').replace(/^./, (c) => c.toLowerCase());
}

/** The task's shape as the thinking names it (MASBench axes; masbench/shapes.ts). */
export interface TaskShape {
  axis: string;
  value: number;
}

function shapeWords(t: TaskShape): string {
  switch (t.axis) {
    case 'depth':
      return `a chain of ${t.value} dependent steps`;
    case 'parallel':
      return `${t.value} independent sub-problems`;
    case 'breadth':
      return `one result from ${t.value} inputs`;
    case 'horizon':
      return `${t.value} questions on one shared value`;
    case 'robustness':
      return `${t.value} misleading notes`;
    default:
      return 'a task';
  }
}

/** Longest path (in agents) to each agent. */
function levels(plan: TinyPlan): number[] {
  const lv: number[] = [];
  plan.agents.forEach((a, k) => {
    lv[k] = a.links.reduce((m, i) => Math.max(m, (lv[i] ?? 0) + 1), 0);
  });
  return lv;
}

/** Depth (agents on the longest path) and width (most agents on one level) of a plan. */
export function planShape(plan: TinyPlan): { depth: number; width: number } {
  const lv = levels(plan);
  const count = new Map<number, number>();
  for (const l of lv) count.set(l, (count.get(l) ?? 0) + 1);
  return {
    depth: lv.length ? Math.max(...lv) + 1 : 0,
    width: count.size ? Math.max(...count.values()) : 0,
  };
}

function designWords(plan: TinyPlan): string {
  const n = plan.agents.length;
  const roles = plan.agents.map((a) => a.role);
  if (n === 1) return `one ${roles[0]} alone`;
  const { depth, width } = planShape(plan);
  if (width === 1) return `a chain of ${depth}: ${roles.join(' → ')}`;
  const lv = levels(plan);
  const wide = [...new Set(lv)].find((l) => lv.filter((x) => x === l).length === width) ?? 0;
  const branch = plan.agents.filter((_, k) => lv[k] === wide).map((a) => a.role);
  const same = branch.every((r) => r === branch[0]);
  const sink = roles[n - 1];
  return `${width} ${same ? `${branch[0]}s` : 'agents'} in parallel, then ${sink === SUMMARIZER_ROLE ? 'a merge' : `a ${sink}`}`;
}

/**
 * The thinking of a v2 design: the structure line (the task's shape → the design's, when the task
 * is known), then one line per agent: its id, what it does and why (what it reads, whether it
 * gives the final answer).
 */
export function planNotes(plan: Tiny2Plan, pool: RolePool, task?: TaskShape): string {
  if (plan.agents.length === 0) {
    return `${task ? `${shapeWords(task)}; ` : ''}no sub-agent is worth its cost here: answer directly`;
  }
  const idOf = (i: number): string => tinyAgentId(i, plan.agents[i]?.role ?? '');
  const head = `${task ? `${shapeWords(task)} → ` : ''}${designWords(plan)}`;
  const n = plan.agents.length;
  const lines = plan.agents.map((a, k) => {
    const from =
      a.links.length === 0
        ? 'on the query'
        : a.links.length === 1
          ? `on ${idOf(a.links[0] as number)}`
          : `merging ${a.links.map(idOf).join(', ')}`;
    return `${idOf(k)}: ${whatOf(a.role, pool)}, ${from}${n > 1 && k === n - 1 ? ', final answer' : ''}`;
  });
  return [head, ...lines].join('\n');
}

/** The v2 text of a plan with its thinking (ends without `<|end|>`). */
export function tiny2PlanText(plan: Tiny2Plan, notes: string, pool: RolePool): string {
  const thinking = `<thinking>${notes.replace(/</g, '‹')}</thinking>`;
  if (plan.agents.length === 0)
    return `${thinking}<answer>${(plan.direct ?? '').replace(/</g, '‹')}</answer>`;
  const typeOf = new Map(tiny2Roles(pool).map((r) => [r.name, r.agentType]));
  const idOf = (i: number): string => tinyAgentId(i, plan.agents[i]?.role ?? '');
  const parts = [thinking];
  plan.agents.forEach((a, k) => {
    const type = typeOf.get(a.role);
    if (!type) throw new Error(`unknown role ${a.role}`);
    parts.push(
      `<agent><agent_id>${idOf(k)}</agent_id><agent_name>${type}</agent_name>` +
        `<agent_description>${a.role}</agent_description><required_arguments>` +
        `<agent_input>${a.links.map((i) => `\${${idOf(i)}}`).join('')}</agent_input></required_arguments></agent>`,
    );
  });
  const pairs = plan.agents.flatMap((a, k) =>
    a.links.map((i) => `<from>${idOf(i)}</from><to>${idOf(k)}</to>`),
  );
  parts.push(`<edge>${pairs.join('')}</edge>`);
  return parts.join('');
}

/** `${…}` lines of an agent's input, as the construction policy writes them. */
function inputFor(links: readonly string[]): string {
  if (links.length === 0) return '';
  return ['Outputs of earlier agents:', ...links.map((l) => `- ${l}: \${${l}}`)].join('\n');
}

/** The runnable design of a v2 plan (pool roles as version 1 expands them; archive roles at their defaults). */
export function designOfPlan2(plan: Tiny2Plan, pool: RolePool, thinking?: string): Design {
  const idOf = (i: number): string => tinyAgentId(i, plan.agents[i]?.role ?? '');
  const agents: Agent[] = plan.agents.map((a, k) => {
    const id = idOf(k);
    const input = inputFor(a.links.map(idOf));
    if (a.role === SUMMARIZER_ROLE)
      return { id, type: 'SummarizerAgent', description: SUMMARIZER_PROMPT, input, role: a.role, params: {} };
    const archive = ARCHIVE_ROLES.find((r) => r.name === a.role);
    if (archive) {
      return {
        id,
        type: archive.agentType as AgentType,
        description: '',
        input,
        role: archive.name,
        params: structuredClone(archive.params),
      };
    }
    const role = pool.roles.find((r) => r.name === a.role);
    if (!role) throw new Error(`unknown role ${a.role}`);
    return {
      id,
      type: role.agentType,
      description: roleInstruction(role),
      input,
      role: role.name,
      params: role.debateRoles ? { debateRoles: [...role.debateRoles] } : {},
    };
  });
  const edges = plan.agents.flatMap((a, k) => a.links.map((i) => ({ from: idOf(i), to: idOf(k) })));
  return {
    dom: plan.dom,
    thinking: thinking ?? plan.agents.map((a) => a.role).join(', '),
    agents,
    edges,
    ...(plan.agents.length === 0 ? { directAnswer: plan.direct ?? '' } : {}),
  };
}

/**
 * The plan of a design whose agents carry role names of `tiny2Roles(pool)` (policy designs, the
 * fixed designs, archive agents given their role), links in edge order; throws otherwise.
 */
export function tiny2PlanOf(design: Design, pool: RolePool): Tiny2Plan {
  const roles = new Set(tiny2Roles(pool).map((r) => r.name));
  const index = new Map(design.agents.map((a, i) => [a.id, i]));
  const agents = design.agents.map((a, k) => {
    const role = a.role ?? '';
    if (!roles.has(role)) throw new Error(`agent ${a.id} has no role of the v2 list`);
    const links = design.edges
      .filter((e) => e.to === a.id)
      .map((e) => {
        const i = index.get(e.from);
        if (i === undefined || i >= k) throw new Error(`edge ${e.from} → ${e.to} does not go forward`);
        return i;
      });
    return { role, links };
  });
  if (agents.length === 0) return { dom: design.dom, agents, direct: design.directAnswer ?? '' };
  return { dom: design.dom, agents };
}

export type Expand2Result =
  { ok: true; design: Design; plan: Tiny2Plan; branch: DesignBranch } | { ok: false; problems: string[] };

/** Which of MAS-Orchestra's branches a design took: answer directly, delegate to one agent, or a MAS. */
export type DesignBranch = 'direct' | 'delegate' | 'mas';

export const branchOf = (design: Design): DesignBranch =>
  design.agents.length === 0 ? 'direct' : design.dom === 'low' ? 'delegate' : 'mas';

const DIRECT = /^\s*<thinking>([^<]*)<\/thinking>\s*<answer>([^<]*)<\/answer>\s*$/;

/**
 * Reads a v2 output: the direct answer, or the agents (`parseDesignXml`) made runnable from the
 * role list; the result must pass `validateDesign`. Problems are sentences; nothing throws.
 */
export function readTiny2(text: string, dom: 'low' | 'high' | undefined, pool: RolePool): Expand2Result {
  const direct = DIRECT.exec(text);
  if (direct) {
    if (dom === 'high') return { ok: false, problems: ['High Degree of MAS has no direct answer.'] };
    const plan: Tiny2Plan = { dom: 'low', agents: [], direct: (direct[2] ?? '').trim() };
    const design = designOfPlan2(plan, pool, (direct[1] ?? '').trim());
    return { ok: true, design, plan, branch: 'direct' };
  }
  const { design: raw, problems } = parseDesignXml(text, dom);
  if (!raw || problems.length > 0) return { ok: false, problems: problems.map((p) => `parse error: ${p}`) };
  if (raw.agents.length === 0) return { ok: false, problems: ['The design has no agent and no answer.'] };
  const out: string[] = [];
  const typeOf = new Map(tiny2Roles(pool).map((r) => [r.name, r.agentType]));
  const index = new Map(raw.agents.map((a, i) => [a.id, i]));
  const agents: TinyPlan['agents'] = [];
  raw.agents.forEach((a, k) => {
    const role = a.description.trim();
    const type = typeOf.get(role);
    if (type === undefined) {
      out.push(`Agent "${a.id}": "${a.description}" is not a role of the v2 list.`);
      return;
    }
    if (a.type.trim().toLowerCase() !== type.toLowerCase())
      out.push(`Agent "${a.id}": role ${role} runs as ${type}, not ${a.type}.`);
    const links: number[] = [];
    for (const ref of referencesIn(a.input)) {
      const i = index.get(ref);
      if (i === undefined || i >= k)
        out.push(`Agent "${a.id}" reads "${ref}", which is not an earlier agent.`);
      else links.push(i);
    }
    agents.push({ role, links });
  });
  if (out.length > 0) return { ok: false, problems: out };
  const refs = new Set(agents.flatMap((a, k) => a.links.map((i) => `${i}>${k}`)));
  const written = raw.edges.map((e) => `${index.get(e.from) ?? -1}>${index.get(e.to) ?? -1}`);
  if (
    written.length !== refs.size ||
    !written.every((e) => refs.has(e)) ||
    new Set(written).size !== refs.size
  )
    out.push('The <edge> block must list exactly one <from>/<to> pair per ${…} reference.');
  const plan: Tiny2Plan = { dom: raw.dom, agents };
  const design = designOfPlan2(plan, pool, raw.thinking?.trim());
  for (const v of validateDesign(fromDesign(design))) out.push(v.message);
  if (out.length > 0) return { ok: false, problems: out };
  return { ok: true, design, plan, branch: branchOf(design) };
}
