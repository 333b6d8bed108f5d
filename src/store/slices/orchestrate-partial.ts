/**
 * The design as far as the orchestrator has written it, for the live view while tokens stream in.
 * `parseDesignXml` reads complete tag pairs only, so an agent appears once its `</agent>` is
 * written; the one `<edge>` block is still open while its pairs are written, so an open block is
 * closed here before reading and every complete `<from>…</from> <to>…</to>` pair shows at once.
 * Edges whose ends are not (yet) declared are left out of the picture, not reported: the final
 * parse and validation (`parseDesign`) judges the finished text.
 */
import type { Design } from '../../core/trace.ts';
import { toAgent } from '../../design/validate.ts';
import { parseDesignXml } from '../../design/xml.ts';

export interface PartialDesign {
  /** The `<thinking>` text so far (an open block reads to the end of the text). */
  thinking: string;
  /** The text after `</thinking>`: the design channels as written so far. */
  designText: string;
  /** Complete agents and the edges between them, drawable as a DAG. */
  design: Design;
}

const OPEN_EDGE = /<edge\s*>/gi;
const CLOSE_EDGE = /<\/edge\s*>/gi;

function lastIndex(re: RegExp, text: string): number {
  let at = -1;
  for (const m of text.matchAll(re)) at = m.index ?? at;
  return at;
}

/** Splits the streamed text into its thinking and the design channels after it. */
export function splitThinking(text: string): { thinking: string; designText: string } {
  const open = /<thinking\s*>/i.exec(text);
  if (!open) return { thinking: '', designText: text };
  const start = open.index + open[0].length;
  const close = /<\/thinking\s*>/i.exec(text.slice(start));
  if (!close) return { thinking: text.slice(start).trim(), designText: '' };
  return {
    thinking: text.slice(start, start + close.index).trim(),
    designText: text.slice(start + close.index + close[0].length).trimStart(),
  };
}

export function partialDesign(text: string, dom?: 'low' | 'high'): PartialDesign {
  const { thinking, designText } = splitThinking(text);
  // An `<edge>` block still being written: close it so its complete pairs can be read.
  const open = lastIndex(OPEN_EDGE, designText);
  const closed = open >= 0 && lastIndex(CLOSE_EDGE, designText) < open ? `${designText}</edge>` : designText;
  const { design: raw } = parseDesignXml(closed, dom);
  const agents = (raw?.agents ?? []).map(toAgent);
  const ids = new Set<string>();
  const unique = agents.filter((a) => (ids.has(a.id) ? false : (ids.add(a.id), true)));
  const seen = new Set<string>();
  const edges = (raw?.edges ?? []).filter((e) => {
    const key = `${e.from}\u0000${e.to}`;
    if (!ids.has(e.from) || !ids.has(e.to) || e.from === e.to || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return {
    thinking,
    designText,
    design: { dom: raw?.dom ?? dom ?? 'high', agents: unique, edges },
  };
}
