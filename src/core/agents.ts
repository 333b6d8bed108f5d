import { z } from 'zod';

/**
 * Agent types of the archive. The first five are MAS-Orchestra's archive; `ExtractAgent` appears
 * in MAS-Orchestra demo snapshots; `CEOAgent` is the MAS-TTS CEO-led discussion; `SummarizerAgent`
 * is the final summariser a MasHost construction hands its intermediate answers to on EXIT.
 */
export const AGENT_TYPES = [
  'CoTAgent',
  'SCAgent',
  'DebateAgent',
  'ReflexionAgent',
  'WebSearchAgent',
  'ExtractAgent',
  'CEOAgent',
  'SummarizerAgent',
] as const;

export const AgentTypeSchema = z.enum(AGENT_TYPES);
export type AgentType = z.infer<typeof AgentTypeSchema>;

export function isAgentType(name: string): name is AgentType {
  return (AGENT_TYPES as readonly string[]).includes(name);
}

/** Case-insensitive lookup, as MAS-Orchestra's generated code compares `agent_name.lower()`. */
export function normaliseAgentType(name: string): AgentType | null {
  const lower = name.trim().toLowerCase();
  return AGENT_TYPES.find((t) => t.toLowerCase() === lower) ?? null;
}

/** Human label and one-line summary per type, shown in legends and the inspector. */
export const AGENT_TYPE_INFO: Record<AgentType, { label: string; summary: string }> = {
  CoTAgent: { label: 'Chain of thought', summary: 'One call that reasons step by step.' },
  SCAgent: { label: 'Self-consistency', summary: 'Several samples, majority vote on the normalised answer.' },
  DebateAgent: { label: 'Debate', summary: 'Roles argue over rounds, then a final decision.' },
  ReflexionAgent: { label: 'Reflexion', summary: 'An answer, then critic rounds until the critic accepts.' },
  WebSearchAgent: { label: 'Web search', summary: 'Searches the web and answers from the results.' },
  ExtractAgent: { label: 'Extract', summary: 'Extracts the final answer from earlier outputs.' },
  CEOAgent: { label: 'CEO discussion', summary: 'MAS-TTS: a CEO steers recruited experts turn by turn.' },
  SummarizerAgent: { label: 'Summariser', summary: 'Combines intermediate answers into the final one.' },
};
