/**
 * The Build page's reward read-out: each step's action-wise reward r_t split into the case of the
 * table in src/policy/rewards.ts and its numbers, why it is n/a when it is, and the terms the
 * trainer would combine for the construction so far (src/train/advantages.ts):
 *   R   = correct − λ·min(1, tokens / costScale)       (the group reward, Train's defaults)
 *   G_t = Σ_{k ≥ t} γ^{k−t} r_k                        (the action-wise term of HRPO's A_t)
 * The numbers are computed with the same functions the trainer uses. Pure.
 */
import { actionReward, stepAdvantages, type ActionRewardConfig } from '../../policy/index.ts';
import { rewardOf, TrainConfigSchema } from '../../train/index.ts';
import type { BuildSession } from '../construction.ts';

/** The trainer's defaults: λ, costScale (tokens) and γ as a new Train run starts with them. */
export const TRAIN_DEFAULTS = TrainConfigSchema.parse({});

const f2 = (x: number): string => x.toFixed(2);
const signed = (x: number): string => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(3)}`;
const word = (c: boolean): string => (c ? 'right' : 'wrong');

export interface StepReward {
  /** r_t, or null (n/a). */
  value: number | null;
  /** Why r_t is n/a, in words (null when it has a value). */
  why: string | null;
  /** The change of correctness around the step, e.g. "wrong → right" (null when unknown). */
  change: string | null;
  /** The case's formula with the step's numbers, e.g. "+bonus·bonusDecay^t = 0.50 · 0.70^2 = +0.245". */
  formula: string | null;
  /** G_t = Σ_{k ≥ t} γ^{k−t} r_k over the steps taken so far (unknown r count as 0). */
  returnFromHere: number | null;
}

/** The numbers of r_t for the change prev → curr at step t (the cases of `actionReward`). */
export function rewardFormula(prev: boolean, curr: boolean, t: number, c: ActionRewardConfig): string {
  const r = actionReward(prev, curr, t, c) as number;
  if (!prev && curr) return `+gain = ${signed(r)}`;
  if (prev && !curr) return `−loss = ${signed(r)}`;
  if (prev && curr) return `+bonus · bonusDecay^t = ${f2(c.bonus)} · ${f2(c.bonusDecay)}^${t} = ${signed(r)}`;
  if (t < c.exemption) return `0: t = ${t} < T = ${c.exemption}, wrong → wrong is exempt`;
  return `−min(penaltyMax, penaltyRate · (t − T + 1)) = −min(${f2(c.penaltyMax)}, ${f2(c.penaltyRate)} · ${
    t - c.exemption + 1
  }) = ${signed(r)}`;
}

/** Why a step's r_t is n/a: not executed, not run yet, no ground truth, no answer, or no previous grade. */
function whyNa(session: BuildSession, index: number): string {
  const frame = session.frames[index];
  const prev = session.frames[index - 1];
  const step = frame?.step;
  if (!frame || !step) return 'no step';
  if (frame.pending) return 'not run yet: the partial MAS is running';
  if (step.intermediateRun === undefined && step.intermediateCorrect === undefined)
    return 'not run: this construction does not execute its partial designs (r_t needs their answers)';
  if (session.task.groundTruth === null)
    return 'no ground truth: the answers are shown but not graded, so no step earns a reward';
  const run = step.intermediateRun;
  if (run && run.status !== 'completed')
    return `no answer to grade: the partial MAS run was ${run.status}${run.problem ? ` (${run.problem})` : ''}`;
  if (frame.correct === null) return 'no answer to grade: the partial MAS has no agent, or gave no answer';
  if (prev?.correct === null)
    return 'the step before it was not graded, so the change of correctness is unknown';
  return 'not graded';
}

/** r_t of every step taken so far (frames 1..cursor), with its case, numbers or why it is n/a. */
export function stepRewards(session: BuildSession): StepReward[] {
  const indices = session.frames.slice(1).map((_, k) => k + 1);
  const taken = indices.filter((i) => i <= session.cursor);
  const rs = taken.map((i) => session.frames[i]?.step?.actionReward ?? null);
  const returns = stepAdvantages(0, rs, TRAIN_DEFAULTS.gamma);
  return indices.map((i) => {
    const frame = session.frames[i];
    const prev = session.frames[i - 1];
    const step = frame?.step;
    const value = step?.actionReward ?? null;
    const known = prev && frame && prev.correct !== null && frame.correct !== null && !frame.pending;
    const change = known ? `${word(prev.correct as boolean)} → ${word(frame.correct as boolean)}` : null;
    return {
      value,
      why: value === null ? whyNa(session, i) : null,
      change,
      formula:
        value !== null && known && step
          ? rewardFormula(prev.correct as boolean, frame.correct as boolean, step.index, session.rewards)
          : null,
      returnFromHere: i <= session.cursor && value !== null ? (returns[i - 1] ?? null) : null,
    };
  });
}

export interface EpisodeReward {
  /** R, or null with `why`. */
  value: number | null;
  why: string | null;
  correct: boolean | null;
  tokens: number;
  /** λ · min(1, tokens / costScale). */
  costTerm: number;
  lambda: number;
  costScale: number;
  formula: string | null;
}

/**
 * R of the design as it stands (the current frame's graded answer and what producing it cost), as
 * the trainer scores a finished construction with its default λ and costScale.
 */
export function episodeReward(session: BuildSession): EpisodeReward {
  const { lambda, costScale } = TRAIN_DEFAULTS;
  const frame = session.frames[session.cursor];
  const run = frame?.step?.intermediateRun;
  const tokens = run ? run.promptTokens + run.completionTokens : 0;
  const costTerm = lambda * Math.min(1, tokens / costScale);
  const base = { tokens, costTerm, lambda, costScale };
  const na = (why: string): EpisodeReward => ({ ...base, value: null, why, correct: null, formula: null });
  if (!frame?.step) return na('no step yet');
  if (frame.pending) return na('not run yet: the partial MAS is running');
  if (!run) return na('not run: partial designs are not executed, so there is no answer and no cost');
  if (session.task.groundTruth === null) return na('no ground truth: the answer cannot be graded');
  if (frame.correct === null) return na(`no answer to grade (the run was ${run.status})`);
  const value = rewardOf(TRAIN_DEFAULTS, { correct: frame.correct, tokens, intermediate: [] });
  return {
    ...base,
    value,
    why: null,
    correct: frame.correct,
    formula: `R = correct − λ·min(1, tokens/costScale) = ${frame.correct ? 1 : 0} − ${f2(lambda)}·min(1, ${tokens}/${costScale}) = ${value.toFixed(3)}`,
  };
}
