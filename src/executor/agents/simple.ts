/** The one-call agents: CoT, WebSearch (as CoT, no web here), Extract and the final Summariser. */
import type { AgentRunner } from '../types.ts';
import { extractMessages, solveMessages, summarizerMessages } from './prompts.ts';

export const cotAgent: AgentRunner = (ctx) => ctx.chat('answer', solveMessages(ctx.input));

/**
 * Baton has no web access: the agent says so in a note and answers as a CoT call from what the
 * model already knows. Designs that rely on fresh facts will be weaker here than in MAS-Orchestra.
 */
export const webSearchAgent: AgentRunner = (ctx) => {
  ctx.note(
    'web-search-unavailable',
    'Web search is not available in Baton; this agent answered as a chain-of-thought call without searching.',
  );
  return ctx.chat('answer (no web search)', solveMessages(ctx.input));
};

export const extractAgent: AgentRunner = (ctx) =>
  ctx.chat('extract', extractMessages(ctx.input), { kind: 'extract' });

/** MasHost EXIT: the intermediate answers arrive in the input; one call combines them. */
export const summarizerAgent: AgentRunner = (ctx) =>
  ctx.chat('summary', summarizerMessages(ctx.input), { kind: 'decide' });
