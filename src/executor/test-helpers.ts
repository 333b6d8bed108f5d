/** Shared by the executor's tests: a design from a few lines, a remote backend on the local server. */
import type { AgentType } from '../core/agents.ts';
import { minimalTrace } from '../core/trace-builders.ts';
import type { Agent, AgentParams, Design, Trace, TraceEvent } from '../core/trace.ts';
import { createLlmClient, type LlmClientConfig } from './llm/index.ts';
import { remoteBackend } from './remote.ts';
import type { ChatBackend } from './types.ts';

export interface AgentSpec {
  id: string;
  type?: AgentType;
  input?: string;
  params?: AgentParams;
}

/** A high-DoM design; edges follow the `${ID}` references in the inputs. */
export function designOf(specs: readonly AgentSpec[]): Design {
  const agents: Agent[] = specs.map((s) => ({
    id: s.id,
    type: s.type ?? 'CoTAgent',
    description: `agent ${s.id}`,
    input: s.input ?? '',
    params: s.params ?? {},
  }));
  const edges = agents.flatMap((a) =>
    [...a.input.matchAll(/\$\{([A-Za-z0-9_.:-]+)\}/g)].map((m) => ({ from: m[1] as string, to: a.id })),
  );
  return { dom: agents.length > 1 ? 'high' : 'low', agents, edges };
}

export function traceFor(query: string, groundTruth: string | null = null): Trace {
  return minimalTrace({ query, groundTruth });
}

/** A remote backend on `baseUrl` that retries without waiting (tests do not sleep on backoff). */
export function testBackend(baseUrl: string, config: Partial<LlmClientConfig> = {}): ChatBackend {
  const client = createLlmClient({ baseUrl, sleep: async () => undefined, ...config });
  return remoteBackend(client, 'test-model', {}, { provider: 'test', baseUrl });
}

export type EventOf<T extends TraceEvent['type']> = Extract<TraceEvent, { type: T }>;

export function eventsOf<T extends TraceEvent['type']>(trace: Trace, type: T): EventOf<T>[] {
  return trace.execution.events.filter((e): e is EventOf<T> => e.type === type);
}

/** Start and end (ms) of each agent from its events. */
export function spanOf(trace: Trace, agentId: string): { start: number; end: number } {
  const start = eventsOf(trace, 'agent.start').find((e) => e.agentId === agentId)?.t;
  const end = trace.execution.events.find(
    (e) => (e.type === 'agent.end' || e.type === 'agent.error') && e.agentId === agentId,
  )?.t;
  if (start === undefined || end === undefined) throw new Error(`agent ${agentId} has no complete span`);
  return { start, end };
}
