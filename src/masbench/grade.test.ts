import { describe, expect, it } from 'vitest';
import { checkTaskAnswer } from './grade.ts';

describe('checkTaskAnswer', () => {
  it('grades a single asked answer', () => {
    expect(checkTaskAnswer('So each Heron has \\boxed{7} Livers.', { answers: [7] }).correct).toBe(true);
    expect(checkTaskAnswer('\\boxed{8}', { answers: [7] }).correct).toBe(false);
  });

  it('needs every asked answer, in order', () => {
    expect(checkTaskAnswer('\\boxed{3, 0, 12}', { answers: [3, 0, 12] }).correct).toBe(true);
    expect(checkTaskAnswer('\\boxed{0, 3, 12}', { answers: [3, 0, 12] }).correct).toBe(false);
  });
});
