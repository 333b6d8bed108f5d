import { describe, expect, it } from 'vitest';
import { extractMultiAnswers, splitAnswers, splitTopLevel } from './multi.ts';

describe('splitTopLevel', () => {
  it('does not split inside braces or parentheses', () => {
    expect(splitTopLevel('\\frac{1,2}{3}, (4, 5), 6', /,/)).toEqual(['\\frac{1,2}{3}', '(4, 5)', '6']);
  });
});

describe('splitAnswers', () => {
  it('prefers the separator that yields the expected count', () => {
    expect(splitAnswers('1,234, 5', 2)).toEqual(['1,234', '5']);
    expect(splitAnswers('3; 4; 5', 3)).toEqual(['3', '4', '5']);
    expect(splitAnswers('3, 4 and 5', 3)).toEqual(['3', '4', '5']);
    expect(splitAnswers('3, 4', 3)).toBeNull();
  });
});

describe('extractMultiAnswers', () => {
  it('reads a list in one box', () => {
    expect(extractMultiAnswers('so \\boxed{3, 7}', 2)).toEqual({ answers: ['3', '7'], how: 'boxed-list' });
  });

  it('reads several boxes, the last ones', () => {
    expect(extractMultiAnswers('\\boxed{1} first; (1) \\boxed{3} (2) \\boxed{7}', 2)).toEqual({
      answers: ['3', '7'],
      how: 'boxes',
    });
  });

  it('falls back to the answer phrase, then the last numbers', () => {
    expect(extractMultiAnswers('Answer: 4, 9', 2)?.how).toBe('phrase-list');
    expect(extractMultiAnswers('first 4 then 9 then 11', 2)).toEqual({
      answers: ['9', '11'],
      how: 'last-numbers',
    });
    expect(extractMultiAnswers('only 4', 2)).toBeNull();
  });
});
