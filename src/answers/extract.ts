/**
 * Getting the final answer out of free text when it is not boxed: an "answer is …" phrase, the
 * last number, or a multiple-choice letter.
 */
import { lastBoxed } from './boxed.ts';
import { normalizeMathAnswer } from './math.ts';

/** Letters accepted as multiple-choice options. */
export const CHOICE_LETTERS = 'ABCDEFGHIJ';

/** The text after the last "answer is" / "answer:" / "answer =", up to the end of its sentence or line. */
export function extractAnswerPhrase(text: string): string | null {
  // A sentence ends at a period followed by space or the line end, so `0.5` stays whole.
  const re = /\banswer\s*(?:is|was|:|=)\s*:?\s*(.+?)(?:\.(?=\s|$)|$)/gim;
  let last: string | null = null;
  for (const m of text.replace(/\*\*/g, '').matchAll(re)) {
    const phrase = (m[1] ?? '').trim().replace(/[.\s]+$/, '');
    if (phrase !== '') last = phrase;
  }
  return last;
}

/**
 * A number as written: optional sign (not a hyphen inside a word), thousands separators, decimals,
 * a `/` quotient, or a `\frac{…}{…}` of anything without braces.
 */
const NUMBER_IN_TEXT =
  /(?<![\w.])-?\s?\\[dt]?frac\{[^{}]*\}\{[^{}]*\}|(?<![\w.])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\/\d+(?:\.\d+)?)?/g;

/** The last number in the text, normalized (`1,234` → `1234`), or null. */
export function extractFinalNumber(text: string): string | null {
  let last: string | null = null;
  for (const m of text.matchAll(NUMBER_IN_TEXT)) last = m[0];
  return last === null ? null : normalizeMathAnswer(last.replace(/\s+/g, ''));
}

/** Every number in the text, in order, normalized. */
export function extractNumbers(text: string): string[] {
  return [...text.matchAll(NUMBER_IN_TEXT)].map((m) => normalizeMathAnswer(m[0].replace(/\s+/g, '')));
}

/** `B`, `(B)`, `b)`, `\text{(B)}`, `Option B` → `B`; anything else → null. */
export function normalizeChoice(raw: string, letters: string = CHOICE_LETTERS): string | null {
  const s = normalizeMathAnswer(raw)
    .replace(/^option\s*/i, '')
    .replace(/[().:\s]/g, '');
  if (s.length !== 1) return null;
  const upper = s.toUpperCase();
  return letters.includes(upper) ? upper : null;
}

/**
 * The chosen option letter: a boxed letter, then "answer is (B)", then the last `(B)`, then a line
 * holding only a letter. Lowercase letters in running text are ignored (they are usually words).
 */
export function extractChoice(text: string, letters: string = CHOICE_LETTERS): string | null {
  const boxed = lastBoxed(text);
  if (boxed !== null) {
    const letter = normalizeChoice(boxed, letters);
    if (letter !== null) return letter;
  }
  const set = `[${letters}]`;
  const patterns = [
    new RegExp(
      String.raw`\b(?:[Ff]inal\s+)?[Aa]nswer\s*(?:is|:)\s*:?\s*(?:[Oo]ption\s*)?\(?(${set})\)?(?![A-Za-z])`,
      'g',
    ),
    new RegExp(String.raw`\((${set})\)`, 'g'),
    new RegExp(String.raw`^\s*\(?(${set})[).:]?\s*$`, 'gm'),
  ];
  for (const re of patterns) {
    let last: string | null = null;
    for (const m of text.replace(/\*\*/g, '').matchAll(re)) last = m[1] ?? null;
    if (last !== null) return last;
  }
  return null;
}
