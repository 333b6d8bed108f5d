import { describe, expect, it } from 'vitest';
import { mathEqual, normalizeMathAnswer, parseNumber } from './math.ts';

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
