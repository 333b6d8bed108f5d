/**
 * The lenient comparison imported case pages are scored with: it only has to agree with how
 * MAS-Orchestra's pages count an answer right (AIME answers are written `023`, outputs `23`).
 * Numbers compare by value; anything else compares as normalised text. `checkAnswer` is the full
 * grader; this one stays small so that an imported slide's correctness never depends on its rules.
 */
import { lastBoxedFromEnd } from './boxed.ts';
import { numbersClose } from './math.ts';

const NUMBER_RE = /^[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?$/;
const FRACTION_RE = /^([-+]?\d+)\s*\/\s*(\d+)$/;

/** Trims, unwraps `\boxed{}`, `$…$` and `\text{}`, drops a trailing period, collapses spaces, lower-cases. */
export function normalizeLenient(text: string): string {
  let t = text.trim();
  t = lastBoxedFromEnd(t) ?? t;
  t = t.replace(/^\$+|\$+$/g, '').trim();
  t = t.replace(/\\text\{([^{}]*)\}/g, '$1');
  t = t.replace(/[.。]\s*$/, '');
  return t.replace(/\s+/g, ' ').trim().toLowerCase();
}

/** The value of a plain number (`023`, `1,000`, `-0.5`) or fraction (`3/4`), else null. */
export function plainNumber(text: string): number | null {
  const t = text.trim();
  if (t === '' || t === '.' || t === '-' || t === '+') return null;
  if (NUMBER_RE.test(t)) {
    const v = Number(t.replace(/,/g, ''));
    return Number.isFinite(v) ? v : null;
  }
  const f = FRACTION_RE.exec(t);
  if (f) {
    const d = Number(f[2]);
    return d === 0 ? null : Number(f[1]) / d;
  }
  return null;
}

/** When the truth is a number and the output is prose, the number the output settles on. */
function numberInProse(text: string): number | null {
  const stated = /answer\s*(?:is|:|=)\s*\**\s*([-+]?[\d,]*\.?\d+)/i.exec(text);
  if (stated) return plainNumber(stated[1] as string);
  const all = text.match(/[-+]?\d[\d,]*(?:\.\d+)?/g);
  const last = all?.[all.length - 1];
  return last !== undefined ? plainNumber(last) : null;
}

/**
 * True/false when there is a ground truth; null when there is none. An empty answer against a
 * known truth is wrong, not unknown: the run finished without one.
 */
export function lenientCorrect(answer: string | null, truth: string | null): boolean | null {
  if (truth === null || truth.trim() === '') return null;
  if (answer === null || answer.trim() === '') return false;
  const a = normalizeLenient(answer);
  const t = normalizeLenient(truth);
  if (a === t) return true;
  const tv = plainNumber(t);
  if (tv === null) return false;
  const av = plainNumber(a) ?? numberInProse(a);
  return av !== null && numbersClose(av, tv);
}
