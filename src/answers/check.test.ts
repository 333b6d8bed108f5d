import { describe, expect, it } from 'vitest';
import { checkAnswer, resolveMode } from './check.ts';

describe('resolveMode', () => {
  it('picks a mode from the ground truth', () => {
    expect(resolveMode([1, 2])).toBe('multi');
    expect(resolveMode('B')).toBe('choice');
    expect(resolveMode('(C)')).toBe('choice');
    expect(resolveMode('023')).toBe('math');
    expect(resolveMode('\\sqrt{2}')).toBe('math');
    expect(resolveMode('Eiffel Tower')).toBe('exact');
    expect(resolveMode('B', 'exact')).toBe('exact');
  });
});

describe('checkAnswer', () => {
  it('grades a boxed numeric answer against a zero-padded ground truth', () => {
    expect(checkAnswer('Therefore $\\boxed{23}$.', '023')).toEqual({
      correct: true,
      extracted: '23',
      method: 'boxed/math',
      score: 1,
    });
  });

  it('compares fractions and decimals', () => {
    expect(checkAnswer('\\boxed{\\dfrac{1}{2}}', '0.5').correct).toBe(true);
    expect(checkAnswer('The answer is 1/2.', '\\frac{1}{2}')).toMatchObject({
      correct: true,
      method: 'phrase/math',
    });
  });

  it('falls back to the last number, and trusts the box over later numbers', () => {
    expect(checkAnswer('... which gives 1,200 dollars', 1200)).toMatchObject({
      correct: true,
      method: 'last-number/math',
    });
    expect(checkAnswer('\\boxed{7}. Check: 7 + 1 = 8', 8).correct).toBe(false);
  });

  it('skips an answer phrase without a number in math mode', () => {
    expect(checkAnswer('The answer is not obvious at first. Adding up, we get 14.', 14)).toMatchObject({
      correct: true,
      method: 'last-number/math',
    });
  });

  it('reports a missing answer as none', () => {
    expect(checkAnswer('I do not know.', 5)).toEqual({
      correct: false,
      extracted: null,
      method: 'none',
      score: 0,
    });
  });

  it('grades multi-answer tasks in order, with partial score', () => {
    expect(checkAnswer('\\boxed{3} and \\boxed{12}', [3, 12])).toMatchObject({
      correct: true,
      method: 'boxes/multi',
    });
    expect(checkAnswer('\\boxed{12, 3}', [3, 12])).toMatchObject({ correct: false, score: 0 });
    expect(checkAnswer('\\boxed{3, 4}', [3, 12])).toMatchObject({
      correct: false,
      score: 0.5,
      extracted: '3, 4',
    });
  });

  it('grades multiple choice', () => {
    expect(checkAnswer('The answer is (B).', 'B')).toMatchObject({ correct: true, extracted: 'B' });
    expect(checkAnswer('The answer is (B).', '(C)').correct).toBe(false);
  });

  it('grades QA by exact match, with alternatives', () => {
    expect(checkAnswer('Answer: the Eiffel Tower.', 'Eiffel Tower')).toMatchObject({
      correct: true,
      method: 'phrase/exact',
    });
    expect(checkAnswer('Paris', ['London', 'paris'], 'exact').correct).toBe(true);
    expect(checkAnswer('It is in Paris, France', 'Paris', 'exact').correct).toBe(false);
  });

  it('grades QA by token F1 against a threshold', () => {
    const r = checkAnswer('Barack Obama Jr.', 'Barack Obama', 'f1');
    expect(r.score).toBeCloseTo(0.8, 10);
    expect(r.correct).toBe(true);
    expect(checkAnswer('Barack Obama Jr.', 'Barack Obama', 'f1', { f1Threshold: 0.9 }).correct).toBe(false);
  });

  it('refuses an empty ground-truth list', () => {
    expect(() => checkAnswer('1', [])).toThrow(/at least one ground truth/);
  });
});
