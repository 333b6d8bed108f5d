/**
 * `orchestrator:provider[:<model>]` in the Evaluate page's worker: the provider's model writes each
 * task's design (src/executor/provider-designer.ts, the hub models' prompt from src/interop) through
 * a client charged to the evaluation's one budget, so the designs and the runs spend one limit and
 * the method's rows count the orchestrator's calls (src/eval/orchestrated.ts).
 */
import { isProviderOrchestrator, providerOrchestratorModel, type OrchestratorFor } from '../eval/index.ts';
import { publicBaseUrl, type RemoteSpec } from '../executor/index.ts';
import { createLlmClient, type Budget } from '../executor/llm/index.ts';
import { DEFAULT_REPAIR_TURNS, type DesignOutputChoice } from '../executor/provider-design-read.ts';
import { designWithProvider } from '../executor/provider-designer.ts';
import { orchestratorMessages } from '../interop/index.ts';

export function providerOrchestratorFor(
  remote: RemoteSpec | null,
  budget: Budget,
  repairTurns = DEFAULT_REPAIR_TURNS,
  fetchImpl?: typeof fetch,
  output: DesignOutputChoice = 'xml',
): OrchestratorFor {
  if (!remote) return () => null;
  const client = createLlmClient({
    baseUrl: remote.baseUrl,
    apiKey: remote.apiKey,
    budget,
    ...(remote.prices ? { prices: remote.prices } : {}),
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
  const where = `${remote.provider} ${publicBaseUrl(remote.baseUrl)}`;
  return (m) =>
    isProviderOrchestrator(m)
      ? (task, seed, signal) =>
          designWithProvider({
            client,
            model: providerOrchestratorModel(m) ?? remote.model,
            provider: where,
            query: task.query,
            dom: 'auto',
            messages: orchestratorMessages,
            repairTurns,
            output,
            presetId: remote.provider,
            seed,
            budget,
            ...(signal ? { signal } : {}),
          })
      : null;
}
