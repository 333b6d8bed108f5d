import { describe, expect, it } from 'vitest';
import { answerMarkdown, shownAnswer } from './answer.ts';

const PARAGRAPH =
  'All arithmetic is modulo 23. First, the number of Barns is 19. Then the Goats are 12, and the ' +
  'Sheep 20. So the answer is \\boxed{19, 12, 20}.';

describe('shownAnswer', () => {
  it('reads the boxed answer out of a paragraph, as the grader does', () => {
    expect(shownAnswer(PARAGRAPH, ['19', '12', '20'])).toEqual({ answer: '19, 12, 20', extracted: true });
    expect(shownAnswer(PARAGRAPH)).toEqual({ answer: '19, 12, 20', extracted: true });
  });

  it('reads an "answer is" phrase from a long text without a box', () => {
    const text = `${'Reasoning. '.repeat(10)}\nThe answer is 42.`;
    expect(shownAnswer(text)).toEqual({ answer: '42', extracted: true });
  });

  it('keeps a short answer as it is', () => {
    expect(shownAnswer('59', ['113'])).toEqual({ answer: '59', extracted: false });
    expect(shownAnswer('Paris')).toEqual({ answer: 'Paris', extracted: false });
    expect(shownAnswer('\\boxed{7}')).toEqual({ answer: '7', extracted: true });
  });

  it('keeps a long text whose answer it cannot find', () => {
    const text = 'No number here, only words that go on and on. '.repeat(4).trim();
    expect(shownAnswer(text)).toEqual({ answer: text, extracted: false });
  });
});

describe('answerMarkdown', () => {
  it('sets LaTeX as inline math and leaves plain answers alone', () => {
    expect(answerMarkdown('\\frac{1}{2}')).toBe('$\\frac{1}{2}$');
    expect(answerMarkdown('19, 12, 20')).toBe('19, 12, 20');
    expect(answerMarkdown('$x^2$')).toBe('$x^2$');
  });
});
