/**
 * The simulator's error and cost model, as constants and pure functions. docs/simulator.md
 * explains each one; change them together.
 */
import type { CallKind } from '../types.ts';

/**
 * Recorded as the model of every simulated call. v2: agents follow their role's instruction
 * (roles.ts): planners, decomposers and critics answer nothing, roles refuse as their instruction
 * says, a summariser with no answer to combine gives none.
 */
export const SIM_MODEL = 'simulator-v2';

export const ERROR_MODEL = {
  /** ε₀: chance of a slip on a one-input step solved alone. */
  baseSlip: 0.02,
  /** ε_b: extra slip chance per input beyond the first (breadth: more values to combine). */
  perExtraInput: 0.015,
  /** λ: each further step solved in the same call scales every step's slip by (1 + λ·(W − 1)). */
  loadFactor: 0.1,
  /** Slip chances are capped here so no step is hopeless. */
  maxSlip: 0.9,
  /** ν: chance of taking a misleading note's value when solving the noted step. */
  noteFollow: 0.3,
  /** Debate rounds after the first (the role sees the others' answers): slip and note factors. */
  debateSlip: 0.6,
  debateNote: 0.6,
  /** A revision after a critic's rejection re-checks given and noted values: slip and note factors. */
  reviseSlip: 0.5,
  reviseNote: 0.3,
  /** κ: chance that a critic rejects a wrong answer. */
  criticCatch: 0.6,
  /** Chance that a critic rejects a right answer. */
  criticFalseReject: 0.05,
} as const;

/** Factors on the slip and note chances for a kind of call. */
export function factorsFor(kind: CallKind): { slip: number; note: number; recheckGiven: boolean } {
  if (kind === 'debate')
    return { slip: ERROR_MODEL.debateSlip, note: ERROR_MODEL.debateNote, recheckGiven: false };
  if (kind === 'revise')
    return { slip: ERROR_MODEL.reviseSlip, note: ERROR_MODEL.reviseNote, recheckGiven: true };
  return { slip: 1, note: 1, recheckGiven: false };
}

/**
 * Slip chance of one step: p = min(maxSlip, (ε₀ + ε_b·max(0, inputs − 1)) · (1 + λ·(W − 1)) · f),
 * where W is the number of steps this call solves and f the call kind's factor.
 */
export function slipChance(inputs: number, stepsInCall: number, factor: number): number {
  const e = ERROR_MODEL;
  const p =
    (e.baseSlip + e.perExtraInput * Math.max(0, inputs - 1)) *
    (1 + e.loadFactor * (stepsInCall - 1)) *
    factor;
  return Math.min(e.maxSlip, p);
}

export const COST_MODEL = {
  /** Completion tokens of a solving call: base + perStep·W + perAnswer·(answers given). */
  solveBase: 24,
  solvePerStep: 18,
  solvePerAnswer: 6,
  /** A review: accept, or reject with a reason. */
  criticAccept: 30,
  criticReject: 50,
  /** A judge or summariser weighing k candidate answers: base + perCandidate·k. */
  decideBase: 25,
  decidePerCandidate: 5,
  ceo: 45,
  recruitPerExpert: 12,
  /** A refusal ("REFUSE: <reason>"). */
  refuse: 15,
  /** A plan (a Decomposer's sub-questions, a Planner's work items): base + perItem·items. */
  planBase: 20,
  planPerItem: 12,
  /** An Extractor restating an answer. */
  extract: 20,
  /** Modelled latency, ms: base + perToken·completion tokens (slept only when timeScale > 0). */
  latencyBaseMs: 250,
  latencyPerTokenMs: 12,
} as const;
