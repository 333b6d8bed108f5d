/**
 * The Orchestrate page's provider orchestrator: the Settings endpoint's model writes the design
 * (src/executor/provider-designer.ts, asked with the hub models' prompt from src/interop), through a
 * client charged to a budget made from the Settings limits. The same budget object is handed back
 * so the run that follows spends only what the design left.
 */
import type { ProviderAttempt } from '../../core/trace.ts';
import type { RemoteSpec } from '../../executor/backend-spec.ts';
import { Budget, createLlmClient } from '../../executor/llm/index.ts';
import { publicBaseUrl } from '../../executor/remote.ts';
import { designWithProvider, type ProviderDesignResult } from '../../executor/provider-designer.ts';
import type { RunBudget } from '../../executor/run.ts';
import { orchestratorMessages } from '../../interop/index.ts';

export interface ProviderDesignRequest {
  query: string;
  dom: 'low' | 'high' | 'auto';
  temperature: number;
  seed: number;
  repairTurns: number;
}

export async function designOnProvider(
  spec: RemoteSpec,
  limits: RunBudget,
  req: ProviderDesignRequest,
  o: {
    signal?: AbortSignal;
    onDelta?: (text: string, attempt: number) => void;
    onAttempt?: (a: ProviderAttempt, index: number) => void;
  } = {},
): Promise<{ result: ProviderDesignResult; budget: Budget }> {
  const budget = new Budget({
    ...(limits.totalTokens !== undefined ? { maxTokens: limits.totalTokens } : {}),
    ...(limits.totalUsd !== undefined ? { maxUsd: limits.totalUsd } : {}),
  });
  const client = createLlmClient({
    baseUrl: spec.baseUrl,
    apiKey: spec.apiKey,
    budget,
    ...(spec.prices ? { prices: spec.prices } : {}),
  });
  const result = await designWithProvider({
    client,
    model: spec.model,
    provider: `${spec.provider} ${publicBaseUrl(spec.baseUrl)}`,
    query: req.query,
    dom: req.dom,
    messages: orchestratorMessages,
    repairTurns: req.repairTurns,
    temperature: req.temperature,
    seed: req.seed,
    budget,
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.onDelta ? { onDelta: o.onDelta } : {}),
    ...(o.onAttempt ? { onAttempt: o.onAttempt } : {}),
  });
  return { result, budget };
}

/** The run limits left after the design: the totals less what the design spent. */
export function budgetLeft(limits: RunBudget, budget: Budget): RunBudget {
  const spent = budget.spent;
  return {
    ...limits,
    ...(limits.totalTokens !== undefined
      ? { totalTokens: Math.max(0, limits.totalTokens - spent.tokens) }
      : {}),
    ...(limits.totalUsd !== undefined ? { totalUsd: Math.max(0, limits.totalUsd - spent.usd) } : {}),
  };
}
