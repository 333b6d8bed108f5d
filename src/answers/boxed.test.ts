import { describe, expect, it } from 'vitest';
import { extractBoxed, lastBoxed } from './boxed.ts';

describe('extractBoxed', () => {
  it('handles nested braces', () => {
    expect(extractBoxed('so $\\boxed{\\frac{1}{\\sqrt{2}}}$.')).toEqual(['\\frac{1}{\\sqrt{2}}']);
  });

  it('returns every box in order and the last one as the answer', () => {
    const text = 'first \\boxed{3}, then \\boxed{ 4 } and finally \\fbox{5}';
    expect(extractBoxed(text)).toEqual(['3', '4', '5']);
    expect(lastBoxed(text)).toBe('5');
  });

  it('accepts the brace-less form and escaped braces', () => {
    expect(extractBoxed('answer \\boxed 42 done')).toEqual(['42']);
    expect(extractBoxed('\\boxed{\\{1,2\\}}')).toEqual(['\\{1,2\\}']);
  });

  it('skips unclosed and empty boxes and look-alike commands', () => {
    expect(extractBoxed('\\boxed{} \\boxedsymbol{x} \\boxed{12')).toEqual([]);
    expect(lastBoxed('no box here')).toBeNull();
  });
});
