/** Self-consistency: `samples` independent answers in parallel, plurality vote on the normalised answer. */
import { AgentCallError, type AgentRunner } from '../types.ts';
import { AGENT_DEFAULTS } from './defaults.ts';
import { solveMessages } from './prompts.ts';
import { majorityVote } from './vote.ts';

export const scAgent: AgentRunner = async (ctx) => {
  const n = ctx.agent.params.samples ?? AGENT_DEFAULTS.scSamples;
  const temperature = ctx.agent.params.temperature ?? AGENT_DEFAULTS.scTemperature;
  const settled = await Promise.allSettled(
    Array.from({ length: n }, (_, i) =>
      ctx.chat(`sample ${i + 1}/${n}`, solveMessages(ctx.input), { temperature }),
    ),
  );
  const texts: string[] = [];
  const failures: unknown[] = [];
  for (const s of settled) {
    if (s.status === 'fulfilled') texts.push(s.value);
    else failures.push(s.reason);
  }
  // A sample that failed does not vote; the agent fails only when none is left to vote.
  if (texts.length === 0) {
    const first = failures[0];
    throw first instanceof Error ? first : new AgentCallError('exception', String(first));
  }
  const vote = majorityVote(texts);
  const tally = vote.counts.map((c) => `${c.answer} ×${c.votes}`).join(', ') || 'no answers found';
  const lost = failures.length > 0 ? `; ${failures.length} sample(s) failed and did not vote` : '';
  ctx.note(
    'vote',
    vote.winner === null
      ? `No sample gave a readable answer (${texts.length} voted${lost}); using sample 1.`
      : `Majority ${vote.winner} with ${vote.counts[0]?.votes ?? 0}/${texts.length} votes (${tally})${lost}.`,
  );
  return texts[vote.index] ?? texts[0] ?? '';
};
