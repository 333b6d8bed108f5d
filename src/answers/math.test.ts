import { describe, expect, it } from 'vitest';
import { mathEqual, normalizeMathAnswer, normalizeMathAnswerUncached, parseNumber } from './math.ts';

describe('normalizeMathAnswer', () => {
  it.each([
    ['$5$', '5'],
    ['\\(12\\)', '12'],
    ['5 \\text{ cm}', '5'],
    ['12 apples.', '12'],
    ['1,234,567', '1234567'],
    ['1\\,000', '1000'],
    ['\\dfrac{3}{4}', '\\frac{3}{4}'],
    ['\\tfrac12', '\\frac{1}{2}'],
    ['x = 7', '7'],
    ['90^\\circ', '90'],
    ['\\$20', '20'],
    ['50\\%', '50'],
    ['\\left( 2, 3 \\right)', '( 2, 3 )'],
    ['\u22123', '-3'],
  ])('%s → %s', (raw, expected) => {
    expect(normalizeMathAnswer(raw)).toBe(expected);
  });
});

describe('parseNumber', () => {
  it.each([
    ['023', 23],
    ['-0.5', -0.5],
    ['1/2', 0.5],
    ['\\frac{3}{4}', 0.75],
    ['-\\frac{1}{4}', -0.25],
    ['\\frac{-1}{4}', -0.25],
    ['(7)', 7],
    ['1e3', 1000],
  ])('%s = %d', (s, v) => {
    expect(parseNumber(s)).toBeCloseTo(v, 12);
  });

  it.each(['', 'x', '1/0', '\\frac{1}{0}', '\\sqrt{2}', '1.2.3'])('%s is not a number', (s) => {
    expect(parseNumber(s)).toBeNull();
  });
});

describe('mathEqual', () => {
  it.each([
    ['\\frac{1}{2}', '0.5'],
    ['\\dfrac{1}{2}', '1/2'],
    ['023', '23'],
    ['1,000', '1000'],
    ['$5$', '5'],
    ['5 \\text{ meters}', '5'],
    ['42.', '42'],
    ['\\sqrt{2}', '\\sqrt2'],
    ['\\frac{\\sqrt{3}}{2}', '\\frac{\\sqrt3}2'],
    ['x=3', '3'],
    ['0.3333333333333', '1/3'],
  ])('%s = %s', (a, b) => {
    expect(mathEqual(a, b)).toBe(true);
  });

  it.each([
    ['0.5', '0.6'],
    ['\\frac{1}{3}', '0.33'],
    ['23', '32'],
    ['\\sqrt{2}', '\\sqrt{3}'],
    ['5', 'five'],
    ['', ''],
    ['\\frac{x}{yz}', '\\frac{xy}{z}'],
  ])('%s ≠ %s', (a, b) => {
    expect(mathEqual(a, b)).toBe(false);
  });
});

describe('normalizeMathAnswer, remembered', () => {
  it('gives what the unremembered form gives, first and later calls, short and long texts', () => {
    const pieces = [
      '$',
      '\\frac',
      '{',
      '}',
      '1',
      '23',
      ',',
      ' ',
      '.',
      'x = ',
      '\\text{ cm}',
      '−',
      '%',
      '\\,',
      '°',
      'answer is ',
    ];
    let seed = 7;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return Math.floor((seed / 2147483648) * n);
    };
    const texts: string[] = [];
    for (let i = 0; i < 2000; i++) {
      let t = '';
      for (let k = next(12); k >= 0; k--) t += pieces[next(pieces.length)];
      texts.push(t);
    }
    texts.push('7'.repeat(250), `$${'1,234'.repeat(60)}$`);
    for (let pass = 0; pass < 2; pass++)
      for (const t of texts) expect(normalizeMathAnswer(t)).toBe(normalizeMathAnswerUncached(t));
    // The texts were not all alike after normalising.
    expect(new Set(texts.map(normalizeMathAnswer)).size).toBeGreaterThan(500);
  });
});
