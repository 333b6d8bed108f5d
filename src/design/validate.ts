import { normaliseAgentType } from '../core/agents.ts';
import { adjacency, findCycle, reachable } from '../core/graph.ts';
import type { Agent, Design } from '../core/trace.ts';
import type { RawAgent, RawDesign } from './raw.ts';
import { referencesIn } from './references.ts';

/**
 * The rules a MAS design must keep (DESIGN.md "Design format"). Numbers are stable: they are shown
 * to users and used in tests, so never renumber; add new rules at the end.
 */
export const DESIGN_RULES = {
  1: 'Agent ids are unique and non-empty.',
  2: 'Every agent_name is an agent type Baton knows.',
  3: 'At least one agent has no incoming edge (a start).',
  4: 'Exactly one agent has no outgoing edge (the sink, whose output is the final answer).',
  5: 'Every agent lies on a path from a start to the sink.',
  6: 'The graph has no cycle.',
  7: 'No edge goes from an agent to itself.',
  8: 'No edge appears twice.',
  9: '`${X}` in the input of Y exactly when X→Y is an edge.',
  10: 'Edges and `${…}` references name existing agents.',
  11: 'A DebateAgent has at least two different debate roles (compared trimmed, ignoring case).',
  12: 'Low Degree of MAS allows at most one agent and no edges.',
  13: 'Agent ids use only ASCII letters, digits and _ . : -',
  14: 'A high Degree-of-MAS design has at least one agent.',
} as const;

export type RuleNumber = keyof typeof DESIGN_RULES;

export interface Violation {
  rule: RuleNumber;
  message: string;
  /** The agents or edge the violation is about, for highlighting. */
  agents?: string[];
}

const ID_RE = /^[A-Za-z0-9_.:-]+$/;

/**
 * An id in the id alphabet made from any text: accents dropped (`ñandú` → `nandu`), every other
 * run of characters outside the alphabet → `_`. Empty when nothing is left.
 */
export function asciiId(id: string): string {
  const cleaned = id
    .trim()
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^A-Za-z0-9_.:-]+/g, '_');
  return /^_*$/.test(cleaned) ? '' : cleaned;
}
const MAX_LISTED = 8;

const list = (ids: readonly string[]): string =>
  ids.length <= MAX_LISTED
    ? ids.map((i) => `"${i}"`).join(', ')
    : `${ids
        .slice(0, MAX_LISTED)
        .map((i) => `"${i}"`)
        .join(', ')} and ${ids.length - MAX_LISTED} more`;

/**
 * Rule 11. A debate is between different roles: `Critic` twice, or `Judge` and `judge `, is one
 * role arguing with itself, so names count once each, compared trimmed and ignoring case.
 * Returns the end of the violation's sentence, or null when the roles are fine.
 */
/** How a debate role is compared: trimmed and ignoring case (`Judge` and ` judge` are one role). */
export const debateRoleKey = (role: string): string => role.trim().toLowerCase();

/** The number of different debate roles (rule 11); role pools apply the same count. */
export function distinctDebateRoles(roles: readonly string[]): number {
  return new Set(roles.map(debateRoleKey).filter((k) => k !== '')).size;
}

function debateRolesProblem(given: readonly string[]): string | null {
  const named = given.map((r) => r.trim()).filter((r) => r !== '');
  const byKey = new Map<string, string[]>();
  for (const r of named) {
    const key = debateRoleKey(r);
    byKey.set(key, [...(byKey.get(key) ?? []), r]);
  }
  if (byKey.size >= 2) return null;
  if (named.length < 2) {
    return `has ${named.length} debate role${named.length === 1 ? '' : 's'}; it needs at least 2.`;
  }
  const same = [...(byKey.values().next().value ?? [])];
  const shown = [...new Set(same)];
  const names =
    shown.length === 1
      ? `"${shown[0]}" ${same.length === 2 ? 'twice' : `${same.length} times`}`
      : list(shown);
  const all = named.length === 2 ? 'both name' : 'they all name';
  return `has ${named.length} debate roles, but ${all} the same role (${names}; names are compared ignoring case and surrounding spaces); it needs at least 2 different roles.`;
}

/**
 * Checks every rule and reports every violation (not just the first). Pure and total: it never
 * throws, whatever the design holds.
 */
export function validateDesign(design: RawDesign): Violation[] {
  const v: Violation[] = [];
  const agents = design.agents;
  const ids = agents.map((a) => a.id);
  const idSet = new Set(ids);

  // Rule 1 / 13: ids.
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) dup.add(id);
    seen.add(id);
  }
  if (ids.some((id) => id.trim() === '')) v.push({ rule: 1, message: 'An agent has an empty agent_id.' });
  if (dup.size > 0) {
    v.push({ rule: 1, message: `Agent id used more than once: ${list([...dup])}.`, agents: [...dup] });
  }
  const badIds = ids.filter((id) => id.trim() !== '' && !ID_RE.test(id));
  if (badIds.length > 0) {
    const them = badIds.length === 1 ? 'it' : 'them';
    const hint = asciiId(badIds[0] as string);
    v.push({
      rule: 13,
      message: `Agent id${badIds.length === 1 ? '' : 's'} with characters other than ASCII letters, digits, _ . : -: ${list(badIds)}. Rename ${them}${hint === '' ? '' : ` (say, "${hint}")`} and every \${…} reference to ${them}.`,
      agents: badIds,
    });
  }

  // Rule 2: types. Rule 11: debate roles.
  for (const a of agents) {
    const type = normaliseAgentType(a.type);
    if (!type) {
      v.push({
        rule: 2,
        message: `Agent "${a.id}" has agent_name "${a.type.slice(0, 80)}", which is not a known agent type.`,
        agents: [a.id],
      });
    } else if (type === 'DebateAgent') {
      const problem = debateRolesProblem(a.debateRoles ?? []);
      if (problem !== null) {
        v.push({ rule: 11, message: `Debate agent "${a.id}" ${problem}`, agents: [a.id] });
      }
    }
  }

  // Rule 12: low DoM.
  if (design.dom === 'low') {
    if (agents.length > 1) {
      v.push({
        rule: 12,
        message: `Low Degree of MAS allows at most one agent; this design has ${agents.length}.`,
      });
    }
    if (design.edges.length > 0) {
      v.push({
        rule: 12,
        message: `Low Degree of MAS allows no edges; this design has ${design.edges.length}.`,
      });
    }
  } else if (agents.length === 0) {
    v.push({ rule: 14, message: 'The design has no agents.' });
  }

  // Rules 7, 8, 10 on edges.
  const edgeKeys = new Set<string>();
  const goodEdges: { from: string; to: string }[] = [];
  for (const e of design.edges) {
    let good = true;
    for (const end of [e.from, e.to]) {
      if (!idSet.has(end)) {
        v.push({ rule: 10, message: `Edge ${e.from} → ${e.to} names "${end}", which is not an agent.` });
        good = false;
      }
    }
    if (e.from === e.to) {
      v.push({
        rule: 7,
        message: `Edge ${e.from} → ${e.to} goes from the agent to itself.`,
        agents: [e.from],
      });
      good = false;
    }
    const key = `${e.from}\u0000${e.to}`;
    if (edgeKeys.has(key)) {
      v.push({
        rule: 8,
        message: `Edge ${e.from} → ${e.to} appears more than once.`,
        agents: [e.from, e.to],
      });
      good = false;
    }
    edgeKeys.add(key);
    if (good) goodEdges.push(e);
  }

  // Rules 9 and 10 on references.
  for (const a of agents) {
    for (const ref of referencesIn(a.input)) {
      if (!idSet.has(ref)) {
        v.push({
          rule: 10,
          message: `Agent "${a.id}" refers to \${${ref}}, which is not an agent.`,
          agents: [a.id],
        });
      } else if (!edgeKeys.has(`${ref}\u0000${a.id}`) && ref !== a.id) {
        v.push({
          rule: 9,
          message: `Agent "${a.id}" uses \${${ref}} in its input, but there is no edge ${ref} → ${a.id}.`,
          agents: [ref, a.id],
        });
      } else if (ref === a.id) {
        v.push({ rule: 9, message: `Agent "${a.id}" refers to its own output \${${ref}}.`, agents: [a.id] });
      }
    }
  }
  for (const e of goodEdges) {
    const target = agents.find((a) => a.id === e.to);
    if (target && !referencesIn(target.input).includes(e.from)) {
      v.push({
        rule: 9,
        message: `Edge ${e.from} → ${e.to} exists, but the input of "${e.to}" does not use \${${e.from}}.`,
        agents: [e.from, e.to],
      });
    }
  }

  // Graph-shape rules (3, 4, 5, 6) on the unique ids and the well-formed edges.
  if (agents.length > 0 && design.dom === 'high') {
    const nodes = [...idSet];
    const { out, in: inn } = adjacency(nodes, goodEdges);
    const starts = nodes.filter((n) => (inn.get(n)?.length ?? 0) === 0);
    const sinks = nodes.filter((n) => (out.get(n)?.length ?? 0) === 0);
    if (starts.length === 0) {
      v.push({ rule: 3, message: 'No agent is a start: every agent has an incoming edge.' });
    }
    if (sinks.length === 0) {
      v.push({
        rule: 4,
        message: 'No agent is a sink: every agent has an outgoing edge, so there is no final answer.',
      });
    } else if (sinks.length > 1) {
      v.push({
        rule: 4,
        message: `There are ${sinks.length} sinks (${list(sinks)}); exactly one agent may have no outgoing edge. Add a final agent that combines them.`,
        agents: sinks,
      });
    }
    const cycle = findCycle(nodes, goodEdges);
    if (cycle) {
      v.push({
        rule: 6,
        message: `The graph has a cycle: ${cycle.join(' → ')}.`,
        agents: cycle.slice(0, -1),
      });
    }
    if (sinks.length === 1) {
      const fromStart = reachable(starts, out);
      const toSink = reachable(sinks, inn);
      const off = nodes.filter((n) => !fromStart.has(n) || !toSink.has(n));
      if (off.length > 0) {
        v.push({
          rule: 5,
          message: `Not on a path from a start to the sink "${sinks[0]}": ${list(off)}.`,
          agents: off,
        });
      }
    }
  }
  return v;
}

/** The unique sink of a valid high-DoM design, or its single agent; null otherwise. */
export function sinkOf(design: Pick<Design, 'agents' | 'edges'>): string | null {
  const withOut = new Set(design.edges.map((e) => e.from));
  const sinks = design.agents.filter((a) => !withOut.has(a.id));
  return sinks.length === 1 ? (sinks[0] as Agent).id : null;
}

/** Converts a raw agent to the trace's agent shape (type normalised; unknown → CoTAgent). */
export function toAgent(raw: RawAgent): Agent {
  const params: Agent['params'] = {};
  for (const [k, val] of Object.entries(raw.params ?? {})) {
    if (
      typeof val === 'string' ||
      typeof val === 'number' ||
      typeof val === 'boolean' ||
      (Array.isArray(val) && val.every((x) => typeof x === 'string'))
    ) {
      params[k] = val as string;
    }
  }
  if (raw.debateRoles) params.debateRoles = raw.debateRoles;
  return {
    id: raw.id,
    type: normaliseAgentType(raw.type) ?? 'CoTAgent',
    description: raw.description,
    input: raw.input,
    ...(raw.role !== undefined ? { role: raw.role } : {}),
    params,
  };
}

/** Raw design → trace design. Call after `validateDesign` returned no violations. */
export function toDesign(raw: RawDesign): Design {
  return {
    dom: raw.dom,
    ...(raw.thinking !== undefined ? { thinking: raw.thinking } : {}),
    agents: raw.agents.map(toAgent),
    edges: raw.edges.map((e) => ({ from: e.from, to: e.to })),
    ...(raw.directAnswer !== undefined ? { directAnswer: raw.directAnswer } : {}),
  };
}

/** Trace design → raw design (for re-validating or serialising). */
export function fromDesign(design: Design): RawDesign {
  return {
    dom: design.dom,
    ...(design.thinking !== undefined ? { thinking: design.thinking } : {}),
    agents: design.agents.map((a) => {
      const { debateRoles, ...params } = a.params;
      return {
        id: a.id,
        type: a.type,
        description: a.description,
        input: a.input,
        ...(a.role !== undefined ? { role: a.role } : {}),
        ...(debateRoles ? { debateRoles } : {}),
        params,
      };
    }),
    edges: design.edges,
    ...(design.directAnswer !== undefined ? { directAnswer: design.directAnswer } : {}),
  };
}
