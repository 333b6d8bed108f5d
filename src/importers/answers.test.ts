import { describe, expect, it } from 'vitest';
import { isCorrect, lastBoxed, normaliseAnswer, numericValue } from './answers.ts';

describe('answer checking', () => {
  it('compares numbers by value: AIME "023" is "23"', () => {
    expect(isCorrect('23', '023')).toBe(true);
    expect(isCorrect('1,000', '1000')).toBe(true);
    expect(isCorrect('0.50', '.5')).toBe(true);
    expect(isCorrect('3/4', '0.75')).toBe(true);
    expect(isCorrect('24', '023')).toBe(false);
  });

  it('unwraps \\boxed{}, $…$ and prose around a number', () => {
    expect(lastBoxed('so \\boxed{\\frac{1}{2}} done')).toBe('\\frac{1}{2}');
    expect(isCorrect('The answer is \\boxed{204}.', '204')).toBe(true);
    expect(isCorrect('$45$', '045')).toBe(true);
    expect(isCorrect('The answer is 30 (11 + 19).', '30')).toBe(true);
  });

  it('compares text case- and space-insensitively', () => {
    expect(normaliseAnswer('  Paris. ')).toBe('paris');
    expect(isCorrect('paris', 'Paris')).toBe(true);
    expect(isCorrect('Lyon', 'Paris')).toBe(false);
  });

  it('is unknown without ground truth and wrong when the answer is empty', () => {
    expect(isCorrect('12', null)).toBeNull();
    expect(isCorrect('12', '  ')).toBeNull();
    expect(isCorrect('', '12')).toBe(false);
    expect(isCorrect(null, '12')).toBe(false);
  });

  it('reads only plain numbers as numbers', () => {
    expect(numericValue('023')).toBe(23);
    expect(numericValue('-')).toBeNull();
    expect(numericValue('1/0')).toBeNull();
    expect(numericValue('12 apples')).toBeNull();
  });
});
