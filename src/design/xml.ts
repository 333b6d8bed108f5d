import type { RawAgent, RawDesign } from './raw.ts';

/**
 * MAS-Orchestra's XML design channels: `<thinking>`, then `<agent>` blocks (`agent_id`,
 * `agent_name`, `agent_description`, `required_arguments` holding `agent_input` and, for debates,
 * `debate_roles`), then one `<edge>` block of `<from>`/`<to>` pairs.
 *
 * Model output is not well-formed XML (free text, stray `<` in maths), so this reads it the way
 * MAS-Orchestra's own parser does: by tag pairs, case-insensitively, tolerating text around them.
 */

export const MAX_DESIGN_CHARS = 1_000_000;

export interface XmlParseOutput {
  design: RawDesign;
  /** Things that could not be read; each becomes a parse error for the user. */
  problems: string[];
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

export function unescapeXml(s: string): string {
  return s.replace(/&(lt|gt|amp|quot|apos|#\d{1,7}|#x[0-9a-fA-F]{1,6});/g, (whole, name: string) => {
    if (name.startsWith('#x')) return safeCodePoint(parseInt(name.slice(2), 16)) ?? whole;
    if (name.startsWith('#')) return safeCodePoint(parseInt(name.slice(1), 10)) ?? whole;
    return ENTITIES[name] ?? whole;
  });
}

function safeCodePoint(n: number): string | null {
  return Number.isFinite(n) && n >= 0 && n <= 0x10ffff ? String.fromCodePoint(n) : null;
}

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Inner text of every `<tag>…</tag>` in `s` (non-greedy, case-insensitive). */
function allTags(s: string, tag: string): string[] {
  const re = new RegExp(`<${tag}\\s*>([\\s\\S]*?)</${tag}\\s*>`, 'gi');
  return [...s.matchAll(re)].map((m) => m[1] as string);
}

function firstTag(s: string, tag: string): string | null {
  return allTags(s, tag)[0] ?? null;
}

/** Reads a role list written as a JSON/Python list, nested tags, or comma/newline separated. */
export function parseRoleList(text: string): string[] | null {
  const t = text.trim();
  if (t === '') return [];
  if (t.startsWith('[')) {
    try {
      const v: unknown = JSON.parse(t.replace(/'/g, '"'));
      if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v.map((x) => x.trim());
    } catch {
      return null;
    }
    return null;
  }
  const tagged = [...t.matchAll(/<(\w+)\s*>([\s\S]*?)<\/\1\s*>/g)].map((m) =>
    unescapeXml((m[2] as string).trim()),
  );
  if (tagged.length > 0) return tagged;
  return t
    .split(/[,\n]/)
    .map((x) => unescapeXml(x.trim()))
    .filter((x) => x !== '');
}

function parseScalar(text: string): string | number | boolean {
  const t = text.trim();
  if (/^-?\d+(\.\d+)?$/.test(t)) return Number(t);
  if (t === 'true' || t === 'false') return t === 'true';
  return unescapeXml(t);
}

export function parseDesignXml(text: string, dom?: 'low' | 'high'): XmlParseOutput {
  const problems: string[] = [];
  const input = text.length > MAX_DESIGN_CHARS ? text.slice(0, MAX_DESIGN_CHARS) : text;
  if (text.length > MAX_DESIGN_CHARS) {
    problems.push(
      `The design is ${text.length} characters long; only the first ${MAX_DESIGN_CHARS} were read.`,
    );
  }

  let thinking = firstTag(input, 'thinking');
  if (thinking === null) {
    const open = /<thinking\s*>([\s\S]*?)(?=<agent\s*>|$)/i.exec(input);
    if (open) thinking = open[1] as string;
  }

  const agents: RawAgent[] = [];
  allTags(input, 'agent').forEach((block, i) => {
    const id = firstTag(block, 'agent_id');
    const name = firstTag(block, 'agent_name');
    if (id === null || id.trim() === '') {
      problems.push(`Agent block ${i + 1} has no <agent_id>.`);
      return;
    }
    if (name === null || name.trim() === '') {
      problems.push(`Agent block ${i + 1} ("${id.trim()}") has no <agent_name>.`);
      return;
    }
    const args = firstTag(block, 'required_arguments') ?? '';
    let agentInput = unescapeXml((firstTag(args, 'agent_input') ?? '').trim());
    if (agentInput === '""' || agentInput === "''") agentInput = '';
    const agent: RawAgent = {
      id: unescapeXml(id.trim()),
      type: unescapeXml(name.trim()),
      description: unescapeXml((firstTag(block, 'agent_description') ?? '').trim()),
      input: agentInput,
    };
    const rolesText = firstTag(args, 'debate_roles');
    if (rolesText !== null) {
      const roles = parseRoleList(rolesText);
      if (roles === null) problems.push(`Agent "${agent.id}": <debate_roles> is not a list of role names.`);
      else agent.debateRoles = roles;
    }
    const params: Record<string, unknown> = {};
    for (const m of args.matchAll(/<(\w+)\s*>([\s\S]*?)<\/\1\s*>/g)) {
      const key = m[1] as string;
      if (key !== 'agent_input' && key !== 'debate_roles') params[key] = parseScalar(m[2] as string);
    }
    if (Object.keys(params).length > 0) agent.params = params;
    agents.push(agent);
  });

  const edgeBlocks = allTags(input, 'edge');
  if (edgeBlocks.length > 1) {
    problems.push(`Found ${edgeBlocks.length} <edge> blocks; a design has one. Their pairs were combined.`);
  }
  const edges: { from: string; to: string }[] = [];
  for (const block of edgeBlocks) {
    const froms = allTags(block, 'from');
    const tos = allTags(block, 'to');
    if (froms.length !== tos.length) {
      problems.push(
        `An <edge> block has ${froms.length} <from> and ${tos.length} <to>; they must come in pairs.`,
      );
    }
    for (let i = 0; i < Math.min(froms.length, tos.length); i++) {
      edges.push({
        from: unescapeXml((froms[i] as string).trim()),
        to: unescapeXml((tos[i] as string).trim()),
      });
    }
  }

  if (agents.length === 0) {
    problems.push(
      /<agent\s*>/i.test(input) ? 'No complete <agent> block could be read.' : 'No <agent> block found.',
    );
  }

  const design: RawDesign = {
    dom: dom ?? (agents.length <= 1 && edges.length === 0 ? 'low' : 'high'),
    agents,
    edges,
  };
  if (thinking !== null) design.thinking = unescapeXml(thinking.trim());
  return { design, problems };
}

/** Canonical XML for a design; `parseDesignXml(serializeDesignXml(d))` gives `d` back. */
export function serializeDesignXml(design: RawDesign): string {
  const lines: string[] = [];
  if (design.thinking !== undefined) lines.push(`<thinking>\n${escapeXml(design.thinking)}\n</thinking>`);
  for (const a of design.agents) {
    lines.push('<agent>');
    lines.push(`    <agent_id>${escapeXml(a.id)}</agent_id>`);
    lines.push(`    <agent_name>${escapeXml(a.type)}</agent_name>`);
    lines.push(`    <agent_description>${escapeXml(a.description)}</agent_description>`);
    lines.push('    <required_arguments>');
    lines.push(`        <agent_input>${escapeXml(a.input)}</agent_input>`);
    if (a.debateRoles)
      lines.push(`        <debate_roles>${escapeXml(JSON.stringify(a.debateRoles))}</debate_roles>`);
    for (const [k, v] of Object.entries(a.params ?? {})) {
      if (!/^\w+$/.test(k) || (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean'))
        continue;
      lines.push(`        <${k}>${escapeXml(String(v))}</${k}>`);
    }
    lines.push('    </required_arguments>');
    lines.push('</agent>');
  }
  lines.push('<edge>');
  for (const e of design.edges)
    lines.push(`    <from>${escapeXml(e.from)}</from> <to>${escapeXml(e.to)}</to>`);
  lines.push('</edge>');
  return lines.join('\n') + '\n';
}
