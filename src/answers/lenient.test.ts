import { describe, expect, it } from 'vitest';
import { createRng } from '../core/rng.ts';
import { lastBoxedFromEnd } from './boxed.ts';
import { lenientCorrect, normalizeLenient, plainNumber } from './lenient.ts';

/**
 * The importers' comparator as it shipped before it moved here, kept verbatim as the reference:
 * an imported slide must get the same `correct` as before.
 */
const reference = (() => {
  const NUMBER_RE = /^[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?$/;
  const FRACTION_RE = /^([-+]?\d+)\s*\/\s*(\d+)$/;
  function lastBoxed(text: string): string | null {
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
  function normaliseAnswer(text: string): string {
    let t = text.trim();
    t = lastBoxed(t) ?? t;
    t = t.replace(/^\$+|\$+$/g, '').trim();
    t = t.replace(/\\text\{([^{}]*)\}/g, '$1');
    t = t.replace(/[.。]\s*$/, '');
    return t.replace(/\s+/g, ' ').trim().toLowerCase();
  }
  function numericValue(text: string): number | null {
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
  function numberInProse(text: string): number | null {
    const stated = /answer\s*(?:is|:|=)\s*\**\s*([-+]?[\d,]*\.?\d+)/i.exec(text);
    if (stated) return numericValue(stated[1] as string);
    const all = text.match(/[-+]?\d[\d,]*(?:\.\d+)?/g);
    const last = all?.[all.length - 1];
    return last !== undefined ? numericValue(last) : null;
  }
  const close = (a: number, b: number): boolean =>
    Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
  function isCorrect(answer: string | null, truth: string | null): boolean | null {
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
  return { lastBoxed, normaliseAnswer, numericValue, isCorrect };
})();

const PIECES = [
  '\\boxed{',
  '\\boxed {',
  '\\fbox{',
  '{',
  '}',
  '\\{',
  '$',
  '\\text{',
  ' ',
  '\n',
  '.',
  '。',
  ',',
  '023',
  '23',
  '1,000',
  '1000',
  '-0.5',
  '.5',
  '3/4',
  '0.75',
  '/0',
  '+',
  '-',
  'The answer is ',
  'answer: **',
  'Paris',
  'paris',
  'x',
];

function generated(count: number, seed: number): string[] {
  const rng = createRng(seed);
  const out: string[] = [];
  for (let n = 0; n < count; n++) {
    const length = rng.int(8);
    let s = '';
    for (let k = 0; k < length; k++) s += rng.pick(PIECES);
    out.push(s);
  }
  return out;
}

describe('lenientCorrect (scoring imported case pages)', () => {
  it('compares numbers by value: AIME "023" is "23"', () => {
    expect(lenientCorrect('23', '023')).toBe(true);
    expect(lenientCorrect('1,000', '1000')).toBe(true);
    expect(lenientCorrect('0.50', '.5')).toBe(true);
    expect(lenientCorrect('3/4', '0.75')).toBe(true);
    expect(lenientCorrect('24', '023')).toBe(false);
  });

  it('unwraps \\boxed{}, $…$ and prose around a number', () => {
    expect(lenientCorrect('The answer is \\boxed{204}.', '204')).toBe(true);
    expect(lenientCorrect('$45$', '045')).toBe(true);
    expect(lenientCorrect('The answer is 30 (11 + 19).', '30')).toBe(true);
  });

  it('compares text case- and space-insensitively', () => {
    expect(normalizeLenient('  Paris. ')).toBe('paris');
    expect(lenientCorrect('paris', 'Paris')).toBe(true);
    expect(lenientCorrect('Lyon', 'Paris')).toBe(false);
  });

  it('is unknown without ground truth and wrong when the answer is empty', () => {
    expect(lenientCorrect('12', null)).toBeNull();
    expect(lenientCorrect('12', '  ')).toBeNull();
    expect(lenientCorrect('', '12')).toBe(false);
    expect(lenientCorrect(null, '12')).toBe(false);
  });

  it('reads only plain numbers as numbers', () => {
    expect(plainNumber('023')).toBe(23);
    expect(plainNumber('-')).toBeNull();
    expect(plainNumber('1/0')).toBeNull();
    expect(plainNumber('12 apples')).toBeNull();
  });

  it('reads a box from the end, the inner one when boxes nest', () => {
    expect(lastBoxedFromEnd('so \\boxed{\\frac{1}{2}} done')).toBe('\\frac{1}{2}');
    expect(lastBoxedFromEnd('\\boxed{\\boxed{5}}')).toBe('5');
    expect(lastBoxedFromEnd('\\boxed{1} then \\boxed{2')).toBeNull();
    expect(lastBoxedFromEnd('\\boxed {3}')).toBeNull();
  });

  it('gives the same verdicts as the importers reference on 30,000 generated pairs', () => {
    const answers = generated(30_000, 11);
    const truths = generated(30_000, 12);
    const differing: [string, string][] = [];
    answers.forEach((a, i) => {
      const t = truths[i] as string;
      // Half the pairs share their truth with a near copy of the answer, so matches are common.
      const truth = i % 2 === 0 ? t : a.replace(/\$/g, '').toUpperCase();
      if (
        lenientCorrect(a, truth) !== reference.isCorrect(a, truth) ||
        normalizeLenient(a) !== reference.normaliseAnswer(a) ||
        plainNumber(a) !== reference.numericValue(a) ||
        lastBoxedFromEnd(a) !== reference.lastBoxed(a)
      )
        differing.push([a, truth]);
    });
    expect(differing).toEqual([]);
    expect(
      answers.filter((a, i) => reference.isCorrect(a, truths[i] as string) === true).length,
    ).toBeGreaterThan(0);
  });
});
