/**
 * The types a construction is driven with, one definition each: what a caller overrides in a step
 * (`StepChoice`), the settings the steps of an episode share (`StepSettings`), what a step returns
 * (`StepOutcome`), what the next step looks like before it is taken (`StepPreview`), what a
 * compiled policy offers an episode (`StepPolicy`), and the intermediate result of a partial MAS
 * (`StepResult`, from an injected `IntermediateRunner`). The Build page, `baton construct` and the
 * trainer all use these.
 */
import type { ConstructionStep, Design, Task } from '../core/trace.ts';
import type { ConstructionState } from './construction.ts';
import type { TaskEncoding } from './encoder.ts';
import type { Evaluation } from './network.ts';

export interface SampleOptions {
  /** Argmax action and links with p ≥ 0.5 (no randomness). */
  greedy?: boolean;
  /** τ > 0: node π^(1/τ), edges σ(ℓ/τ). Default 1. */
  temperature?: number;
}

/** The settings of one step of an episode: step t draws from `stepRng(seed, t)`. */
export interface StepSettings {
  seed: number;
  temperature: number;
  greedy?: boolean;
}

/** A user's override for one step: the action (node-head column) and/or the links of an ADD. */
export interface StepChoice {
  action?: number;
  links?: readonly string[];
}

export interface StepOutcome {
  state: ConstructionState;
  step: ConstructionStep;
  evaluation: Evaluation;
}

export interface TimedOutcome extends StepOutcome {
  /** Wall time of the policy step (forward passes, sampling, apply), ms. */
  ms: number;
}

/** What the next step looks like before it is taken (the Build page draws it). */
export interface StepPreview {
  /** The distribution the node choice is drawn from (π^(1/τ) renormalised), head order; masked = 0. */
  distribution: number[];
  /** 1 = allowed, 0 = masked, head order. */
  mask: number[];
  /**
   * The role whose candidate edges are shown (the asked-for role when it is allowed, else the most
   * probable role); null when no ADD is allowed.
   */
  role: number | null;
  /** σ(ℓ/τ) for a link from each existing agent to an agent of `role` (state order). */
  edges: { from: string; p: number }[];
  /** The links a sampled step would draw for `role` (the step's seeded uniforms u_i < p_i). */
  sampledLinks: string[];
  /** The links a greedy step would take (p ≥ 0.5). */
  greedyLinks: string[];
}

/** A compiled policy as an episode uses it: the next step's distributions, and a step. */
export interface StepPolicy {
  preview(
    task: TaskEncoding,
    state: ConstructionState,
    o: StepSettings & { role: number | null },
  ): Promise<StepPreview>;
  step(
    task: TaskEncoding,
    state: ConstructionState,
    o: StepSettings,
    choice: StepChoice,
  ): Promise<StepOutcome>;
}

/** How a partial MAS ran for its intermediate answer: status, fresh spend, problem (`ConstructionStep.intermediateRun`). */
export type IntermediateRun = NonNullable<ConstructionStep['intermediateRun']>;

/** The intermediate result of the MAS after a step. */
export interface StepResult {
  /** The partial MAS's final answer; null when it gave none. */
  answer: string | null;
  /** Graded against the task's ground truth; null when ungraded or the run failed. */
  correct: boolean | null;
  /** How the run went, when the runner reports it. */
  run?: IntermediateRun;
}

/** Runs a (partial) design on the task; injected so this layer stays pure (src/executor provides one). */
export type IntermediateRunner = (design: Design, task: Task) => Promise<StepResult>;
