import type { ConstructionStep } from '../core/trace.ts';

/**
 * How a construction step's action was chosen, as the step panel says it. A trace records who chose
 * (`chooser`: the policy or the user), not whether the policy sampled or took its most probable
 * action, so the panel says what the step itself shows: the policy's choice was its most probable
 * one (the role with the highest π_node, and exactly the links with π_edge ≥ 0.5, as a greedy step
 * takes) or a less probable one, which only sampling picks. A greedy construction therefore reads
 * "most probable" at every step, and a sampled one says where it departed from it.
 */
export type StepChoice = 'user' | 'most-probable' | 'sampled';

/** The action the step took, as it is named in the role distribution. */
export function chosenAction(step: ConstructionStep): string {
  const a = step.action;
  return a.kind === 'add' ? a.role : a.kind === 'delete' ? 'DELETE' : 'EXIT';
}

export function stepChoice(step: ConstructionStep): StepChoice {
  if (step.chooser === 'user') return 'user';
  const chosen = chosenAction(step).toLowerCase();
  const p = step.roleDistribution.find((r) => r.action.toLowerCase() === chosen)?.p;
  const best = Math.max(...step.roleDistribution.map((r) => r.p));
  if (p === undefined || p < best) return 'sampled';
  if (step.action.kind !== 'add') return 'most-probable';
  const links = new Set(step.action.links);
  const greedyLinks = step.edgeProbabilities.every((e) => links.has(e.from) === e.p >= 0.5);
  return greedyLinks ? 'most-probable' : 'sampled';
}

export const STEP_CHOICE_LABEL: Record<StepChoice, string> = {
  user: 'chosen by user',
  'most-probable': "policy's most probable action",
  sampled: 'sampled by policy (not its most probable)',
};

export const STEP_CHOICE_TITLE: Record<StepChoice, string> = {
  user: 'The user picked this action.',
  'most-probable':
    'The policy took the action it ranks highest (and the links with π_edge ≥ 0.5): what a greedy step takes.',
  sampled: 'The policy drew a less probable action or link set from its distribution.',
};
