import { describe, expect, it } from 'vitest';
import { exactMatch, normalizeQaAnswer, tokenF1 } from './qa.ts';

describe('SQuAD normalisation', () => {
  it('lowercases, drops punctuation and articles, collapses spaces', () => {
    expect(normalizeQaAnswer('  The Eiffel  Tower! ')).toBe('eiffel tower');
    expect(normalizeQaAnswer('“An” apple—a day')).toBe('apple day');
  });

  it('exact match ignores those differences and nothing else', () => {
    expect(exactMatch('the Beatles.', 'Beatles')).toBe(true);
    expect(exactMatch('Beatles band', 'Beatles')).toBe(false);
  });
});

describe('tokenF1', () => {
  it('scores partial overlap', () => {
    // pred tokens: barack obama jr; gold: barack obama → p = 2/3, r = 1, F1 = 0.8.
    expect(tokenF1('Barack Obama Jr.', 'Barack Obama')).toBeCloseTo(0.8, 10);
    expect(tokenF1('Paris', 'London')).toBe(0);
    expect(tokenF1('the', 'a')).toBe(1);
    expect(tokenF1('the', 'Paris')).toBe(0);
  });

  it('counts repeated tokens at most as often as the gold has them', () => {
    // pred: new new new; gold: new york → common 1, p = 1/3, r = 1/2, F1 = 0.4.
    expect(tokenF1('new new new', 'New York')).toBeCloseTo(0.4, 10);
  });
});
