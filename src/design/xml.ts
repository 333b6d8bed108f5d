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

/** The one problem reported for a design over a size limit; nothing else in it is checked. */
export function designTooLong(length: number, limit: number): string {
  return `The design is ${length.toLocaleString('en-US')} characters long; the limit is ${limit.toLocaleString('en-US')}. Nothing in it was checked.`;
}

export interface XmlParseOutput {
  /** What could be read; null when the text is over `MAX_DESIGN_CHARS` and was not read. */
  design: RawDesign | null;
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

/** A parameter's value from text already decoded (a CDATA section): a number, a boolean, or the text. */
function scalarOf(text: string): string | number | boolean {
  const t = text.trim();
  if (/^-?\d+(\.\d+)?$/.test(t)) return Number(t);
  if (t === 'true' || t === 'false') return t === 'true';
  return text;
}

const CDATA_RE = /<!\[CDATA\[([\s\S]*?)\]\]>/g;

/**
 * `<![CDATA[…]]>` sections: their text is taken as written, with no tags and no entities inside.
 * Before the tag pairs are read, each section is swapped for a placeholder (`mark`, its index,
 * `mark`) that holds no markup, so a `</agent_input>` or a `<b>` inside one cannot end or start a
 * tag; reading a field's text puts the sections back. `mark` is a private-use character that
 * does not occur in the input, so a placeholder cannot be forged.
 */
interface CdataSections {
  text: string;
  /** A field's text as written: entities decoded outside the sections, the sections verbatim. */
  decode: (raw: string) => string;
  /** True when the raw text holds a section. */
  holds: (raw: string) => boolean;
  problems: string[];
}

function unusedPrivateUseChar(text: string): string | null {
  const used = new Uint8Array(0xf8ff - 0xe000 + 1);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xe000 && c <= 0xf8ff) used[c - 0xe000] = 1;
  }
  const free = used.indexOf(0);
  return free < 0 ? null : String.fromCharCode(0xe000 + free);
}

function plainText(raw: string): string {
  return unescapeXml(raw.trim());
}

function cdataSections(text: string): CdataSections {
  const none: CdataSections = { text, decode: plainText, holds: () => false, problems: [] };
  if (!text.includes('<![CDATA[')) return none;
  const mark = unusedPrivateUseChar(text);
  if (mark === null) {
    return {
      ...none,
      problems: ['The <![CDATA[ sections could not be told apart from the text around them.'],
    };
  }
  const sections: string[] = [];
  const swapped = text.replace(CDATA_RE, (_whole, inner: string) => {
    sections.push(inner);
    return `${mark}${sections.length - 1}${mark}`;
  });
  const problems = swapped.includes('<![CDATA[')
    ? ['A <![CDATA[ section is never closed with ]]>; it was read as ordinary text.']
    : [];
  const placeholder = new RegExp(`${mark}(\\d+)${mark}`, 'g');
  return {
    text: swapped,
    holds: (raw) => raw.includes(mark),
    decode: (raw) => {
      if (!raw.includes(mark)) return plainText(raw);
      let out = '';
      let last = 0;
      for (const m of raw.matchAll(placeholder)) {
        const at = m.index ?? 0;
        out += unescapeXml(raw.slice(last, at)) + (sections[Number(m[1])] ?? '');
        last = at + m[0].length;
      }
      return (out + unescapeXml(raw.slice(last))).trim();
    },
    problems,
  };
}

export function parseDesignXml(text: string, dom?: 'low' | 'high'): XmlParseOutput {
  if (text.length > MAX_DESIGN_CHARS) {
    // A cut-off design would only add errors about what the cut removed; the size is the problem.
    return {
      design: null,
      problems: [designTooLong(text.length, MAX_DESIGN_CHARS)],
    };
  }
  const cdata = cdataSections(text);
  const problems: string[] = [...cdata.problems];
  const input = cdata.text;
  const read = cdata.decode;

  let thinking = firstTag(input, 'thinking');
  if (thinking === null) {
    const open = /<thinking\s*>([\s\S]*?)(?=<agent\s*>|$)/i.exec(input);
    if (open) thinking = open[1] as string;
  }

  const agents: RawAgent[] = [];
  allTags(input, 'agent').forEach((block, i) => {
    const id = read(firstTag(block, 'agent_id') ?? '');
    const name = read(firstTag(block, 'agent_name') ?? '');
    if (id === '') {
      problems.push(`Agent block ${i + 1} has no <agent_id>.`);
      return;
    }
    if (name === '') {
      problems.push(`Agent block ${i + 1} ("${id}") has no <agent_name>.`);
      return;
    }
    const args = firstTag(block, 'required_arguments') ?? '';
    let agentInput = read(firstTag(args, 'agent_input') ?? '');
    if (agentInput === '""' || agentInput === "''") agentInput = '';
    const agent: RawAgent = {
      id,
      type: name,
      description: read(firstTag(block, 'agent_description') ?? ''),
      input: agentInput,
    };
    const rolesText = firstTag(args, 'debate_roles');
    if (rolesText !== null) {
      const roles = parseRoleList(cdata.holds(rolesText) ? read(rolesText) : rolesText);
      if (roles === null) problems.push(`Agent "${agent.id}": <debate_roles> is not a list of role names.`);
      else agent.debateRoles = roles;
    }
    const params: Record<string, unknown> = {};
    for (const m of args.matchAll(/<(\w+)\s*>([\s\S]*?)<\/\1\s*>/g)) {
      const key = m[1] as string;
      const value = m[2] as string;
      if (key !== 'agent_input' && key !== 'debate_roles')
        params[key] = cdata.holds(value) ? scalarOf(read(value)) : parseScalar(value);
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
      edges.push({ from: read(froms[i] as string), to: read(tos[i] as string) });
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
  if (thinking !== null) design.thinking = read(thinking);
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
