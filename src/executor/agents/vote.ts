/**
 * Reading an answer out of a model's text and voting over several, with the same extraction
 * and normalisation the answer checker uses (src/answers).
 */
import {
  extractAnswerPhrase,
  extractFinalNumber,
  lastBoxed,
  normalizeMathAnswer,
} from '../../answers/index.ts';

/**
 * The normalised final answer of a text: the last `\boxed{}`, else an "answer is" phrase, else
 * the last number; null when there is none. Two texts vote together when their keys are equal.
 */
export function answerKey(text: string): string | null {
  const raw = lastBoxed(text) ?? extractAnswerPhrase(text) ?? extractFinalNumber(text);
  if (raw === null) return null;
  const key = normalizeMathAnswer(raw).toLowerCase();
  return key === '' ? null : key;
}

export interface VoteResult {
  /** The winning normalised answer, or null when no text had an answer. */
  winner: string | null;
  /** Index of the first text that gave the winning answer (the agent's output). */
  index: number;
  /** Votes per answer, most votes first. */
  counts: { answer: string; votes: number }[];
}

/** Plurality vote; ties go to the answer seen first. Texts without an answer do not vote. */
export function majorityVote(texts: readonly string[]): VoteResult {
  const counts = new Map<string, { votes: number; first: number }>();
  texts.forEach((t, i) => {
    const key = answerKey(t);
    if (key === null) return;
    const c = counts.get(key);
    if (c) c.votes += 1;
    else counts.set(key, { votes: 1, first: i });
  });
  const ranked = [...counts.entries()].sort((a, b) => b[1].votes - a[1].votes || a[1].first - b[1].first);
  const top = ranked[0];
  return {
    winner: top ? top[0] : null,
    index: top ? top[1].first : 0,
    counts: ranked.map(([answer, c]) => ({ answer, votes: c.votes })),
  };
}
