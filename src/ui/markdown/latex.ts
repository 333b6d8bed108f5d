/**
 * LaTeX delimiters remark-math does not read, rewritten into the ones it does, before markdown is
 * parsed: `\(…\)` becomes `$…$`, `\[…\]` becomes a `$$` block, and a `\boxed{…}` outside maths
 * becomes `$\boxed{…}$`. Code (fenced, indented, inline) and maths already in dollars are left as
 * they are. Without this pass markdown reads `\(` and `\[` as escaped brackets and shows
 * `(x^2)` or `[x]`, and a bare `\boxed{42}` shows as those characters. Pure string rewriting: the
 * output is still parsed by the same text-safe markdown (no HTML), and KaTeX still renders it
 * untrusted (`safety.ts`).
 */

/** Cheap test first: most text has none of these. */
const NEEDS_PASS = /\\[([]|\\boxed/;

/** A fenced code opener: up to any indentation (list items), then ``` or ~~~ three times or more. */
const FENCE = /^[ \t]*(?:>[ \t]?)*(`{3,}|~{3,})/;
/** A flow maths opener or closer: `$$` or more, optionally after blockquote markers. */
const MATH_FENCE = /^[ \t]{0,3}(?:>[ \t]?)*(\${2,})/;
/**
 * A flow maths opener: `$$` and no other dollar on the line (`$$a$$ is b` is inline maths in a
 * paragraph).
 */
function mathFence(line: string): RegExpExecArray | null {
  const m = MATH_FENCE.exec(line);
  return m && !line.slice(m[0].length).includes('$') ? m : null;
}

/** A line that is only a fence: closes the code or maths block its opener started. */
const CLOSING_FENCE = /^[ \t]*(?:>[ \t]?)*(`{3,}|~{3,}|\${2,})[ \t]*$/;
/** A list item's marker, so a block inside it keeps the item's indentation. */
const LIST_ITEM = /^([ \t]*)([-*+]|\d{1,9}[.)])([ \t]+)/;

/** Where a line's content starts, written as the prefix a continuation line needs. */
function continuationPrefix(line: string): string {
  const quote = /^[ \t]*(?:>[ \t]?)+/.exec(line);
  if (quote) return quote[0];
  const item = LIST_ITEM.exec(line);
  if (item) return ' '.repeat(item[0].length);
  return /^[ \t]*/.exec(line)?.[0] ?? '';
}

/**
 * Index of the `\<close>` that ends maths opened just before `from`, skipping TeX's `\x` pairs.
 * Past `last`, the text's last `\<close>`, it answers at once, so text full of unclosed `\(` stays
 * linear.
 */
function findClose(text: string, from: number, close: ')' | ']', last: number): number {
  if (last < from) return -1;
  for (let i = from; i < text.length - 1; i++) {
    if (text.charCodeAt(i) !== 92 /* \ */) continue;
    if (text.charAt(i + 1) === close) return i;
    i++;
  }
  return -1;
}

/** The longest `\boxed{…}` argument read: boxed answers are short, and an unclosed box costs this much. */
const MAX_BOX = 500;

/**
 * Index of the `}` that closes the `{` at `open` (TeX escapes `\{` `\}` do not count) within
 * `MAX_BOX` characters, or -1.
 */
function closingBrace(text: string, open: number): number {
  let depth = 0;
  const end = Math.min(text.length, open + MAX_BOX);
  for (let i = open; i < end; i++) {
    const ch = text.charAt(i);
    if (ch === '\\') i++;
    else if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return i;
  }
  return -1;
}

/** Length of the run of `ch` starting at `i`. */
function runLength(text: string, i: number, ch: string): number {
  let j = i;
  while (text.charAt(j) === ch) j++;
  return j - i;
}

/** Index just past the next run of exactly `n` × `ch` at or after `from`, or -1. */
function endOfRun(text: string, from: number, ch: string, n: number): number {
  for (let i = text.indexOf(ch, from); i !== -1; i = text.indexOf(ch, i)) {
    const len = runLength(text, i, ch);
    if (len === n) return i + n;
    i += len;
  }
  return -1;
}

/** Unescaped dollar signs in maths about to be put between dollars would end it early. */
const stripDollars = (tex: string): string => tex.replace(/(^|[^\\])\$+/g, '$1');

/** Whether only spaces or tabs follow `from` up to the end of its line. */
function restOfLineIsBlank(text: string, from: number): boolean {
  let i = from;
  while (text.charAt(i) === ' ' || text.charAt(i) === '\t') i++;
  return i >= text.length || text.charAt(i) === '\n';
}

/** `\[…\]` as a `$$` block on its own lines, each line carrying `prefix` (list or quote). */
function displayBlock(tex: string, before: string, blankAfter: boolean, prefix: string): string {
  const body = tex
    .trim()
    .split('\n')
    .map((l) => prefix + l.trim())
    .join('\n');
  // Text before it on its line (more than a list marker or quote marks) ends there.
  const lead = /^[ \t]*(?:>[ \t]?)*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?$/.test(before) ? '' : `\n${prefix}`;
  const tail = blankAfter ? '' : `\n${prefix}`;
  return `${lead}$$\n${body}\n${prefix}$$${tail}`;
}

/** The characters that can start an escape, a delimiter, a code span or dollar maths. */
const SPECIAL = /[\\`$]/g;

/** Rewrites the inline text of one paragraph-like chunk (no blank lines, no code blocks). */
function rewriteInline(chunk: string): string {
  // Parts joined at the end: appending to one string and searching it makes V8 flatten it each time.
  const out: string[] = [];
  let i = 0;
  // Where the line of `at` starts; `at` only grows, so the search back stops at the last answer.
  let knownStart = 0;
  let searched = 0;
  const lineStart = (at: number): number => {
    for (let j = at - 1; j >= Math.max(knownStart, searched); j--) {
      if (chunk.charCodeAt(j) === 10) {
        knownStart = j + 1;
        break;
      }
    }
    searched = at;
    return knownStart;
  };
  const lastParen = chunk.lastIndexOf('\\)');
  const lastBracket = chunk.lastIndexOf('\\]');
  while (i < chunk.length) {
    const ch = chunk.charAt(i);
    if (ch === '\\') {
      const next = chunk.charAt(i + 1);
      if (next === '(' || next === '[') {
        const close =
          next === '(' ? findClose(chunk, i + 2, ')', lastParen) : findClose(chunk, i + 2, ']', lastBracket);
        const tex = close === -1 ? '' : stripDollars(chunk.slice(i + 2, close));
        if (tex.trim() !== '') {
          if (next === '(') out.push(`$${tex.trim().replace(/\s*\n\s*/g, ' ')}$`);
          else {
            const start = lineStart(i);
            const prefix = continuationPrefix(chunk.slice(start, Math.min(i, start + 100)));
            // The line's text before `\[`; a long one is certainly more than a list marker.
            const before = i - start > 100 ? 'text' : chunk.slice(start, i);
            out.push(displayBlock(tex, before, restOfLineIsBlank(chunk, close + 2), prefix));
          }
          i = close + 2;
          // The rest of a line after a display block starts a new line already; drop its spaces.
          if (next === '[') while (chunk.charAt(i) === ' ' || chunk.charAt(i) === '\t') i++;
          continue;
        }
      }
      if (chunk.startsWith('\\boxed', i) && !/[A-Za-z]/.test(chunk.charAt(i + 6))) {
        let open = i + 6;
        while (chunk.charAt(open) === ' ') open++;
        const close = chunk.charAt(open) === '{' ? closingBrace(chunk, open) : -1;
        if (close !== -1) {
          const tex = stripDollars(chunk.slice(open + 1, close)).replace(/\s*\n\s*/g, ' ');
          out.push(`$\\boxed{${tex}}$`);
          i = close + 1;
          continue;
        }
      }
      // A markdown escape (`\$`, `` \` ``, `\\`): keep the pair together.
      out.push(chunk.slice(i, i + 2));
      i += 2;
      continue;
    }
    if (ch === '`' || ch === '$') {
      // An inline code span or maths in dollars: copied as it is, up to the run that closes it.
      const n = runLength(chunk, i, ch);
      const end = endOfRun(chunk, i + n, ch, n);
      const to = end === -1 ? i + n : end;
      out.push(chunk.slice(i, to));
      i = to;
      continue;
    }
    // Plain text up to the next character that can start something.
    SPECIAL.lastIndex = i + 1;
    const to = SPECIAL.exec(chunk)?.index ?? chunk.length;
    out.push(chunk.slice(i, to));
    i = to;
  }
  return out.join('');
}

/**
 * Rewrites `\(…\)`, `\[…\]` and bare `\boxed{…}` into remark-math's dollar forms, leaving code
 * and dollar maths untouched.
 */
export function normalizeMath(text: string): string {
  if (!NEEDS_PASS.test(text)) return text;
  const lines = text.split('\n');
  const out: string[] = [];
  let chunk: string[] = [];
  const flush = (): void => {
    if (chunk.length > 0) out.push(rewriteInline(chunk.join('\n')));
    chunk = [];
  };
  /** The fence that closes the block we are in (code or maths), or null outside blocks. */
  let closer: { ch: string; n: number } | null = null;
  let prevBlank = true;
  let inList = false;
  for (const line of lines) {
    if (closer) {
      out.push(line);
      const run = CLOSING_FENCE.exec(line)?.[1] ?? '';
      if (run.charAt(0) === closer.ch && run.length >= closer.n) closer = null;
      prevBlank = false;
      continue;
    }
    const fence = FENCE.exec(line) ?? mathFence(line);
    if (fence) {
      flush();
      const run = fence[1] ?? '';
      closer = { ch: run.charAt(0), n: run.length };
      out.push(line);
      prevBlank = false;
      continue;
    }
    const blank = line.trim() === '';
    // Indented code: four spaces (or a tab) after a blank line, outside a list.
    const indented = /^( {4}|\t)/.test(line) && !blank;
    if (indented && prevBlank && !inList && chunk.length === 0) {
      out.push(line);
      continue;
    }
    if (blank) {
      flush();
      out.push(line);
      prevBlank = true;
      continue;
    }
    if (!indented) inList = LIST_ITEM.test(line) || (inList && !prevBlank);
    chunk.push(line);
    prevBlank = false;
  }
  flush();
  return out.join('\n');
}
