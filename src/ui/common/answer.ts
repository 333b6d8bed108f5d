import { checkAnswer, extractAnswerPhrase, lastBoxed } from '../../answers/index.ts';

/**
 * The answer a final output gives, for places with room for the answer only (the task panel, the
 * run's result). A final output is often a paragraph of reasoning ending in `\boxed{19, 12, 20}`;
 * the grader reads the answer out of it, and so does the page, with the same rules.
 */
export interface ShownAnswer {
  /** The answer as read from the output (the whole output when it is already just an answer). */
  answer: string;
  /** True when `answer` was read out of a longer text, which the page then offers in full. */
  extracted: boolean;
}

/** An output this short, on one line and without a box, is the answer itself. */
const SHORT_ANSWER = 80;

export function shownAnswer(output: string, truths: readonly string[] = []): ShownAnswer {
  const whole = output.trim();
  let found: string | null = null;
  if (truths.length > 0) {
    // The grader's own reading, so the page shows what was graded.
    const checked = checkAnswer(whole, truths);
    if (checked.extracted !== null && !checked.method.startsWith('text/')) found = checked.extracted;
  }
  found ??= lastBoxed(whole);
  if (found === null && (whole.length > SHORT_ANSWER || whole.includes('\n')))
    found = extractAnswerPhrase(whole);
  if (found === null || found.trim() === whole) return { answer: whole, extracted: false };
  return { answer: found.trim(), extracted: true };
}

/** Markdown for an extracted answer: LaTeX (a command, `^` or `_`) as inline math, else plain text. */
export function answerMarkdown(answer: string): string {
  if (/\\[A-Za-z]|[\^_]/.test(answer) && !answer.includes('$')) return `$${answer}$`;
  return answer;
}
