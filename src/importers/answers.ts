/**
 * Correctness of an imported final answer against its ground truth. A deliberately small checker:
 * it only has to agree with how MAS-Orchestra's pages are scored (AIME answers are written `023`,
 * outputs `23`). Numbers compare by value; anything else compares as normalised text.
 */

const NUMBER_RE = /^[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?$/;
const FRACTION_RE = /^([-+]?\d+)\s*\/\s*(\d+)$/;

/** The last `\boxed{…}` content (braces balanced), or null. */
export function lastBoxed(text: string): string | null {
  const at = text.lastIndexOf('\\boxed{');
  if (at < 0) return null;
  let depth = 0;
  for (let i = at + '\\boxed'.length; i < text.length; i++) {
    const c = text[i];
    if (c === '{') depth++;
    else if (c === '}') {
      depth--;
      if (depth === 0) return text.slice(at + '\\boxed{'.length, i);
    }
  }
  return null;
}

/** Trims, unwraps `\boxed{}`, `$…$` and `\text{}`, drops a trailing period, collapses spaces. */
export function normaliseAnswer(text: string): string {
  let t = text.trim();
  t = lastBoxed(t) ?? t;
  t = t.replace(/^\$+|\$+$/g, '').trim();
  t = t.replace(/\\text\{([^{}]*)\}/g, '$1');
  t = t.replace(/[.。]\s*$/, '');
  return t.replace(/\s+/g, ' ').trim().toLowerCase();
}

/** The value of a plain number (`023`, `1,000`, `-0.5`) or fraction (`3/4`), else null. */
export function numericValue(text: string): number | null {
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
  if (stated) return numericValue(stated[1] as string);
  const all = text.match(/[-+]?\d[\d,]*(?:\.\d+)?/g);
  const last = all?.[all.length - 1];
  return last !== undefined ? numericValue(last) : null;
}

const close = (a: number, b: number): boolean =>
  Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

/**
 * True/false when there is a ground truth; null when there is none. An empty answer against a
 * known truth is wrong, not unknown: the run finished without one.
 */
export function isCorrect(answer: string | null, truth: string | null): boolean | null {
  if (truth === null || truth.trim() === '') return null;
  if (answer === null || answer.trim() === '') return false;
  const a = normaliseAnswer(answer);
  const t = normaliseAnswer(truth);
  if (a === t) return true;
  const tv = numericValue(t);
  if (tv === null) return false;
  const av = numericValue(a) ?? numberInProse(a);
  return av !== null && close(av, tv);
}
