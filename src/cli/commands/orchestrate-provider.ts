/**
 * `baton orchestrate --orchestrator provider`: the endpoint's model writes the design
 * (src/cli/provider-orchestrator.ts: the hub prompt, the repair loop), streamed to the terminal;
 * the design then runs as `baton orchestrate` runs any design, and one budget holds both: the
 * orchestrator's calls and the run's.
 */
import { minimalTrace, traceIdFrom } from '../../core/trace-builders.ts';
import type { Task, Trace } from '../../core/trace.ts';
import { backendFromSpec } from '../../executor/backend-spec.ts';
import { Budget, DEFAULT_PRICES } from '../../executor/llm/index.ts';
import { SCHEMA_OUTPUT_NOTE } from '../../design/json-schema.ts';
import {
  designBudgetPreview,
  resolveDesignOutput,
  type DesignOutputChoice,
} from '../../executor/provider-design-read.ts';
import { DEFAULT_DESIGN_MAX_TOKENS } from '../../executor/provider-designer.ts';
import { orchestratorMessages } from '../../interop/index.ts';
import { runDesign, type RunBudget } from '../../executor/run.ts';
import type { MasBenchTask } from '../../masbench/index.ts';
import type { CliIO } from '../command.ts';
import { plural, shortAnswer, usd } from '../construct-report.ts';
import { openProvider, type ProviderArgs } from '../provider-args.ts';
import { presetOfBaseUrl, providerOrchestrator } from '../provider-orchestrator.ts';

export interface ProviderOrchestrateInput {
  task: Task;
  masbench: MasBenchTask | null;
  execute: 'simulated' | 'remote' | 'none';
  dom: 'low' | 'high' | 'auto';
  /** The endpoint's model that writes the design (`--model`). */
  model: string;
  provider: ProviderArgs;
  repairTurns: number;
  designOutput: DesignOutputChoice;
  temperature: number;
  seed: number;
  now: () => Date;
  /** Checks and writes the trace, keys removed; false when it could not. */
  write: (trace: Trace, secrets: readonly string[], cli: CliIO) => Promise<boolean>;
  /** The output with the key removed. */
  redacting: (secrets: readonly string[]) => CliIO;
}

export async function orchestrateWithProvider(i: ProviderOrchestrateInput): Promise<number> {
  const endpoint = i.provider.endpoint;
  if (!endpoint) throw new Error('--orchestrator provider needs an endpoint');
  const provider = openProvider(endpoint);
  const cli = i.redacting(provider.secrets);
  if (provider.note) cli.out(provider.note);
  const limits: RunBudget = i.provider.budget;
  const budget = new Budget({
    ...(limits.totalTokens !== undefined ? { maxTokens: limits.totalTokens } : {}),
    ...(limits.totalUsd !== undefined ? { maxUsd: limits.totalUsd } : {}),
  });
  const orchestrator = providerOrchestrator({
    baseUrl: endpoint.baseUrl,
    apiKey: provider.key,
    model: i.model,
    budget,
    repairTurns: i.repairTurns,
    temperature: i.temperature,
    output: i.designOutput,
  });
  const controller = new AbortController();
  const onSigint = (): void => controller.abort();
  process.once('SIGINT', onSigint);
  try {
    cli.out(
      `orchestrator: ${i.model} at ${endpoint.baseUrl} · up to ${plural(i.repairTurns, 'repair turn')} · output ${i.designOutput}`,
    );
    // Before the first call: the most the design may spend, and the limits it shares with the run.
    const schema = resolveDesignOutput(i.designOutput, presetOfBaseUrl(endpoint.baseUrl)) === 'json-schema';
    const most = designBudgetPreview({
      messages: [
        ...orchestratorMessages(i.task.query, i.dom === 'low' ? 'low' : 'high'),
        ...(schema ? [{ role: 'system' as const, content: SCHEMA_OUTPUT_NOTE }] : []),
      ],
      maxTokens: DEFAULT_DESIGN_MAX_TOKENS,
      repairTurns: i.repairTurns,
      model: i.model,
      prices: DEFAULT_PRICES,
    });
    cli.out(
      `design budget: at most ${plural(most.calls, 'call')}, up to ${most.tokens} tokens${most.usd !== undefined ? ` (${usd(most.usd)})` : ' (no price known)'}; limits shared with the run: ${limits.totalTokens !== undefined ? `${limits.totalTokens} tokens` : 'no token limit'}, ${limits.totalUsd !== undefined ? usd(limits.totalUsd) : 'no dollar limit'}`,
    );
    const r = await orchestrator.design(i.task, {
      dom: i.dom,
      seed: i.seed,
      signal: controller.signal,
    });
    const d = r.designer;
    cli.out(
      `design output: ${d.output === 'json-schema' ? "the design's JSON schema (response_format)" : 'MAS-Orchestra XML'}${d.outputFallback ? ` (${d.outputFallback})` : ''}`,
    );
    (d.attempts ?? []).forEach((a, n) => {
      const state = a.error ?? (a.valid ? 'valid' : `${plural(a.problems.length, 'problem')}`);
      cli.out(
        `attempt ${n + 1}: ${a.promptTokens + a.completionTokens} tokens, ${usd(a.costUsd ?? 0)}, ${Math.round(a.latencyMs)} ms · ${state}`,
      );
      if (!a.valid) for (const p of a.problems.slice(0, 5)) cli.out(`  ${p}`);
    });
    const createdAt = i.now().toISOString();
    const base = minimalTrace({
      query: i.task.query,
      groundTruth: i.task.groundTruth,
      createdAt,
      id: traceIdFrom(i.task.query, d.rawOutput ?? '', createdAt),
      source: i.task.source,
      designer: d,
    });
    let trace: Trace = {
      ...base,
      task: i.task,
      design: r.design ?? { dom: i.dom === 'low' ? 'low' : 'high', agents: [], edges: [] },
      tags: r.design ? [] : ['invalid-design'],
    };
    if (!r.design) {
      cli.err(`baton orchestrate: no design: ${r.failure ?? 'no valid design'}`);
      await i.write(trace, provider.secrets, cli);
      return 1;
    }
    const u = d.usage;
    cli.out(
      `design: ${plural(r.design.agents.length, 'agent')}, ${plural(r.design.edges.length, 'edge')} (valid, attempt ${(d.usedAttempt ?? 0) + 1}; orchestrator ${u ? u.promptTokens + u.completionTokens : 0} tokens, ${usd(u?.costUsd ?? 0)})`,
    );
    if (i.execute === 'simulated' && i.masbench) {
      trace = await runDesign({
        trace,
        backend: backendFromSpec({ kind: 'simulated', task: i.masbench, seed: i.seed }),
        startedAt: i.now().toISOString(),
      });
    } else if (i.execute === 'remote') {
      // What the design left of the budget is what the run may spend.
      const left = budget.remaining();
      trace = await runDesign({
        trace,
        backend: provider.backend,
        concurrency: i.provider.concurrency,
        budget: {
          ...limits,
          ...(Number.isFinite(left.tokens) ? { totalTokens: Math.max(0, left.tokens) } : {}),
          ...(Number.isFinite(left.usd) ? { totalUsd: Math.max(0, left.usd) } : {}),
        },
        signal: controller.signal,
        startedAt: i.now().toISOString(),
        secrets: provider.secrets,
      });
    }
    if (i.execute !== 'none') {
      const verdict = trace.result.correct === null ? 'ungraded' : trace.result.correct ? 'correct' : 'wrong';
      const status = trace.execution.status === 'completed' ? verdict : trace.execution.status;
      cli.out(`final answer: ${shortAnswer(trace.result.finalAnswer)} (${status}; ${i.execute})`);
      const t = trace.totals;
      cli.out(
        `run: ${plural(t.llmCalls, 'call')}, ${t.promptTokens + t.completionTokens} tokens, ${usd(t.costUsd)}${i.execute === 'simulated' ? ' (simulated)' : ''}`,
      );
    }
    if (!(await i.write(trace, provider.secrets, cli))) return 1;
    return i.execute !== 'none' && trace.execution.status !== 'completed' ? 1 : 0;
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}
