/**
 * `\boxed{…}` extraction. A regular expression cannot match nested braces, so this walks the text
 * and counts them; `\{` and `\}` are escaped braces and do not count.
 */

const BOX_COMMANDS = ['\\boxed', '\\fbox'] as const;

/** Every boxed answer in the text, in order of appearance, trimmed; empty and unclosed boxes are skipped. */
export function extractBoxed(text: string): string[] {
  const found: string[] = [];
  let from = 0;
  for (;;) {
    let start = -1;
    let commandLength = 0;
    for (const command of BOX_COMMANDS) {
      const at = text.indexOf(command, from);
      if (at !== -1 && (start === -1 || at < start)) {
        start = at;
        commandLength = command.length;
      }
    }
    if (start === -1) return found;
    let i = start + commandLength;
    // `\boxedfoo` is another command, not a box.
    if (/[A-Za-z]/.test(text.charAt(i))) {
      from = i;
      continue;
    }
    while (i < text.length && /\s/.test(text.charAt(i))) i++;
    if (text.charAt(i) === '{') {
      const close = matchingBrace(text, i);
      if (close === -1) {
        from = i + 1;
        continue;
      }
      const inner = text.slice(i + 1, close).trim();
      if (inner !== '') found.push(inner);
      from = close + 1;
    } else {
      // `\boxed 5`: TeX takes a single token as the argument.
      const token = /^[^\s${}]+/.exec(text.slice(i));
      if (token) found.push(token[0]);
      from = i + (token ? token[0].length : 1);
    }
  }
}

/** Index of the `}` that closes the `{` at `open`, or -1 when the text ends first. */
export function matchingBrace(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const ch = text.charAt(i);
    if (ch === '\\') {
      i++;
      continue;
    }
    if (ch === '{') depth++;
    else if (ch === '}') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** The last boxed answer, which is the final one by the usual convention, or null. */
export function lastBoxed(text: string): string | null {
  const all = extractBoxed(text);
  return all.length > 0 ? (all[all.length - 1] ?? null) : null;
}
