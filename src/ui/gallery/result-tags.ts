/**
 * Tags that only repeat a trace's result, which its card and header already show as a badge
 * (`CorrectnessBadge`): the card leaves them out so "correct" is said once.
 */
export const RESULT_TAGS: ReadonlySet<string> = new Set(['correct', 'wrong', 'incorrect']);

/** The tags worth showing next to the result badge. */
export const tagsBesideBadge = (tags: readonly string[]): string[] =>
  tags.filter((t) => !RESULT_TAGS.has(t.toLowerCase()));
