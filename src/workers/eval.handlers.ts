/**
 * What the evaluation worker does, apart from the worker itself so tests in Node serve the same
 * handlers on a MessageChannel (eval.local.ts). `evaluate` runs generated MASBench tasks on the
 * simulator, or on the provider the call carries (the Settings page's); policies `prior` and
 * `random:S` run on the CPU compute backend. One budget for the whole run (`evalExecutor`): every
 * call reserves its worst case first, so jobs running at once never overspend it together.
 */
import {
  isProviderOrchestrator,
  runEvaluation,
  masbenchTasks,
  type EvalConfig,
  type EvalProgress,
  type OrchestratorFor,
} from '../eval/index.ts';
import {
  backendFromSpec,
  evalExecutor,
  publicBaseUrl,
  secretsOf,
  type RemoteSpec,
} from '../executor/index.ts';
import { chooseBackend } from '../gpu/index.ts';
import {
  DEFAULT_POOL,
  PolicyNetwork,
  incompatibility,
  priorCheckpoint,
  randomCheckpoint,
  type PolicyCheckpoint,
} from '../policy/index.ts';
import { Budget } from '../executor/llm/index.ts';
import { providerOrchestratorFor } from './eval.orchestrator.ts';
import type { evalMethods, EvalProvider } from './eval.methods.ts';
import type { Handlers } from './rpc/server.ts';

async function networks(
  config: EvalConfig,
  saved: Record<string, PolicyCheckpoint> = {},
): Promise<Map<string, PolicyNetwork>> {
  const nets = new Map<string, PolicyNetwork>();
  for (const m of config.methods) {
    if (m.kind !== 'policy' || nets.has(m.checkpoint)) continue;
    const random = /^random(?::(\d+))?$/.exec(m.checkpoint);
    const cp =
      m.checkpoint === 'prior'
        ? priorCheckpoint(DEFAULT_POOL)
        : random
          ? randomCheckpoint(DEFAULT_POOL, Number(random[1] ?? '0'))
          : (saved[m.checkpoint] ?? null);
    if (!cp)
      throw new Error(
        `policy "${m.checkpoint}": not a saved checkpoint of this browser (nor prior or random:S); use baton eval for checkpoint files`,
      );
    const why = incompatibility(
      cp,
      DEFAULT_POOL.roles.map((r) => r.name),
    );
    if (why) throw new Error(`policy "${m.checkpoint}": ${why}`);
    nets.set(m.checkpoint, await PolicyNetwork.create(cp, await chooseBackend('cpu')));
  }
  return nets;
}

/** The remote spec of a call, checked against what its config records (which the journal keys on). */
export function remoteOf(config: EvalConfig, provider: EvalProvider | undefined): RemoteSpec | null {
  const b = config.backend;
  if (b.kind === 'simulated') {
    if (provider) throw new Error('a provider was given for an evaluation on the simulator');
    return null;
  }
  if (!provider) throw new Error('an evaluation on a provider needs its connection');
  if (
    provider.provider !== b.provider ||
    publicBaseUrl(provider.baseUrl) !== b.baseUrl ||
    provider.model !== b.model
  )
    throw new Error("the provider's connection does not match the evaluation's backend");
  return {
    kind: 'remote',
    provider: provider.provider,
    baseUrl: provider.baseUrl,
    model: provider.model,
    apiKey: provider.apiKey,
    ...(provider.prices ? { prices: provider.prices } : {}),
  };
}

/** The provider's designer for a method, else the in-tab model's. */
const either =
  (a: OrchestratorFor, b: OrchestratorFor | undefined): OrchestratorFor =>
  (m) =>
    a(m) ?? b?.(m) ?? null;

export function evalHandlers(fetchImpl?: typeof fetch): Handlers<typeof evalMethods> {
  return {
    async evaluate(input, { signal, progress }) {
      const { config } = input;
      if (config.taskSet.kind !== 'masbench')
        throw new Error('the page runs generated MASBench tasks; use baton eval for task files and traces');
      const remote = remoteOf(config, input.provider);
      const nets = await networks(
        config,
        (input.checkpoints ?? {}) as unknown as Record<string, PolicyCheckpoint>,
      );
      // In-tab orchestrator models (`orchestrator:tiny`): loaded, like the Orchestrate page's, only
      // when the evaluation has one.
      const inTab =
        input.modelsBaseUrl !== undefined &&
        config.methods.some((m) => m.kind === 'orchestrator' && !isProviderOrchestrator(m))
          ? await (await import('./eval.models.ts')).inTabOrchestrators(input.modelsBaseUrl)
          : null;
      try {
        // One budget for the runs and the designs an `orchestrator:provider` method's model writes.
        const budget = new Budget({
          ...(config.budget.tokens !== undefined ? { maxTokens: config.budget.tokens } : {}),
          ...(config.budget.usd !== undefined ? { maxUsd: config.budget.usd } : {}),
        });
        const executor = evalExecutor({
          sharedBudget: budget,
          backend: remote ? backendFromSpec(remote, fetchImpl) : 'simulated',
          budget: config.budget,
          ...(input.agentConcurrency !== undefined ? { agentConcurrency: input.agentConcurrency } : {}),
          ...(remote ? { secrets: secretsOf(remote) } : { startedAt: () => input.createdAt }),
        });
        const { rows: _rows, ...doc } = await runEvaluation({
          config,
          tasks: masbenchTasks(config.taskSet),
          executor,
          policyFor: (m) => {
            const net = nets.get(m.checkpoint);
            if (!net) throw new Error(`no network for ${m.checkpoint}`);
            return { net, pool: DEFAULT_POOL };
          },
          orchestratorFor: either(
            providerOrchestratorFor(remote, budget, input.repairTurns, fetchImpl, input.designOutput),
            inTab?.orchestratorFor,
          ),
          done: input.done,
          concurrency: input.concurrency,
          createdAt: input.createdAt,
          signal,
          onRow: async (row, trace) => {
            progress({ kind: 'row', row, trace });
            // Let a cancel message in between jobs.
            await new Promise<void>((r) => setTimeout(r, 0));
          },
          onProgress: (p: EvalProgress) => progress({ kind: 'progress', ...p }),
        });
        return doc;
      } finally {
        for (const n of nets.values()) n.dispose();
        await inTab?.dispose();
      }
    },
  };
}
