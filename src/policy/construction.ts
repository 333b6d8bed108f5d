/**
 * The MasHost construction state machine. Pure and immutable: `applyAction` returns a new state and
 * never changes its argument, so the Build page keeps a plain array of states for undo/redo.
 *
 * Invariants (they make `toValidDesign` always pass `validateDesign`):
 * - edges only go from an existing agent to the agent being added, so the graph is a DAG and
 *   agents are in topological order;
 * - an agent's input names `${id}` for exactly its incoming edges (validator rule 9);
 * - an agent without links reads the original question (empty input) and is a start.
 */
import type { AgentType } from '../core/agents.ts';
import type { Agent, ConstructionAction, Design, Edge } from '../core/trace.ts';
import { actionCount, deleteIndex, exitIndex, type PolicyAction } from './actions.ts';
import { SUMMARIZER_PROMPT, roleInstruction, roleSlug, type Role, type RolePool } from './roles.ts';

export interface ConstructionLimits {
  /** ADD is masked once this many agents exist (the EXIT summariser is not counted). */
  maxAgents: number;
  /** At step index maxSteps − 1 only EXIT is allowed (when there is an agent to summarise). */
  maxSteps: number;
}

export const DEFAULT_LIMITS: ConstructionLimits = { maxAgents: 12, maxSteps: 16 };

export interface BuiltAgent {
  id: string;
  /** Index of the role in the pool. */
  role: number;
  type: AgentType;
  /** Agents whose outputs feed this one (its incoming edges), in the order chosen. */
  links: readonly string[];
  /** Number of agents on the longest path from a start to this agent, this one included. */
  depth: number;
  /** Step index at which it was added. */
  addedAt: number;
}

export interface IntermediateResult {
  /** Index of the step whose MAS was run (`state.step − 1` when recorded by `withResult`). */
  step: number;
  /** The partial MAS's final answer; the encoder's `RESULT` features read it. */
  answer: string | null;
  /**
   * null when the task has no ground truth or the run failed. For rewards only: the encoder never
   * reads it (it is the label).
   */
  correct: boolean | null;
}

export interface ConstructionState {
  readonly pool: RolePool;
  readonly limits: ConstructionLimits;
  /** In the order added, hence topological. */
  readonly agents: readonly BuiltAgent[];
  /** Number of actions applied so far (the index of the next step). */
  readonly step: number;
  /** Agent ids in the order they were last changed; DELETE removes the last one. */
  readonly changed: readonly string[];
  /** Ids issued so far; ids are never reused, so a trace's steps stay unambiguous. */
  readonly issued: number;
  /** Node-head column of the previous action, or null before the first. */
  readonly lastAction: number | null;
  readonly exited: boolean;
  readonly summarizerId: string | null;
  readonly results: readonly IntermediateResult[];
}

/** Id of the EXIT summariser (and of the one `toValidDesign` adds to a partial MAS). */
export const SUMMARIZER_ID = 'summarizer';

export function initialState(pool: RolePool, limits: ConstructionLimits = DEFAULT_LIMITS): ConstructionState {
  if (!Number.isInteger(limits.maxAgents) || limits.maxAgents < 1) throw new Error('maxAgents must be ≥ 1');
  if (!Number.isInteger(limits.maxSteps) || limits.maxSteps < 2) throw new Error('maxSteps must be ≥ 2');
  return {
    pool,
    limits,
    agents: [],
    step: 0,
    changed: [],
    issued: 0,
    lastAction: null,
    exited: false,
    summarizerId: null,
    results: [],
  };
}

/** True when only EXIT is allowed: the step budget is spent and there is something to summarise. */
export const exitForced = (s: ConstructionState): boolean =>
  s.step >= s.limits.maxSteps - 1 && s.agents.length > 0;

/**
 * Action mask in node-head order (1 = allowed, 0 = masked): ADD needs room (< maxAgents), DELETE and
 * EXIT need an agent; at the last step only EXIT; after EXIT nothing.
 */
export function actionMask(s: ConstructionState): Float32Array {
  const mask = new Float32Array(actionCount(s.pool));
  if (s.exited) return mask;
  const n = s.agents.length;
  const forced = exitForced(s);
  if (!forced && n < s.limits.maxAgents) mask.fill(1, 0, s.pool.roles.length);
  if (!forced && n > 0) mask[deleteIndex(s.pool)] = 1;
  if (n > 0) mask[exitIndex(s.pool)] = 1;
  return mask;
}

/** Agents no other agent reads (the ends of the current branches). */
export function sinksOf(agents: readonly BuiltAgent[]): BuiltAgent[] {
  const out: BuiltAgent[] = [];
  for (const a of agents) if (!isRead(agents, a.id)) out.push(a);
  return out;
}

/** Whether an agent links `id` (a few agents with a few links each: no set needed). */
function isRead(agents: readonly BuiltAgent[], id: string): boolean {
  for (const b of agents) if (b.links.includes(id)) return true;
  return false;
}

export function edgesOf(agents: readonly BuiltAgent[]): Edge[] {
  const out: Edge[] = [];
  for (const a of agents) for (const from of a.links) out.push({ from, to: a.id });
  return out;
}

/** Depth of the current DAG: agents on its longest path (0 when empty). */
export const dagDepth = (agents: readonly BuiltAgent[]): number =>
  agents.reduce((m, a) => Math.max(m, a.depth), 0);

/** Id of the most recently changed agent (DELETE's target), or null when empty. */
export const lastChanged = (s: ConstructionState): string | null => s.changed[s.changed.length - 1] ?? null;

function depthOf(links: readonly string[], agents: readonly BuiltAgent[]): number {
  let d = 0;
  for (const l of links) {
    let depth = 0;
    for (const a of agents)
      if (a.id === l) {
        // As `find(…)?.depth ?? 0` reads it (a hand-built agent may lack a depth).
        depth = (a.depth as number | undefined) ?? 0;
        break;
      }
    d = Math.max(d, depth);
  }
  return d + 1;
}

/** `actionMask(s)[col] === 1`, without the mask. */
function allowed(s: ConstructionState, col: number): boolean {
  if (s.exited) return false;
  const n = s.agents.length;
  const roles = s.pool.roles.length;
  const forced = exitForced(s);
  if (col === roles + 1) return n > 0;
  if (col === roles) return !forced && n > 0;
  return Number.isInteger(col) && col >= 0 && col < roles && !forced && n < s.limits.maxAgents;
}

/** Role names → id prefixes (`roleSlug`, two regular expressions): a pool has a few names. */
const slugs = new Map<string, string>();

function slugOf(name: string): string {
  let slug = slugs.get(name);
  if (slug === undefined) {
    slug = roleSlug(name) || 'agent';
    if (slugs.size >= 1024) slugs.clear();
    slugs.set(name, slug);
  }
  return slug;
}

function isAgent(agents: readonly BuiltAgent[], id: string): boolean {
  for (const a of agents) if (a.id === id) return true;
  return false;
}

/** `[...xs, x]` without the iterator. */
function appended<T>(xs: readonly T[], x: T): T[] {
  const out = xs.slice();
  out.push(x);
  return out;
}

/** The fields of a state as `initialState` writes them, in its order. */
const STATE_KEYS = [
  'pool',
  'limits',
  'agents',
  'step',
  'changed',
  'issued',
  'lastAction',
  'exited',
  'summarizerId',
  'results',
] as const;

/**
 * `{ ...s, ...changes }`. A state with exactly the fields of `initialState`, in its order, is
 * written as an object literal: V8 copies a spread of states of a few hidden classes slowly (several
 * microseconds per construction step); any other state (say, with a field of its own) is spread.
 */
function stateWith(s: ConstructionState, changes: Partial<ConstructionState>): ConstructionState {
  const keys = Object.keys(s);
  if (keys.length !== STATE_KEYS.length || keys.some((k, i) => k !== STATE_KEYS[i]))
    return { ...s, ...changes };
  return {
    pool: changes.pool ?? s.pool,
    limits: changes.limits ?? s.limits,
    agents: changes.agents ?? s.agents,
    step: changes.step ?? s.step,
    changed: changes.changed ?? s.changed,
    issued: changes.issued ?? s.issued,
    lastAction: 'lastAction' in changes ? (changes.lastAction as number | null) : s.lastAction,
    exited: changes.exited ?? s.exited,
    summarizerId: 'summarizerId' in changes ? (changes.summarizerId as string | null) : s.summarizerId,
    results: changes.results ?? s.results,
  };
}

export interface Applied {
  state: ConstructionState;
  /** The action as a trace records it. */
  record: ConstructionAction;
}

/** Applies one action; throws when the mask forbids it or an ADD names an unknown or repeated link. */
export function applyAction(s: ConstructionState, action: PolicyAction): Applied {
  const col =
    action.kind === 'add' ? action.role : action.kind === 'delete' ? deleteIndex(s.pool) : exitIndex(s.pool);
  if (!allowed(s, col)) {
    const what =
      action.kind === 'add'
        ? `ADD ${s.pool.roles[action.role]?.name ?? `#${action.role}`}`
        : action.kind.toUpperCase();
    throw new Error(
      `${what} is not allowed at step ${s.step} (${s.agents.length} agents${s.exited ? ', exited' : ''})`,
    );
  }
  if (action.kind === 'add') {
    const role = s.pool.roles[action.role];
    if (!role) throw new Error(`no role with index ${action.role}`);
    const links = [...action.links];
    for (let i = 0; i < links.length; i++)
      for (let j = 0; j < i; j++) if (links[j] === links[i]) throw new Error('ADD links an agent twice');
    for (const l of links)
      if (!isAgent(s.agents, l)) throw new Error(`ADD links "${l}", which is not an agent`);
    const issued = s.issued + 1;
    const id = `${slugOf(role.name)}-${issued}`;
    const agent: BuiltAgent = {
      id,
      role: action.role,
      type: role.agentType,
      links,
      depth: depthOf(links, s.agents),
      addedAt: s.step,
    };
    return {
      state: stateWith(s, {
        step: s.step + 1,
        lastAction: col,
        agents: appended(s.agents, agent),
        changed: appended(s.changed, id),
        issued,
      }),
      record: { kind: 'add', role: role.name, agentId: id, agentType: role.agentType, links },
    };
  }
  if (action.kind === 'delete') {
    // `changed` lists every agent unless a caller built the state by hand; then the newest goes.
    const target = lastChanged(s) ?? (s.agents[s.agents.length - 1] as BuiltAgent).id;
    // Readers of the deleted agent lose that link (and the `${id}` in their input); depths shrink.
    const agents: BuiltAgent[] = [];
    for (const a of s.agents) {
      if (a.id === target) continue;
      const links = a.links.filter((l) => l !== target);
      agents.push({ ...a, links, depth: depthOf(links, agents) });
    }
    return {
      state: stateWith(s, {
        step: s.step + 1,
        lastAction: col,
        agents,
        changed: s.changed.filter((c) => c !== target),
      }),
      record: { kind: 'delete', agentId: target },
    };
  }
  return {
    state: stateWith(s, { step: s.step + 1, lastAction: col, exited: true, summarizerId: SUMMARIZER_ID }),
    record: { kind: 'exit', summarizerId: SUMMARIZER_ID },
  };
}

/** Records the intermediate answer of the MAS after the last step (from an IntermediateRunner). */
export function withResult(
  s: ConstructionState,
  answer: string | null,
  correct: boolean | null,
): ConstructionState {
  return stateWith(s, { results: appended(s.results, { step: s.step - 1, answer, correct }) });
}

/** `${id}` lines an agent's input holds for its links; empty (the original question) without links. */
export function inputFor(links: readonly string[]): string {
  if (links.length === 0) return '';
  let text = 'Outputs of earlier agents:';
  for (const l of links) text += `\n- ${l}: \${${l}}`;
  return text;
}

/**
 * `roleInstruction(role)` kept with the role object (every design of every step writes it for
 * each agent), with the three texts it was made from: a role changed in place is read again.
 */
const instructions = new WeakMap<Role, { name: string; prompt: string; refuseWhen: string; text: string }>();

function instructionOf(role: Role): string {
  const kept = instructions.get(role);
  if (kept && kept.name === role.name && kept.prompt === role.prompt && kept.refuseWhen === role.refuseWhen)
    return kept.text;
  const text = roleInstruction(role);
  instructions.set(role, { name: role.name, prompt: role.prompt, refuseWhen: role.refuseWhen, text });
  return text;
}

function toAgent(s: ConstructionState, a: BuiltAgent): Agent {
  const role = s.pool.roles[a.role];
  if (!role) throw new Error(`agent ${a.id} has an unknown role`);
  return {
    id: a.id,
    type: a.type,
    description: instructionOf(role),
    input: inputFor(a.links),
    role: role.name,
    params: role.debateRoles ? { debateRoles: [...role.debateRoles] } : {},
  };
}

/**
 * The design the state stands for, always valid (high DoM, one sink). After EXIT it ends in the
 * summariser fed by every sink; before EXIT (executing a partial MAS) a summariser is added only
 * when there is more than one sink. Null when there are no agents (nothing to run).
 */
export function toValidDesign(s: ConstructionState): Design | null {
  if (s.agents.length === 0) return null;
  const agents = s.agents.map((a) => toAgent(s, a));
  const edges = edgesOf(s.agents);
  const sinks = sinksOf(s.agents).map((a) => a.id);
  if (s.exited || sinks.length > 1) {
    agents.push({
      id: SUMMARIZER_ID,
      type: 'SummarizerAgent',
      description: SUMMARIZER_PROMPT,
      input: inputFor(sinks),
      role: 'Summarizer',
      params: {},
    });
    for (const from of sinks) edges.push({ from, to: SUMMARIZER_ID });
  }
  return { dom: 'high', agents, edges };
}
