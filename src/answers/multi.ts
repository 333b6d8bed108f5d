/**
 * Answers to tasks that ask for several values at once. The output may list them in one box
 * (`\boxed{3, 7}`), in several boxes, after "answer:", or just end with them.
 */
import { extractBoxed } from './boxed.ts';
import { extractAnswerPhrase, extractNumbers } from './extract.ts';

/**
 * Splits on separators that are not inside braces, brackets or parentheses. The separator is a
 * regular expression tried at each depth-0 position.
 */
export function splitTopLevel(s: string, separator: RegExp): string[] {
  const sticky = new RegExp(separator.source, separator.flags.replace('g', '') + 'y');
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const ch = s.charAt(i);
    if (ch === '\\') {
      i++;
      continue;
    }
    if (ch === '{' || ch === '(' || ch === '[') depth++;
    else if (ch === '}' || ch === ')' || ch === ']') depth = Math.max(0, depth - 1);
    else if (depth === 0) {
      sticky.lastIndex = i;
      const m = sticky.exec(s);
      if (m && m[0].length > 0) {
        parts.push(s.slice(start, i));
        start = i + m[0].length;
        i = start - 1;
      }
    }
  }
  parts.push(s.slice(start));
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

/**
 * Separators tried in order until one gives exactly the expected count. `, ` (with a space) comes
 * after a bare `,` so that `1,234, 5` still splits into two answers when two are expected.
 */
const SEPARATORS = [/;/, /,/, /,\s+/, /\s*(?:,|;|\band\b)\s*/];

/** Splits a list of answers into exactly `n` parts, or returns null when no separator does. */
export function splitAnswers(s: string, n: number): string[] | null {
  for (const sep of SEPARATORS) {
    const parts = splitTopLevel(s, sep);
    if (parts.length === n) return parts;
  }
  return null;
}

export type MultiExtraction = 'boxed-list' | 'boxes' | 'phrase-list' | 'last-numbers';

/** The `n` answers in the output, in its order, and how they were found; null when fewer than `n` are there. */
export function extractMultiAnswers(
  text: string,
  n: number,
): { answers: string[]; how: MultiExtraction } | null {
  const boxes = extractBoxed(text);
  const lastBox = boxes[boxes.length - 1];
  if (lastBox !== undefined) {
    const fromList = splitAnswers(lastBox, n);
    if (fromList) return { answers: fromList, how: 'boxed-list' };
  }
  if (boxes.length >= n) return { answers: boxes.slice(boxes.length - n), how: 'boxes' };
  const phrase = extractAnswerPhrase(text);
  if (phrase !== null) {
    const fromPhrase = splitAnswers(phrase, n);
    if (fromPhrase) return { answers: fromPhrase, how: 'phrase-list' };
  }
  const numbers = extractNumbers(text);
  if (numbers.length >= n) return { answers: numbers.slice(numbers.length - n), how: 'last-numbers' };
  return null;
}
