/**
 * The tiny orchestrator's own prompt and output format (format id `tiny`). Hub models get the chat
 * prompt of src/interop/orchestrator-prompt.ts; a model of a few hundred thousand parameters cannot
 * read a page of instructions, so it gets markers instead and writes MAS-Orchestra's XML design
 * channels in a compact, fully regular form that a constrained decoder can enforce.
 *
 * Prompt: `<|dom_low|>` or `<|dom_high|>`, the query (whitespace runs collapsed to one space; when
 * it is longer than the prompt budget, its start is dropped, since MASBench questions open with a
 * fixed rule and end with what they ask), then `<|design|>`. The model then writes the design and
 * `<|end|>`.
 *
 * Output (no whitespace between tags or blocks; shown on several lines here):
 *   <thinking>Role, Role, …</thinking>            the plan: the agents' roles in order, nothing else
 *   <agent><agent_id>SLUG-K</agent_id><agent_name>TYPE</agent_name><agent_description>ROLE</agent_description>
 *     <required_arguments><agent_input>${I}${J}…</agent_input></required_arguments></agent>
 *   …
 *   <edge><from>I</from><to>SLUG-K</to>…</edge>
 * Rules (what the `tiny` grammar enforces):
 * - agent K has id `SLUG-K`: its role's slug (`roleSlug`: `Debate Panel` → `debate-panel`) and K =
 *   1, 2, … in order, the policy's own id style;
 * - ROLE is a name from `tinyRoles(pool)` (the pool's roles, then `Summarizer`) and TYPE is that
 *   role's archive type; the thinking lists the same roles in the same order;
 * - agent_input holds only `${I}` references to the ids of agents written before it, each once
 *   (empty = the original query);
 * - the edge block holds exactly one `<from>I</from><to>SLUG-K</to>` pair per reference, in the order
 *   of the agents and, within one, of its references; so the graph is acyclic by construction;
 * - high DoM: at least one agent and exactly one sink (an agent no input references);
 *   low DoM: exactly one agent, no references, an empty `<edge></edge>`.
 * Debate roles and instructions are not written: `expandTinyDesign` takes them from the pool, so a
 * design the model writes runs exactly as the policy's design with the same roles and links.
 */
import { z } from 'zod';
import type { AgentType } from '../core/agents.ts';
import type { Agent, Design } from '../core/trace.ts';
import type { RawDesign } from '../design/raw.ts';
import { referencesIn } from '../design/references.ts';
import { fromDesign, validateDesign } from '../design/validate.ts';
import { SUMMARIZER_PROMPT, roleInstruction, roleSlug, type RolePool } from '../policy/index.ts';

export const TINY_FORMAT = 'tiny';

export const TINY_TOKENS = {
  pad: '<|pad|>',
  end: '<|end|>',
  domLow: '<|dom_low|>',
  domHigh: '<|dom_high|>',
  design: '<|design|>',
} as const;

/** The special tokens in id order (ids 0..4): the tokenizer is trained with exactly these. */
export const TINY_SPECIAL_TOKENS: readonly string[] = [
  TINY_TOKENS.pad,
  TINY_TOKENS.end,
  TINY_TOKENS.domLow,
  TINY_TOKENS.domHigh,
  TINY_TOKENS.design,
];

/**
 * The design format's tags, one token each (added, not special, so decoding with
 * `skip_special_tokens` keeps them): a tag costs one step instead of five byte-pair pieces.
 */
export const TINY_TAG_TOKENS: readonly string[] = [
  'thinking',
  'agent',
  'agent_id',
  'agent_name',
  'agent_description',
  'required_arguments',
  'agent_input',
  'edge',
  'from',
  'to',
].flatMap((t) => [`<${t}>`, `</${t}>`]);

/** The role the tiny format writes for a construction's EXIT summariser (not part of the pool). */
export const SUMMARIZER_ROLE = 'Summarizer';

export interface TinyRole {
  name: string;
  agentType: AgentType;
  /** The id stem: agent K of this role has id `<slug>-K`. */
  slug: string;
}

/** The roles a tiny design may name, in order: the pool's, then the summariser. */
export function tinyRoles(pool: RolePool): TinyRole[] {
  return [
    ...pool.roles.map((r) => ({ name: r.name, agentType: r.agentType, slug: roleSlug(r.name) })),
    { name: SUMMARIZER_ROLE, agentType: 'SummarizerAgent', slug: roleSlug(SUMMARIZER_ROLE) },
  ];
}

/** The id of the agent at `index` (0-based) with role `role`. */
export const tinyAgentId = (index: number, role: string): string => `${roleSlug(role)}-${index + 1}`;

const TrainedQuerySchema = z.object({
  baton: z.object({
    provenance: z.object({
      training: z.object({ maxQueryTokens: z.number().int().positive().max(1_000_000) }),
    }),
  }),
});

/**
 * The query tokens the model was trained on (config.json `baton.provenance.training.maxQueryTokens`,
 * written by scripts/train-orchestrator.ts), or null where the config does not state it. A longer
 * query is cut to this many tokens: the model never saw a longer one.
 */
export function trainedQueryTokens(config: unknown): number | null {
  const r = TrainedQuerySchema.safeParse(config);
  return r.success ? r.data.baton.provenance.training.maxQueryTokens : null;
}

/** The query as the prompt holds it: whitespace runs as one space, trimmed. */
export const tinyQueryText = (query: string): string => query.replace(/\s+/g, ' ').trim();

/**
 * Prompt token ids: the DoM marker, the query's last `maxQueryTokens` tokens, the design marker.
 * `encode` is the model's tokenizer.
 */
export function tinyPromptIds(
  query: string,
  dom: 'low' | 'high',
  encode: (text: string) => number[],
  maxQueryTokens: number,
): number[] {
  const q = encode(tinyQueryText(query));
  const kept = q.length > maxQueryTokens ? q.slice(q.length - maxQueryTokens) : q;
  const [mark] = encode(dom === 'low' ? TINY_TOKENS.domLow : TINY_TOKENS.domHigh);
  const [design] = encode(TINY_TOKENS.design);
  if (mark === undefined || design === undefined) throw new Error('the tokenizer lacks the tiny markers');
  return [mark, ...kept, design];
}

/** A design reduced to what the tiny format says: each agent's role and the agents it reads. */
export interface TinyPlan {
  dom: 'low' | 'high';
  agents: { role: string; links: number[] }[];
}

/**
 * The plan of a design whose agents carry their role names (the policy's designs do): agents in
 * order, links as indices of earlier agents in edge order. Throws when the design is not one the
 * tiny format can write (an agent without a known role, an edge backwards).
 */
export function tinyPlanOf(design: Design, pool: RolePool): TinyPlan {
  const roles = new Set(tinyRoles(pool).map((r) => r.name));
  const index = new Map(design.agents.map((a, i) => [a.id, i]));
  const agents = design.agents.map((a, k) => {
    const role = a.role ?? '';
    if (!roles.has(role)) throw new Error(`agent ${a.id} has no role of the pool`);
    const links = design.edges
      .filter((e) => e.to === a.id)
      .map((e) => {
        const i = index.get(e.from);
        if (i === undefined || i >= k) throw new Error(`edge ${e.from} → ${e.to} does not go forward`);
        return i;
      });
    return { role, links };
  });
  return { dom: design.dom, agents };
}

/** The tiny text of a plan (see the file header); ends without `<|end|>`. */
export function tinyPlanText(plan: TinyPlan, pool: RolePool): string {
  const typeOf = new Map(tinyRoles(pool).map((r) => [r.name, r.agentType]));
  const idOf = (i: number): string => tinyAgentId(i, plan.agents[i]?.role ?? '');
  const lines = [`<thinking>${plan.agents.map((a) => a.role).join(', ')}</thinking>`];
  plan.agents.forEach((a, k) => {
    const type = typeOf.get(a.role);
    if (!type) throw new Error(`unknown role ${a.role}`);
    const input = a.links.map((i) => `\${${idOf(i)}}`).join('');
    lines.push(
      `<agent><agent_id>${idOf(k)}</agent_id><agent_name>${type}</agent_name>` +
        `<agent_description>${a.role}</agent_description><required_arguments>` +
        `<agent_input>${input}</agent_input></required_arguments></agent>`,
    );
  });
  const pairs = plan.agents.flatMap((a, k) =>
    a.links.map((i) => `<from>${idOf(i)}</from><to>${idOf(k)}</to>`),
  );
  lines.push(`<edge>${pairs.join('')}</edge>`);
  return lines.join('');
}

/** `tinyPlanText(tinyPlanOf(design))`: a teacher design as the tiny model writes it. */
export const tinyDesignText = (design: Design, pool: RolePool): string =>
  tinyPlanText(tinyPlanOf(design, pool), pool);

/** `${…}` lines of an agent's input, as the construction policy writes them (construction.ts `inputFor`). */
function inputFor(links: readonly string[]): string {
  if (links.length === 0) return '';
  return ['Outputs of earlier agents:', ...links.map((l) => `- ${l}: \${${l}}`)].join('\n');
}

/** The runnable design of a plan: each role's full instruction, debate roles and the policy's input text. */
export function designOfPlan(plan: TinyPlan, pool: RolePool): Design {
  const idOf = (i: number): string => tinyAgentId(i, plan.agents[i]?.role ?? '');
  const agents: Agent[] = plan.agents.map((a, k) => {
    const id = idOf(k);
    const links = a.links.map(idOf);
    if (a.role === SUMMARIZER_ROLE) {
      return {
        id,
        type: 'SummarizerAgent',
        description: SUMMARIZER_PROMPT,
        input: inputFor(links),
        role: SUMMARIZER_ROLE,
        params: {},
      };
    }
    const role = pool.roles.find((r) => r.name === a.role);
    if (!role) throw new Error(`unknown role ${a.role}`);
    const agent: Agent = {
      id,
      type: role.agentType,
      description: roleInstruction(role),
      input: inputFor(links),
      role: role.name,
      params: role.debateRoles ? { debateRoles: [...role.debateRoles] } : {},
    };
    return agent;
  });
  const edges = plan.agents.flatMap((a, k) => a.links.map((i) => ({ from: idOf(i), to: idOf(k) })));
  return { dom: plan.dom, thinking: plan.agents.map((a) => a.role).join(', '), agents, edges };
}

/** A design in canonical tiny form (ids `<slug>-K`, thinking = the plan): what the teacher scores and the model learns. */
export const canonicalDesign = (design: Design, pool: RolePool): Design =>
  designOfPlan(tinyPlanOf(design, pool), pool);

export type ExpandResult = { ok: true; design: Design; plan: TinyPlan } | { ok: false; problems: string[] };

/**
 * A parsed tiny design (`parseDesignXml` of the model's text) made runnable: each
 * `agent_description` must be a role of `tinyRoles(pool)` whose type is the `agent_name` written;
 * the references become the plan's links; the result must pass `validateDesign`. Problems are
 * sentences for the user; nothing throws.
 */
export function expandTinyDesign(raw: RawDesign, pool: RolePool): ExpandResult {
  const problems: string[] = [];
  if (raw.agents.length === 0) return { ok: false, problems: ['A tiny design has at least one agent.'] };
  const typeOf = new Map(tinyRoles(pool).map((r) => [r.name, r.agentType]));
  const index = new Map(raw.agents.map((a, i) => [a.id, i]));
  const agents: TinyPlan['agents'] = [];
  raw.agents.forEach((a, k) => {
    const type = typeOf.get(a.description.trim());
    if (type === undefined) {
      problems.push(`Agent "${a.id}": "${a.description}" is not a role of the pool.`);
      return;
    }
    if (a.type.trim().toLowerCase() !== type.toLowerCase())
      problems.push(`Agent "${a.id}": role ${a.description.trim()} runs as ${type}, not ${a.type}.`);
    const links: number[] = [];
    for (const ref of referencesIn(a.input)) {
      const i = index.get(ref);
      if (i === undefined || i >= k)
        problems.push(`Agent "${a.id}" reads "${ref}", which is not an earlier agent.`);
      else links.push(i);
    }
    agents.push({ role: a.description.trim(), links });
  });
  if (problems.length > 0) return { ok: false, problems };
  // The edges as written must be exactly the references (validator rule 9, on the text as written);
  // every other rule is checked on the runnable design (its debate roles come from the pool).
  const refs = new Set(agents.flatMap((a, k) => a.links.map((i) => `${i}>${k}`)));
  const written = raw.edges.map((e) => `${index.get(e.from) ?? -1}>${index.get(e.to) ?? -1}`);
  if (
    written.length !== refs.size ||
    !written.every((e) => refs.has(e)) ||
    new Set(written).size !== refs.size
  )
    problems.push('The <edge> block must list exactly one <from>/<to> pair per ${…} reference.');
  const plan: TinyPlan = { dom: raw.dom, agents };
  const design = designOfPlan(plan, pool);
  for (const v of validateDesign(fromDesign(design))) problems.push(v.message);
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, design: designOfPlan(plan, pool), plan };
}
