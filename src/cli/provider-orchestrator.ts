/**
 * The provider as the orchestrator from the command line (`baton orchestrate --orchestrator
 * provider`, the eval method `orchestrator:provider[:<model>]`): the client, charged to a budget the
 * run shares, and the design loop (src/executor/provider-designer.ts) asked with the hub models'
 * orchestrator prompt (src/interop `orchestratorMessages`).
 */
import { DEFAULT_PRICES, createLlmClient, type Budget, type LlmClient } from '../executor/llm/index.ts';
import { publicBaseUrl } from '../executor/remote.ts';
import { DEFAULT_REPAIR_TURNS, MAX_REPAIR_TURNS } from '../executor/provider-design-read.ts';
import { designWithProvider, type ProviderDesignResult } from '../executor/provider-designer.ts';
import type { Task } from '../core/trace.ts';
import { orchestratorMessages } from '../interop/index.ts';
import { intFlag } from './provider-args.ts';

export const REPAIR_TURNS_USAGE = `  --repair-turns  calls that send an invalid design back with its numbered problems (default ${DEFAULT_REPAIR_TURNS}, 0–${MAX_REPAIR_TURNS})`;

/** `--repair-turns`, or the problem as a sentence. */
export const repairTurnsFlag = (raw: string | boolean | undefined): number | string =>
  intFlag(raw, 'repair-turns', 0, MAX_REPAIR_TURNS, DEFAULT_REPAIR_TURNS);

export interface ProviderOrchestrator {
  client: LlmClient;
  /** Writes one task's design. */
  design: (
    task: Pick<Task, 'query'>,
    o: {
      model?: string;
      dom?: 'low' | 'high' | 'auto';
      seed?: number;
      signal?: AbortSignal;
      onDelta?: (t: string, attempt: number) => void;
    },
  ) => Promise<ProviderDesignResult>;
}

export function providerOrchestrator(o: {
  baseUrl: string;
  apiKey: string;
  model: string;
  budget: Budget;
  repairTurns: number;
  temperature?: number;
}): ProviderOrchestrator {
  const client = createLlmClient({
    baseUrl: o.baseUrl,
    apiKey: o.apiKey,
    budget: o.budget,
    prices: DEFAULT_PRICES,
  });
  const where = publicBaseUrl(o.baseUrl);
  return {
    client,
    design: (task, d) =>
      designWithProvider({
        client,
        model: d.model ?? o.model,
        provider: where,
        query: task.query,
        dom: d.dom ?? 'auto',
        messages: orchestratorMessages,
        repairTurns: o.repairTurns,
        temperature: o.temperature ?? 0,
        budget: o.budget,
        ...(d.seed !== undefined ? { seed: d.seed } : {}),
        ...(d.signal ? { signal: d.signal } : {}),
        ...(d.onDelta ? { onDelta: d.onDelta } : {}),
      }),
  };
}
