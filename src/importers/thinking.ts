/**
 * The orchestrator's reasoning as MAS-Orchestra's pages publish it: either a `<thinking>` block
 * (closing tag often cut off), or a raw harmony-format transcript, `analysis…` (the reasoning
 * channel) then `assistantfinal…` (the final channel, which starts with the `<thinking>` block).
 */

/** Heading that separates the final `<thinking>` text from the raw reasoning channel. */
export const ANALYSIS_HEADING = '[orchestrator reasoning (analysis channel)]';

function thinkingBlock(text: string): string {
  const unfenced = text.replace(/^```[a-z]*\s*\n?/i, '').replace(/\n?```\s*$/, '');
  const block = /<thinking\s*>([\s\S]*?)(?:<\/thinking\s*>|$)/i.exec(unfenced);
  if (block) return (block[1] as string).trim();
  // Some final channels lost the tag and keep only the word: "thinkingThe problem is…".
  return unfenced.replace(/^\s*thinking:?(?=[A-Z\s]|$)/, '').trim();
}

/**
 * The design's `thinking`: the final `<thinking>` text first, then the raw reasoning under
 * `ANALYSIS_HEADING` so nothing the page published is lost. Undefined when there is none.
 */
export function splitThinking(text: string): string | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  // "analysisWe need…" is the harmony transcript; "Analysis of the problem…" is ordinary prose.
  const harmony = /^analysis[A-Z]/.test(t) || (t.startsWith('analysis') && t.includes('assistantfinal'));
  if (!harmony) return thinkingBlock(t) || undefined;
  const k = t.indexOf('assistantfinal');
  const analysis = (k < 0 ? t.slice('analysis'.length) : t.slice('analysis'.length, k)).trim();
  const final = k < 0 ? '' : thinkingBlock(t.slice(k + 'assistantfinal'.length));
  if (final === '') return analysis === '' ? undefined : `${ANALYSIS_HEADING}\n${analysis}`;
  return analysis === '' ? final : `${final}\n\n${ANALYSIS_HEADING}\n${analysis}`;
}
