/**
 * A role name fitted into a mini-graph node: up to two lines (split at the space nearest the
 * middle) and a font size small enough for the longest line to fit the node's width, estimated
 * with a generous average glyph width. Only a name too long even at the smallest size is cut, and
 * then with an ellipsis (the node's tooltip keeps the whole name).
 */
export const GLYPH_EM = 0.62;

export interface NodeLabel {
  lines: string[];
  fontSize: number;
}

function splitInTwo(text: string): string[] {
  const words = text.trim().split(/\s+/);
  if (words.length < 2) return [text.trim()];
  let best: string[] = [text.trim()];
  let bestLongest = Infinity;
  for (let i = 1; i < words.length; i++) {
    const a = words.slice(0, i).join(' ');
    const b = words.slice(i).join(' ');
    const longest = Math.max(a.length, b.length);
    if (longest < bestLongest) {
      best = [a, b];
      bestLongest = longest;
    }
  }
  return best;
}

/** Estimated drawn width of `text` at `fontSize`. */
export const textWidth = (text: string, fontSize: number): number => text.length * GLYPH_EM * fontSize;

export function fitNodeLabel(text: string, width: number, maxFont = 40, minFont = 24, pad = 12): NodeLabel {
  const room = Math.max(1, width - 2 * pad);
  const single = text.trim();
  if (textWidth(single, maxFont) <= room) return { lines: [single], fontSize: maxFont };
  const lines = splitInTwo(single);
  const longest = Math.max(...lines.map((l) => l.length));
  const fontSize = Math.max(minFont, Math.min(maxFont, Math.floor(room / (GLYPH_EM * longest))));
  const fits = Math.floor(room / (GLYPH_EM * fontSize));
  return {
    lines: lines.map((l) => (l.length <= fits ? l : `${l.slice(0, Math.max(1, fits - 1))}…`)),
    fontSize,
  };
}
