/**
 * The Orchestrate page with the Settings provider as the orchestrator: the endpoint's model writes
 * the design (services/provider-orchestrator.ts), each attempt streaming into the page as the
 * in-tab model's output does (the thinking, the design text, the graph growing), an invalid design
 * sent back with its numbered problems for at most the Settings' repair turns. Interrupt aborts the
 * call and keeps what was written. The attempts, with their problems, tokens and cost, are kept on
 * the generation and in the designer record the trace gets.
 */
import {
  DEFAULT_REPAIR_TURNS,
  MAX_REPAIR_TURNS,
  resolveDesignOutput,
  type DesignOutput,
} from '../../executor/provider-design-read.ts';
import type { RunBudget } from '../../executor/run.ts';
import type { BatonState } from '../store.ts';
import type { OrchGeneration } from './orchestrate.ts';
import { providerBlockers } from './settings.ts';

export { DEFAULT_REPAIR_TURNS, MAX_REPAIR_TURNS };
/** Completion tokens each design call may take (what the budget reserves for it). */
export const DESIGN_MAX_TOKENS = 2048;

let abort: AbortController | null = null;

/** The design call in flight's controller (set by the design loop while it runs). */
export function setProviderAbort(a: AbortController | null): void {
  abort = a;
}

/** Interrupts the provider's design call in flight; true when there was one. */
export function interruptProviderDesign(): boolean {
  if (!abort) return false;
  abort.abort();
  return true;
}

/** What the Settings provider will be asked to write: XML, or the design's JSON schema. */
export const designOutputOf = (s: Pick<BatonState, 'designOutput' | 'provider'>): DesignOutput =>
  resolveDesignOutput(s.designOutput, s.provider);

/** What keeps the provider from writing the design, in words. */
export const providerOrchestratorBlockers = (s: BatonState): string[] => providerBlockers(s);

/** The run's limits less what a provider spent writing the design: one budget for both. */
export function budgetAfterDesign(limits: RunBudget, g: OrchGeneration): RunBudget {
  const d = g.result?.designer;
  const u = d && d.kind === 'orchestrator' ? d.usage : undefined;
  if (!u) return limits;
  return {
    ...limits,
    ...(limits.totalTokens !== undefined
      ? { totalTokens: Math.max(0, limits.totalTokens - u.promptTokens - u.completionTokens) }
      : {}),
    ...(limits.totalUsd !== undefined ? { totalUsd: Math.max(0, limits.totalUsd - (u.costUsd ?? 0)) } : {}),
  };
}
