/** The agent archive: one runner per agent type. */
import type { AgentType } from '../../core/agents.ts';
import type { AgentRunner } from '../types.ts';
import { ceoAgent } from './ceo.ts';
import { debateAgent } from './debate.ts';
import { reflexionAgent } from './reflexion.ts';
import { scAgent } from './sc.ts';
import { cotAgent, extractAgent, summarizerAgent, webSearchAgent } from './simple.ts';

export const AGENT_RUNNERS: Readonly<Record<AgentType, AgentRunner>> = {
  CoTAgent: cotAgent,
  SCAgent: scAgent,
  ReflexionAgent: reflexionAgent,
  DebateAgent: debateAgent,
  CEOAgent: ceoAgent,
  SummarizerAgent: summarizerAgent,
  WebSearchAgent: webSearchAgent,
  ExtractAgent: extractAgent,
};

export { AGENT_DEFAULTS } from './defaults.ts';
export { CeoDecisionSchema, parseCeoDecision, parseExperts, type CeoDecision } from './ceo.ts';
export { readVerdict } from './reflexion.ts';
export { answerKey, majorityVote, type VoteResult } from './vote.ts';
export * as prompts from './prompts.ts';
