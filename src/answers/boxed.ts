/**
 * `\boxed{…}` extraction. A regular expression cannot match nested braces, so this walks the text
 * and counts them; `\{` and `\}` are escaped braces and do not count.
 */

const BOX_COMMANDS = ['\\boxed', '\\fbox'] as const;

export interface BoxScanOptions {
  /** The commands read as boxes (default `\boxed` and `\fbox`). */
  commands?: readonly string[];
  /** Read TeX's single-token argument, `\boxed 5` (default true). */
  bareTokens?: boolean;
}

/**
 * The raw content of every box in the text, in order of appearance: untrimmed, empty boxes
 * included, unclosed boxes skipped. The scan resumes after each box it reads, so a box inside
 * another is part of the outer one's content.
 */
export function scanBoxes(text: string, options: BoxScanOptions = {}): string[] {
  const commands = options.commands ?? BOX_COMMANDS;
  const bareTokens = options.bareTokens ?? true;
  const found: string[] = [];
  let from = 0;
  for (;;) {
    let start = -1;
    let commandLength = 0;
    for (const command of commands) {
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
      found.push(text.slice(i + 1, close));
      from = close + 1;
    } else if (bareTokens) {
      // `\boxed 5`: TeX takes a single token as the argument.
      const token = /^[^\s${}]+/.exec(text.slice(i));
      if (token) found.push(token[0]);
      from = i + (token ? token[0].length : 1);
    } else {
      from = i;
    }
  }
}

/** Every boxed answer in the text, in order of appearance, trimmed; empty and unclosed boxes are skipped. */
export function extractBoxed(text: string): string[] {
  return scanBoxes(text)
    .map((box) => box.trim())
    .filter((box) => box !== '');
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

/**
 * The content of the last `\boxed{` in the text, found by searching from the end, with braces
 * counted and no escapes: a box nested in another gives the inner one, `\{` counts as a brace,
 * and an unclosed last box gives null even when an earlier box is closed. This is how MATH-style
 * graders (`last_boxed_only_string`) read a box; the importers score case pages with it
 * (`lenientCorrect`), so imported slides keep the correctness they always had. `lastBoxed` is the
 * fuller reading for everything else.
 */
export function lastBoxedFromEnd(text: string): string | null {
  const at = text.lastIndexOf('\\boxed{');
  if (at < 0) return null;
  let depth = 0;
  for (let i = at + '\\boxed'.length; i < text.length; i++) {
    const c = text.charAt(i);
    if (c === '{') depth++;
    else if (c === '}') {
      depth--;
      if (depth === 0) return text.slice(at + '\\boxed{'.length, i);
    }
  }
  return null;
}
