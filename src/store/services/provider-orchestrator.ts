/**
 * The Orchestrate page's provider orchestrator: the Settings endpoint's model writes the design
 * (src/executor/provider-designer.ts, asked with the hub models' prompt from src/interop), through a
 * client charged to a budget made from the Settings limits; the run that follows gets what the
 * design left (`budgetAfterDesign` in the orchestrate slice).
 */
import type { ProviderAttempt } from '../../core/trace.ts';
import type { RemoteSpec } from '../../executor/backend-spec.ts';
import { Budget, createLlmClient } from '../../executor/llm/index.ts';
import { publicBaseUrl } from '../../executor/remote.ts';
import type { DesignOutputChoice } from '../../executor/provider-design-read.ts';
import { designWithProvider, type ProviderDesignResult } from '../../executor/provider-designer.ts';
import type { RunBudget } from '../../executor/run.ts';
import { orchestratorMessages } from '../../interop/index.ts';

export interface ProviderDesignRequest {
  query: string;
  dom: 'low' | 'high' | 'auto';
  temperature: number;
  seed: number;
  repairTurns: number;
  /** What the provider is asked to write (`auto`: the JSON schema for presets known to take it). */
  output?: DesignOutputChoice;
  /** Per-call timeout, ms (the client's default when absent). */
  timeoutMs?: number;
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
    ...(req.timeoutMs !== undefined ? { timeoutMs: req.timeoutMs } : {}),
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
    output: req.output ?? 'xml',
    presetId: spec.provider,
    temperature: req.temperature,
    seed: req.seed,
    budget,
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.onDelta ? { onDelta: o.onDelta } : {}),
    ...(o.onAttempt ? { onAttempt: o.onAttempt } : {}),
  });
  return { result, budget };
}
