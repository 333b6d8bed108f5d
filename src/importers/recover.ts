import type { DesignRecovery } from '../core/trace.ts';
import type { RawAgent, RawDesign } from '../design/raw.ts';
import { referencesIn } from '../design/references.ts';
import { validateDesign, type Violation } from '../design/validate.ts';
import { parseRoleList, unescapeXml } from '../design/xml.ts';

/**
 * Reads a design back out of the orchestrator's own text, for slides whose page published only a
 * rendered diagram. MAS-Orchestra's orchestrator drafts every agent as a block of tags in its
 * reasoning before it writes its final channel:
 *
 *   <agent_id>Solve</agent_id> <agent_name>CoTAgent</agent_name>
 *   <agent_description>…</agent_description>
 *   <required_arguments> <agent_input>Use ${Parse}</agent_input> </required_arguments>
 *
 * optionally wrapped in `<agent>…</agent>`, followed by one `<edge>` block of `<from>`/`<to>`
 * pairs. It often drafts more than once. The blocks are grouped into drafts (a new draft starts
 * where an id repeats, or where more than a short label of prose separates two blocks), and the
 * last complete draft that makes a valid design wins. Its edges are the drafted `<edge>` block's
 * pairs plus one per `${ref}`, and each change made on the way is listed in `repairs`.
 *
 * Pure and total: any text gives an outcome, never an exception.
 */

/** Text longer than this is not searched (the trace schema's text limit). */
export const MAX_RECOVERY_CHARS = 2_000_000;
/** Agent blocks read from one text, over all drafts. */
export const MAX_RECOVERY_BLOCKS = 500;
/** Characters of prose (tags and spaces aside) that may separate two blocks of one draft. */
const MAX_GAP_PROSE = 160;
/** Characters of prose that may separate a draft's last block from its `<edge>` block. */
const MAX_EDGE_GAP_PROSE = 400;

export type RecoveryOutcome =
  { ok: true; design: RawDesign; recovery: DesignRecovery } | { ok: false; reason: string };

interface Block {
  start: number;
  end: number;
  complete: boolean;
  /** Why the block is incomplete. */
  missing?: string;
  agent: RawAgent;
  /** `<agent_input>` was absent (read as empty, the original question). */
  noInput: boolean;
}

interface Draft {
  blocks: Block[];
  edgeBlock: { from: string; to: string }[] | null;
  /** Pairs in the edge block that did not pair up, or an edge block never closed. */
  edgeProblem?: string;
}

const OPEN_ID = /<agent_id\s*>/gi;

function tagIn(region: string, tag: string): { inner: string; end: number } | 'open' | null {
  const open = new RegExp(`<${tag}\\s*>`, 'i').exec(region);
  if (!open) {
    if (new RegExp(`<${tag}\\s*/>`, 'i').test(region)) return { inner: '', end: 0 };
    return null;
  }
  const from = open.index + open[0].length;
  const close = new RegExp(`</${tag}\\s*>`, 'i').exec(region.slice(from));
  if (!close) return 'open';
  return { inner: region.slice(from, from + close.index), end: from + close.index + close[0].length };
}

function clean(s: string): string {
  const t = unescapeXml(s.trim());
  return t === '""' || t === "''" ? '' : t;
}

function scalar(text: string): string | number | boolean {
  const t = text.trim();
  if (/^-?\d{1,15}(\.\d{1,15})?$/.test(t)) return Number(t);
  if (t === 'true' || t === 'false') return t === 'true';
  return unescapeXml(t);
}

function readBlock(text: string, start: number, stop: number): Block {
  const region = text.slice(start, stop);
  const empty: RawAgent = { id: '', type: '', description: '', input: '' };
  // An incomplete block ends right after its id, so the prose that follows it (a sentence that
  // only names the tag, say) separates it from the blocks after it.
  const id = tagIn(region, 'agent_id');
  if (id === null || id === 'open' || clean(id.inner) === '') {
    const at = /<agent_id\s*>/i.exec(region);
    const end = start + (at ? at.index + at[0].length : 0);
    return { start, end, complete: false, missing: '</agent_id>', agent: empty, noInput: false };
  }
  let end = id.end;
  const incomplete = (missing: string, agent: RawAgent): Block => ({
    start,
    end: start + id.end,
    complete: false,
    missing,
    agent,
    noInput: false,
  });
  const name = tagIn(region, 'agent_name');
  if (name === null || name === 'open' || clean(name.inner) === '') {
    return incomplete('<agent_name>', { ...empty, id: clean(id.inner) });
  }
  end = Math.max(end, name.end);
  const agent: RawAgent = { id: clean(id.inner), type: clean(name.inner), description: '', input: '' };
  const description = tagIn(region, 'agent_description');
  if (description === 'open') return incomplete('</agent_description>', agent);
  if (description) {
    agent.description = clean(description.inner);
    end = Math.max(end, description.end);
  }
  const args = tagIn(region, 'required_arguments');
  const argsText = args !== null && args !== 'open' ? args.inner : region;
  if (args !== null && args !== 'open') end = Math.max(end, args.end);
  const input = tagIn(argsText, 'agent_input');
  if (input === 'open') return incomplete('</agent_input>', agent);
  if (input) {
    agent.input = clean(input.inner);
    if (args === null || args === 'open') end = Math.max(end, input.end);
  }
  const roles = tagIn(argsText, 'debate_roles');
  if (roles !== null && roles !== 'open') {
    const list = parseRoleList(roles.inner);
    if (list !== null) agent.debateRoles = list;
  }
  if (args !== null && args !== 'open') {
    const params: Record<string, unknown> = {};
    for (const m of args.inner.matchAll(/<(\w{1,60})\s*>([^<]{0,10000})<\/\1\s*>/g)) {
      const key = m[1] as string;
      if (key !== 'agent_input' && key !== 'debate_roles') params[key] = scalar(m[2] as string);
    }
    if (Object.keys(params).length > 0) agent.params = params;
  }
  // A closing `</agent>` right after the fields belongs to the block.
  const after = /^\s*<\/agent\s*>/i.exec(region.slice(end));
  if (after) end += after[0].length;
  return { start, end: start + end, complete: true, agent, noInput: input === null };
}

/** The prose between two positions, with tags and whitespace left out. */
function proseBetween(text: string, from: number, to: number): string {
  return text
    .slice(from, Math.max(from, to))
    .replace(/<\/?[A-Za-z_][\w-]{0,40}\s*>/g, '')
    .replace(/\s+/g, '');
}

function readEdges(inner: string): { pairs: { from: string; to: string }[]; problem?: string } {
  const froms = [...inner.matchAll(/<from\s*>([\s\S]*?)<\/from\s*>/gi)].map((m) => clean(m[1] as string));
  const tos = [...inner.matchAll(/<to\s*>([\s\S]*?)<\/to\s*>/gi)].map((m) => clean(m[1] as string));
  const pairs = froms.slice(0, Math.min(froms.length, tos.length)).map((from, i) => ({
    from,
    to: tos[i] as string,
  }));
  return froms.length === tos.length
    ? { pairs }
    : { pairs, problem: `its <edge> block has ${froms.length} <from> and ${tos.length} <to>` };
}

/** The `<edge>` block that follows a draft's last block, if one does before `limit`. */
function edgeBlockAfter(text: string, from: number, limit: number): Pick<Draft, 'edgeBlock' | 'edgeProblem'> {
  const open = /<edge\s*>/i.exec(text.slice(from, limit));
  if (!open) return { edgeBlock: null };
  const at = from + open.index;
  if (proseBetween(text, from, at).length > MAX_EDGE_GAP_PROSE) return { edgeBlock: null };
  const bodyStart = at + open[0].length;
  const close = /<\/edge\s*>/i.exec(text.slice(bodyStart, limit));
  if (!close) return { edgeBlock: null, edgeProblem: 'its <edge> block is never closed' };
  const read = readEdges(text.slice(bodyStart, bodyStart + close.index));
  return { edgeBlock: read.pairs, ...(read.problem !== undefined ? { edgeProblem: read.problem } : {}) };
}

function draftsOf(text: string): Draft[] {
  const starts: number[] = [];
  for (const m of text.matchAll(OPEN_ID)) {
    starts.push(m.index);
    if (starts.length >= MAX_RECOVERY_BLOCKS) break;
  }
  // An `<agent_id>` never closed before the next one is a mention of the tag in prose, not a
  // block; only the last one can be a block the text was cut off in.
  const blocks = starts
    .map((s, i) => readBlock(text, s, starts[i + 1] ?? text.length))
    .filter((b, i, all) => b.missing !== '</agent_id>' || i === all.length - 1);
  const groups: Block[][] = [];
  for (const b of blocks) {
    const current = groups[groups.length - 1];
    const prev = current?.[current.length - 1];
    const sameDraft =
      current !== undefined &&
      prev !== undefined &&
      !/<edge\s*>/i.test(text.slice(prev.end, b.start)) &&
      proseBetween(text, prev.end, b.start).length <= MAX_GAP_PROSE &&
      !current.some((x) => x.agent.id !== '' && x.agent.id === b.agent.id);
    if (sameDraft) current.push(b);
    else groups.push([b]);
  }
  return groups.map((g, i) => {
    const last = g[g.length - 1] as Block;
    const limit = groups[i + 1]?.[0]?.start ?? text.length;
    return { blocks: g, ...edgeBlockAfter(text, last.end, limit) };
  });
}

interface Built {
  design: RawDesign;
  edgesFrom: DesignRecovery['edgesFrom'];
  repairs: string[];
  violations: Violation[];
}

function buildDesign(draft: Draft): Built {
  const repairs: string[] = [];
  const agents = draft.blocks.map((b) => b.agent);
  const ids = new Set(agents.map((a) => a.id));
  for (const b of draft.blocks) {
    if (b.noInput) repairs.push(`"${b.agent.id}" has no <agent_input>; it is read as empty (the question).`);
  }
  const edges: { from: string; to: string }[] = [];
  const seen = new Set<string>();
  const add = (e: { from: string; to: string }): boolean => {
    const key = `${e.from}\u0000${e.to}`;
    if (seen.has(key)) return false;
    seen.add(key);
    edges.push(e);
    return true;
  };
  let fromBlock = 0;
  let duplicates = 0;
  for (const e of draft.edgeBlock ?? []) {
    if (add(e)) fromBlock += 1;
    else duplicates += 1;
  }
  if (duplicates > 0) repairs.push(`${duplicates} repeated pair(s) of the <edge> block were read once.`);
  if (draft.edgeProblem !== undefined) repairs.push(`The draft's edges: ${draft.edgeProblem}.`);
  let fromRefs = 0;
  for (const a of agents) {
    for (const ref of referencesIn(a.input)) {
      if (!ids.has(ref) || ref === a.id) continue;
      if (add({ from: ref, to: a.id })) {
        fromRefs += 1;
        if (draft.edgeBlock !== null) {
          repairs.push(
            `Edge ${ref} → ${a.id} added: "${a.id}" uses \${${ref}} but the <edge> block omits it.`,
          );
        }
      }
    }
  }
  const edgesFrom: DesignRecovery['edgesFrom'] =
    fromBlock > 0 && fromRefs > 0
      ? 'edge-block+references'
      : fromBlock > 0
        ? 'edge-block'
        : fromRefs > 0
          ? 'references'
          : 'none';
  // The Degree of MAS follows the drafted shape, whatever the page's name says.
  const dom = agents.length > 1 || edges.length > 0 ? 'high' : 'low';
  const design: RawDesign = { dom, agents, edges };
  return { design, edgesFrom, repairs, violations: validateDesign(design) };
}

function violationText(v: readonly Violation[]): string {
  const shown = v.slice(0, 2).map((x) => `rule ${x.rule}: ${x.message}`);
  return `${shown.join(' ')}${v.length > 2 ? ` (and ${v.length - 2} more)` : ''}`;
}

/**
 * The design in the orchestrator's text: the last complete draft of agent blocks that validates.
 * `ok: false` says, in one sentence, why nothing could be recovered.
 */
export function recoverDesign(thinking: unknown): RecoveryOutcome {
  if (typeof thinking !== 'string' || thinking.trim() === '') {
    return { ok: false, reason: 'the page has no orchestrator text to read a design from' };
  }
  if (thinking.length > MAX_RECOVERY_CHARS) {
    return {
      ok: false,
      reason: `the orchestrator's text is ${thinking.length.toLocaleString('en-US')} characters long, over the ${MAX_RECOVERY_CHARS.toLocaleString('en-US')} read for a design`,
    };
  }
  try {
    const drafts = draftsOf(thinking);
    if (drafts.length === 0) {
      return { ok: false, reason: "the orchestrator's text drafts no <agent_id> blocks" };
    }
    let later = '';
    for (let i = drafts.length - 1; i >= 0; i--) {
      const draft = drafts[i] as Draft;
      const broken = draft.blocks.find((b) => !b.complete);
      if (broken) {
        later ||= `draft ${i + 1} of ${drafts.length} is incomplete (an agent block lacks ${broken.missing ?? 'a field'})`;
        continue;
      }
      const built = buildDesign(draft);
      if (built.violations.length > 0) {
        later ||= `draft ${i + 1} of ${drafts.length} is not a valid design (${violationText(built.violations)})`;
        continue;
      }
      const repairs = [...built.repairs];
      if (i < drafts.length - 1) repairs.unshift(`A later draft was not used: ${later}.`);
      return {
        ok: true,
        design: built.design,
        recovery: {
          from: 'orchestrator-thinking',
          method: 'agent-blocks',
          draft: i + 1,
          drafts: drafts.length,
          agents: built.design.agents.length,
          edges: built.design.edges.length,
          edgesFrom: built.edgesFrom,
          repairs: repairs.slice(0, 32).map((r) => r.slice(0, 10_000)),
          executed: false,
        },
      };
    }
    return { ok: false, reason: later };
  } catch (e) {
    // Defensive: the steps above are written not to throw.
    return { ok: false, reason: `internal error: ${e instanceof Error ? e.message : String(e)}` };
  }
}
