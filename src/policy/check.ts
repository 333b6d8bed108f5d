/**
 * A standalone checker for construction traces: recomputes every step's joint log-probability from
 * what the trace records (the node distribution and the edge probabilities), independently of the
 * network that produced it, and checks the distributions and the final design.
 */
import type { ConstructionStep, Trace } from '../core/trace.ts';
import { fromDesign, validateDesign } from '../design/validate.ts';

/** The node-head entry an action was recorded under. */
export function actionLabel(step: ConstructionStep): string {
  const a = step.action;
  return a.kind === 'add' ? a.role : a.kind === 'delete' ? 'DELETE' : 'EXIT';
}

/**
 * log π_node(choice) + Σ_i log Bernoulli(y_i | p_i), with y_i = 1 when agent i is among the ADD's
 * links. Null when the chosen action has probability 0 (impossible under the recorded policy).
 */
export function recomputeLogProb(step: ConstructionStep): number | null {
  const label = actionLabel(step);
  const entry = step.roleDistribution.find((d) => d.action === label);
  if (!entry || entry.p <= 0) return null;
  let lp = Math.log(entry.p);
  const links = step.action.kind === 'add' ? new Set(step.action.links) : new Set<string>();
  for (const e of step.edgeProbabilities) lp += Math.log(links.has(e.from) ? e.p : 1 - e.p);
  return lp;
}

export interface CheckOptions {
  /** |Σ p − 1| allowed for a node distribution. */
  sumTolerance?: number;
  /** |recorded − recomputed| allowed for a log-probability (nats). */
  logProbTolerance?: number;
}

/** Every problem found, as readable sentences; empty when the trace is consistent. */
export function checkConstruction(trace: Trace, o: CheckOptions = {}): string[] {
  const sumTol = o.sumTolerance ?? 1e-5;
  const lpTol = o.logProbTolerance ?? 1e-6;
  const problems: string[] = [];
  trace.construction.forEach((step, k) => {
    const where = `step ${step.index}`;
    if (step.index !== k) problems.push(`${where}: index ${step.index} at position ${k}`);
    const sum = step.roleDistribution.reduce((a, d) => a + d.p, 0);
    if (Math.abs(sum - 1) > sumTol) problems.push(`${where}: node distribution sums to ${sum}`);
    if (step.action.kind === 'add') {
      const offered = new Set(step.edgeProbabilities.map((e) => e.from));
      for (const l of step.action.links)
        if (!offered.has(l)) problems.push(`${where}: link ${l} has no edge probability`);
    } else if (step.edgeProbabilities.length > 0) {
      problems.push(`${where}: ${step.action.kind.toUpperCase()} records edge probabilities`);
    }
    const re = recomputeLogProb(step);
    if (step.logProb === null) {
      if (re !== null) problems.push(`${where}: logProb missing, recomputed ${re}`);
    } else if (re === null || Math.abs(re - step.logProb) > lpTol) {
      problems.push(`${where}: logProb ${step.logProb} but the trace gives ${re}`);
    }
  });
  if (trace.construction.length > 0 && trace.design.agents.length > 0) {
    for (const v of validateDesign(fromDesign(trace.design)))
      problems.push(`design rule ${v.rule}: ${v.message}`);
  }
  return problems;
}
