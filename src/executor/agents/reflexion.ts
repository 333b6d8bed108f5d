/** Reflexion: an answer, then critic rounds (at most `maxRounds`), stopping when the critic accepts. */
import type { AgentRunner } from '../types.ts';
import { AGENT_DEFAULTS } from './defaults.ts';
import { criticMessages, revisionMessages, solveMessages } from './prompts.ts';

/**
 * The critic's verdict from its reply: ACCEPT or REJECT on the first line, as asked. A reply
 * that says neither counts as a rejection, so an unreadable review never ends the loop early.
 */
export function readVerdict(reply: string): 'accept' | 'reject' {
  const first = reply.trim().split('\n')[0]?.toUpperCase() ?? '';
  if (/\bREJECT/.test(first)) return 'reject';
  if (/\bACCEPT/.test(first)) return 'accept';
  return 'reject';
}

export const reflexionAgent: AgentRunner = async (ctx) => {
  const maxRounds = ctx.agent.params.maxRounds ?? AGENT_DEFAULTS.reflexionMaxRounds;
  let answer = await ctx.chat('initial answer', solveMessages(ctx.input));
  for (let round = 1; round <= maxRounds; round++) {
    const critique = await ctx.chat(`critic round ${round}`, criticMessages(ctx.input, answer), {
      kind: 'critic',
      temperature: 0,
    });
    const verdict = readVerdict(critique);
    ctx.note(
      'verdict',
      `Round ${round}: the critic ${verdict === 'accept' ? 'accepted' : 'rejected'} the answer.`,
    );
    if (verdict === 'accept') return answer;
    if (round === maxRounds) {
      ctx.note('verdict', `No acceptance after ${maxRounds} round(s); keeping the last answer.`);
      break;
    }
    answer = await ctx.chat(`revision ${round}`, revisionMessages(ctx.input, answer, critique), {
      kind: 'revise',
    });
  }
  return answer;
};
