import type { AgentType } from '../../core/agents.ts';
import type { AgentStatus } from '../../view/replay.ts';

/** One colour per agent type (legend, node header, timeline bar). Chosen to stay distinct side by side. */
export const TYPE_COLORS: Record<AgentType, string> = {
  CoTAgent: '#3b6fe0',
  SCAgent: '#0f9d8a',
  DebateAgent: '#e0702b',
  ReflexionAgent: '#8b4fd6',
  WebSearchAgent: '#1a9bc9',
  ExtractAgent: '#667085',
  CEOAgent: '#d1365c',
  SummarizerAgent: '#3f9b3a',
};

export const STATUS_COLORS: Record<AgentStatus, string> = {
  pending: '#98a2b3',
  running: '#f0a30a',
  done: '#2f9e44',
  failed: '#d92d20',
};

export const STATUS_LABEL: Record<AgentStatus, string> = {
  pending: 'pending',
  running: 'running',
  done: 'done',
  failed: 'failed',
};

export function typeColor(type: string): string {
  return (TYPE_COLORS as Record<string, string>)[type] ?? '#667085';
}
