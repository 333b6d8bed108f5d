import type { RawAgent } from '../design/raw.ts';
import { parseRoleList } from '../design/xml.ts';
import { readPyLiteral, lineColumn, type PyValue } from './py-literal.ts';

/**
 * Recovers the design from the `forward()` code MAS-Orchestra generates (`mas_code` on its case
 * pages). The design sits in that code as Python literals:
 *
 * - single agent (both generator versions): `agent_name = """…"""`, `agent_description = """…"""`,
 *   `agent_id = """…"""` (older pages: `agent_output_id`), and `agent_calls = [{"name": …,
 *   "required_arguments": {"agent_input": …, "debate_roles": […]}}]`, written by `json.dumps` or
 *   by Python's `repr` (single quotes);
 * - multi-agent graph: `agents_config = [{"agent_id", "agent_name", "agent_description",
 *   "required_arguments"}, …]`, `edges = [[from, to], …]`, `execution_order = […]` and
 *   `sink_agents = […]`, all written by `json.dumps(…, indent=4)`.
 *
 * Only the literal on the right of each assignment is read; the code is never run.
 */
export type MasCodeForm = 'single' | 'multi' | 'direct' | 'unreadable';

export interface MasCodeDesign {
  form: MasCodeForm;
  agents: RawAgent[];
  edges: { from: string; to: string }[];
  /** `sink_agents` as written (multi-agent), or the single agent's id. */
  sinks: string[];
  /** `execution_order` as written (multi-agent only). */
  executionOrder?: string[];
  /** The sub-agent model named in the calls (`model='gpt-oss-120b'`), when present. */
  model?: string;
  /** What could not be read, for the user. */
  problems: string[];
}

/** Longest mas_code read; generated code is a few kilobytes, designs with many agents more. */
export const MAX_MAS_CODE_CHARS = 2_000_000;

const ASSIGNED = [
  'agent_name',
  'agent_description',
  'agent_id',
  'agent_output_id',
  'agent_calls',
  'agents_config',
  'edges',
  'execution_order',
  'sink_agents',
] as const;
type Assigned = (typeof ASSIGNED)[number];

/**
 * The first assignment `name = <literal>` for each name. Later assignments to the same name
 * (e.g. `agent_name = agent_calls[0]['name'] if …`) are expressions, not literals, and are skipped.
 */
function readAssignments(code: string, problems: string[]): Partial<Record<Assigned, PyValue>> {
  const found: Partial<Record<Assigned, PyValue>> = {};
  const re = new RegExp(`^[ \\t]*(${ASSIGNED.join('|')})[ \\t]*=(?!=)[ \\t]*`, 'gm');
  for (const m of code.matchAll(re)) {
    const name = m[1] as Assigned;
    if (name in found) continue;
    const at = (m.index ?? 0) + m[0].length;
    const next = code[at];
    // Only something that starts like a literal is read; `agent_calls[0]['name']` is not.
    if (next === undefined || !/["'[{(\-\d]|[rRuUbBTFN]/.test(next)) continue;
    const r = readPyLiteral(code, at, { verbatimTripleQuoted: true });
    if (r.ok) found[name] = r.value;
    else if (/["'[{(]/.test(next)) problems.push(`${name}: ${r.error} (${lineColumn(code, r.at)}).`);
  }
  return found;
}

const str = (v: PyValue | undefined): string | undefined => (typeof v === 'string' ? v : undefined);
const isRecord = (v: PyValue | undefined): v is { [k: string]: PyValue } =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** An agent from a `required_arguments` dict plus its id, name and description. */
function agentFrom(
  id: string,
  name: string,
  description: string,
  args: PyValue | undefined,
  problems: string[],
): RawAgent {
  const agent: RawAgent = { id, type: name, description, input: '' };
  if (!isRecord(args)) {
    if (args !== undefined) problems.push(`Agent "${id}": required_arguments is not a dict.`);
    return agent;
  }
  const input = args.agent_input;
  // The generator stores "" (two quote characters) and an empty string alike as "the question".
  if (typeof input === 'string') agent.input = input === '""' || input === "''" ? '' : input;
  else if (input !== undefined && input !== null) agent.input = String(input);
  const roles = args.debate_roles;
  if (Array.isArray(roles)) agent.debateRoles = roles.map((r) => (typeof r === 'string' ? r : String(r)));
  else if (typeof roles === 'string') {
    // MAS-Orchestra keeps roles it could not parse as the raw string.
    const list = parseRoleList(roles);
    if (list) agent.debateRoles = list;
    else problems.push(`Agent "${id}": debate_roles ${JSON.stringify(roles.slice(0, 80))} is not a list.`);
  }
  const params: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) {
    if (k === 'agent_input' || k === 'debate_roles') continue;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') params[k] = v;
    else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) params[k] = v;
  }
  if (Object.keys(params).length > 0) agent.params = params;
  return agent;
}

function modelIn(code: string): string | undefined {
  const m = /\bmodel\s*=\s*(['"])([^'"\n]{1,200})\1/.exec(code);
  return m?.[2];
}

function stringList(v: PyValue | undefined): string[] | undefined {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;
}

export function parseMasCode(code: string): MasCodeDesign {
  const problems: string[] = [];
  const trimmed = code.trim();
  const empty: MasCodeDesign = { form: 'direct', agents: [], edges: [], sinks: [], problems };
  // Empty code, or the marker MAS-Orchestra's parser returns when the orchestrator answered.
  if (trimmed === '' || trimmed === 'direct_answer') return empty;
  if (code.length > MAX_MAS_CODE_CHARS) {
    problems.push(`mas_code is ${code.length} characters long; the limit is ${MAX_MAS_CODE_CHARS}.`);
    return { ...empty, form: 'unreadable' };
  }
  const a = readAssignments(code, problems);
  const model = modelIn(code);
  const base = { problems, ...(model !== undefined ? { model } : {}) };

  if (a.agents_config !== undefined) {
    if (!Array.isArray(a.agents_config)) {
      problems.push('agents_config is not a list.');
      return { ...base, form: 'unreadable', agents: [], edges: [], sinks: [] };
    }
    const agents: RawAgent[] = [];
    a.agents_config.forEach((c, i) => {
      if (!isRecord(c)) {
        problems.push(`agents_config[${i}] is not a dict.`);
        return;
      }
      const id = str(c.agent_id) ?? '';
      const name = str(c.agent_name) ?? '';
      if (id === '' || name === '') problems.push(`agents_config[${i}] has no agent_id or agent_name.`);
      agents.push(agentFrom(id, name, str(c.agent_description) ?? '', c.required_arguments, problems));
    });
    const edges: { from: string; to: string }[] = [];
    if (a.edges !== undefined && !Array.isArray(a.edges)) problems.push('edges is not a list.');
    for (const [i, e] of (Array.isArray(a.edges) ? a.edges : []).entries()) {
      if (Array.isArray(e) && e.length === 2 && typeof e[0] === 'string' && typeof e[1] === 'string') {
        edges.push({ from: e[0].trim(), to: e[1].trim() });
      } else if (isRecord(e) && typeof e.from === 'string' && typeof e.to === 'string') {
        edges.push({ from: e.from.trim(), to: e.to.trim() });
      } else {
        problems.push(`edges[${i}] is not a [from, to] pair.`);
      }
    }
    const executionOrder = stringList(a.execution_order);
    return {
      ...base,
      form: 'multi',
      agents,
      edges,
      sinks: stringList(a.sink_agents) ?? [],
      ...(executionOrder ? { executionOrder } : {}),
    };
  }

  if (a.agent_calls !== undefined || a.agent_name !== undefined) {
    const calls = Array.isArray(a.agent_calls) ? a.agent_calls : [];
    if (a.agent_calls !== undefined && !Array.isArray(a.agent_calls))
      problems.push('agent_calls is not a list.');
    if (calls.length > 1)
      problems.push(`agent_calls has ${calls.length} calls; the first is used, as the generated code does.`);
    const call = calls[0];
    const callName = isRecord(call) ? str(call.name) : undefined;
    const name = callName ?? str(a.agent_name) ?? '';
    // Older generators left the output id empty ("not dealt with yet"); a lone agent still needs one.
    const id = (str(a.agent_id) ?? str(a.agent_output_id) ?? '').trim() || 'agent_1';
    if (name === '') problems.push('The code names no agent (agent_name / agent_calls[0].name).');
    const agent = agentFrom(
      id,
      name.trim(),
      (str(a.agent_description) ?? '').trim(),
      isRecord(call) ? call.required_arguments : undefined,
      problems,
    );
    return { ...base, form: 'single', agents: [agent], edges: [], sinks: [agent.id] };
  }

  if (problems.length === 0) {
    problems.push(
      'mas_code holds neither agents_config nor agent_calls, so no design could be read from it.',
    );
  }
  return { ...base, form: 'unreadable', agents: [], edges: [], sinks: [] };
}
