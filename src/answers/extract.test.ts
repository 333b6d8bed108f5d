import { describe, expect, it } from 'vitest';
import {
  extractAnswerPhrase,
  extractChoice,
  extractFinalNumber,
  extractNumbers,
  normalizeChoice,
} from './extract.ts';

describe('extractAnswerPhrase', () => {
  it('takes the last phrase, without markdown or the closing period', () => {
    expect(extractAnswerPhrase('The answer is 3?\nWait.\n**Final answer:** 14 apples.')).toBe('14 apples');
    expect(extractAnswerPhrase('no phrase here')).toBeNull();
  });

  it('stops at the end of the sentence but not inside a decimal', () => {
    expect(extractAnswerPhrase('The answer is 0.5. Done.')).toBe('0.5');
    expect(extractAnswerPhrase('The answer is unclear. Then 7')).toBe('unclear');
  });
});

describe('extractFinalNumber', () => {
  it('takes the last number with separators, signs and fractions', () => {
    expect(extractFinalNumber('We get 12, then 1,234 in total.')).toBe('1234');
    expect(extractFinalNumber('the result is -7')).toBe('-7');
    expect(extractFinalNumber('so x = \\frac{3}{4}')).toBe('\\frac{3}{4}');
    expect(extractFinalNumber('ratio 3/8')).toBe('3/8');
    expect(extractFinalNumber('none')).toBeNull();
  });

  it('does not read a hyphen inside a word as a minus sign', () => {
    expect(extractFinalNumber('after COVID-19')).toBe('19');
    expect(extractNumbers('a-3 and 4')).toEqual(['3', '4']);
  });
});

describe('extractChoice', () => {
  it.each([
    ['Thus \\boxed{B}.', 'B'],
    ['\\boxed{\\text{(C)}}', 'C'],
    ['I think the answer is (D) because…', 'D'],
    ['Answer: E', 'E'],
    ['Options (A) and (B) fail, so it must be (C).', 'C'],
    ['Reasoning...\nB\n', 'B'],
  ])('%s → %s', (text, letter) => {
    expect(extractChoice(text)).toBe(letter);
  });

  it('ignores lowercase letters in prose and letters outside the set', () => {
    expect(extractChoice('the answer is a matter of taste')).toBeNull();
    expect(extractChoice('Answer: F', 'ABCD')).toBeNull();
  });

  it('normalizes choice spellings', () => {
    expect(normalizeChoice('(b)')).toBe('B');
    expect(normalizeChoice('Option C.')).toBe('C');
    expect(normalizeChoice('CD')).toBeNull();
  });
});
