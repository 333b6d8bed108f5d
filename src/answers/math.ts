/**
 * Equivalence of short mathematical answers: numbers in any common spelling (`0.5`, `1/2`,
 * `\frac{1}{2}`, `\dfrac12`, `023`, `1,234`, `$5$`, `5 \text{ cm}`, `5.`) and, failing that,
 * LaTeX strings compared after removing layout-only differences.
 */

/** Relative tolerance for numeric equality; absolute below magnitude 1. */
export const NUMERIC_TOLERANCE = 1e-9;

const TEXT_COMMANDS =
  /\\(?:text|textbf|textit|textrm|mathrm|mathbf|mathit|mbox|operatorname)\s*\{([^{}]*)\}/g;

/** A signed integer or decimal, optionally with thousands separators. */
const NUMBER_SOURCE = String.raw`[+-]?(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d*)?|\.\d+)`;
const NUMBER_WITH_UNIT = new RegExp(
  String.raw`^(${NUMBER_SOURCE}(?:\s*/\s*\d+)?)\s+[A-Za-z][A-Za-z\s.²³/-]*$`,
);
const THOUSANDS = /^[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;

/** Removes `$…$`, `$$…$$`, `\(…\)` and `\[…\]` around the whole answer. */
function stripDelimiters(s: string): string {
  let t = s.trim();
  for (;;) {
    const inner =
      /^\$\$([\s\S]*)\$\$$/.exec(t)?.[1] ??
      /^\$([\s\S]*)\$$/.exec(t)?.[1] ??
      /^\\\(([\s\S]*)\\\)$/.exec(t)?.[1] ??
      /^\\\[([\s\S]*)\\\]$/.exec(t)?.[1];
    if (inner === undefined) return t;
    t = inner.trim();
  }
}

/**
 * Canonical text of an answer; the rules are listed in docs/masbench.md ("Answer checking").
 * A pure function of the text, so short texts (answers, not whole outputs) are read once and
 * remembered: graders and voters normalise the same few answers over and over.
 */
export function normalizeMathAnswer(raw: string): string {
  if (raw.length > MEMO_MAX_CHARS) return normalizeMathAnswerUncached(raw);
  let s = normalized.get(raw);
  if (s === undefined) {
    s = normalizeMathAnswerUncached(raw);
    if (normalized.size >= MEMO_LIMIT) normalized.clear();
    normalized.set(raw, s);
  }
  return s;
}

const normalized = new Map<string, string>();
const MEMO_LIMIT = 4096;
const MEMO_MAX_CHARS = 200;

/** `normalizeMathAnswer` without its memo (the reference its tests compare with). */
export function normalizeMathAnswerUncached(raw: string): string {
  let s = stripDelimiters(raw.replace(/\u2212/g, '-'));
  for (let prev = ''; prev !== s;) {
    prev = s;
    s = s.replace(TEXT_COMMANDS, '$1');
  }
  s = s
    .replace(/\\[dt]frac/g, '\\frac')
    .replace(/\\frac\s*(\d)\s*(\d)/g, '\\frac{$1}{$2}')
    .replace(/\\(?:left|right|displaystyle)/g, '')
    .replace(/\{,\}/g, ',')
    // LaTeX spacing commands; `1\,000` is a thousands separator, so dropping them is right there too.
    .replace(/\\[,;:! ]/g, '')
    .replace(/~/g, ' ')
    .replace(/\^\s*\{?\s*\\circ\s*\}?/g, '')
    .replace(/°/g, '')
    .replace(/\\?%/g, '')
    .replace(/\\\$/g, '')
    .replace(/\$/g, '')
    .replace(/\*\*/g, '')
    .trim();
  s = s.replace(/^(?:the\s+)?(?:final\s+)?answer\s*(?:is|:)\s*/i, '');
  // A leading label such as `x =` or `Total:` names the answer but is not part of it.
  s = s.replace(/^[A-Za-z][A-Za-z0-9_ '’]{0,40}?\s*[=:]\s*(?=\S)/, '');
  s = s.replace(/[.\s]+$/, '');
  const withUnit = NUMBER_WITH_UNIT.exec(s);
  if (withUnit?.[1] !== undefined) s = withUnit[1];
  if (THOUSANDS.test(s)) s = s.replace(/,/g, '');
  if (/^\d{1,3}(?: \d{3})+$/.test(s)) s = s.replace(/ /g, '');
  return s.replace(/\s+/g, ' ').trim();
}

/**
 * The value of a normalized numeric answer, or null when it is not a plain number, a quotient
 * `a/b` or `\frac{a}{b}` of numbers. Leading zeros are allowed (`023` is 23).
 */
export function parseNumber(normalized: string): number | null {
  const t = normalized.replace(/\s+/g, '');
  if (t === '') return null;
  const paren = /^\((.*)\)$/.exec(t);
  if (paren?.[1] !== undefined) return parseNumber(paren[1]);
  if (/^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i.test(t)) return finite(Number(t));
  if (THOUSANDS.test(t)) return finite(Number(t.replace(/,/g, '')));
  const frac = /^([+-]?)\\frac\{([^{}]+)\}\{([^{}]+)\}$/.exec(t);
  if (frac) {
    const num = parseNumber(frac[2] ?? '');
    const den = parseNumber(frac[3] ?? '');
    if (num === null || den === null || den === 0) return null;
    return finite((frac[1] === '-' ? -1 : 1) * (num / den));
  }
  const slash = /^([+-]?(?:\d+(?:\.\d+)?))\/([+-]?(?:\d+(?:\.\d+)?))$/.exec(t);
  if (slash) {
    const den = Number(slash[2]);
    if (den === 0) return null;
    return finite(Number(slash[1]) / den);
  }
  return null;
}

function finite(x: number): number | null {
  return Number.isFinite(x) ? x : null;
}

export function numbersClose(a: number, b: number): boolean {
  return Math.abs(a - b) <= NUMERIC_TOLERANCE * Math.max(1, Math.abs(a), Math.abs(b));
}

/** Layout-insensitive form for answers that are not numbers: no spaces, `{x}` → `x` for one character. */
function canonicalLatex(normalized: string): string {
  let s = normalized.replace(/\s+/g, '');
  for (let prev = ''; prev !== s;) {
    prev = s;
    s = s.replace(/\{(\w)\}/g, '$1');
  }
  return s;
}

/** True when two answers mean the same number, or are the same expression up to layout. */
export function mathEqual(a: string, b: string): boolean {
  const na = normalizeMathAnswer(a);
  const nb = normalizeMathAnswer(b);
  if (na === '' || nb === '') return false;
  if (na === nb) return true;
  const va = parseNumber(na);
  const vb = parseNumber(nb);
  if (va !== null && vb !== null) return numbersClose(va, vb);
  if (va !== null || vb !== null) return false;
  return canonicalLatex(na) === canonicalLatex(nb);
}

/** True when the answer reads as a number once normalized. */
export function isNumericAnswer(s: string): boolean {
  return parseNumber(normalizeMathAnswer(s)) !== null;
}
