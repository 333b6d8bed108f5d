/**
 * Low DoM's direct-answer branch (MAS-Orchestra; the `tiny2` format's `<answer>`) as the
 * Orchestrate page shows it. Kept apart from the slice so it loads with the page, not with the
 * first page.
 */
import { splitThinking } from './orchestrate-partial.ts';
import { orchDesignOf, type OrchGeneration } from './orchestrate.ts';

const ANSWER = /<answer\s*>([^<]*)(?:<\/answer\s*>)?/i;

/**
 * The direct answer written so far, once `<answer>` is written after the thinking with no agent
 * before it (an open block reads to the end of the text); null otherwise.
 */
export function directAnswerSoFar(text: string): string | null {
  const { designText } = splitThinking(text);
  if (/<agent\s*>/i.test(designText)) return null;
  const m = ANSWER.exec(designText);
  return m ? (m[1] ?? '').trim() : null;
}

/** The finished design's direct answer, or null when it delegated or there is no valid design. */
export function orchDirectAnswerOf(g: OrchGeneration | null): string | null {
  const d = orchDesignOf(g);
  return d && d.agents.length === 0 && d.directAnswer !== undefined ? d.directAnswer : null;
}
