/**
 * JPSS sampling: one construction step is encode → node distribution → choose an action (sampled,
 * greedy, or the user's) → edge probabilities for the chosen role → choose the links → apply → record
 * a full ConstructionStep. `construct` repeats it until EXIT and returns the trace.
 *
 * Recorded distributions are the ones the choice was drawn from: π itself at temperature 1 (and when
 * greedy), otherwise π_node^(1/τ) renormalised (= softmax(logits/τ)) and σ(ℓ/τ) for edges. The recorded
 * logProb is computed from exactly the recorded numbers, so check.ts can recompute it from the trace.
 */
import { hashString, createRng, type Rng } from '../core/rng.ts';
import { minimalTrace } from '../core/trace-builders.ts';
import type { ConstructionStep, Design, Task, Trace } from '../core/trace.ts';
import { actionKind, actionNames, type PolicyAction } from './actions.ts';
import { incompatibility } from './checkpoint.ts';
import {
  applyAction,
  initialState,
  toValidDesign,
  withResult,
  type ConstructionState,
} from './construction.ts';
import { encodeTask, type TaskEncoding } from './encoder.ts';
import type { Evaluation, PolicyNetwork } from './network.ts';
import { actionReward, DEFAULT_ACTION_REWARD, type ActionRewardConfig } from './rewards.ts';
import type { RolePool } from './roles.ts';

/** Runs a (partial) design on the task; injected so this layer stays pure (src/executor provides one). */
export type IntermediateRunner = (
  design: Design,
  task: Task,
) => Promise<{ answer: string | null; correct: boolean | null }>;

/** Edge probabilities are kept in [ε, 1 − ε] (ε = 1e-7) so every log Bernoulli term is finite. */
export const EDGE_EPS = 1e-7;

export interface SampleOptions {
  /** Argmax action and links with p ≥ 0.5 (no randomness). */
  greedy?: boolean;
  /** τ > 0: node π^(1/τ), edges σ(ℓ/τ). Default 1. */
  temperature?: number;
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

const sigmoid = (x: number): number => (x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x)));
const clampEdge = (p: number): number => Math.min(1 - EDGE_EPS, Math.max(EDGE_EPS, p));

/** The distribution the node choice is drawn from (float64, masked entries exactly 0, sums to 1). */
export function nodeDistribution(ev: Evaluation, temperature = 1): number[] {
  if (ev.probs.some((p) => !Number.isFinite(p)))
    throw new Error(
      'the policy network produced a non-finite distribution (NaN or ∞): the checkpoint’s parameters overflow',
    );
  const q = Array.from(ev.probs, (p, i) =>
    ev.mask[i] === 1 && p > 0 ? (temperature === 1 ? p : Math.pow(p, 1 / temperature)) : 0,
  );
  const total = q.reduce((a, b) => a + b, 0);
  if (!(total > 0)) throw new Error('no action is allowed in this state');
  return q.map((x) => x / total);
}

/** Edge probabilities σ(ℓ/τ) over the existing agents (state order), kept in [ε, 1 − ε]. */
export function edgeDistribution(logits: Float32Array, temperature = 1): number[] {
  if (logits.some((l) => Number.isNaN(l)))
    throw new Error('the policy network produced a NaN edge logit: the checkpoint’s parameters overflow');
  return Array.from(logits, (l) => clampEdge(sigmoid(l / temperature)));
}

function pickIndex(q: readonly number[], u: number): number {
  let acc = 0;
  let last = -1;
  for (let i = 0; i < q.length; i++) {
    const p = q[i] as number;
    if (p <= 0) continue;
    last = i;
    acc += p;
    if (u < acc) return i;
  }
  return last;
}

const argmax = (q: readonly number[]): number =>
  q.reduce((best, p, i) => (p > (q[best] as number) ? i : best), 0);

/**
 * The uniforms of one step, in the one order every caller uses: one for the node, then one per
 * existing agent (state order), drawn whatever is chosen, so the random stream does not depend on
 * overrides.
 */
function stepDraws(state: ConstructionState, rng: Rng): { node: number; edges: number[] } {
  const node = rng.next();
  return { node, edges: state.agents.map(() => rng.next()) };
}

/** Links of a sampled ADD: agent i is linked when its uniform u_i < p_i. */
const linksFrom = (state: ConstructionState, u: readonly number[], p: readonly number[]): string[] =>
  state.agents.filter((_, i) => (u[i] as number) < (p[i] as number)).map((a) => a.id);

/**
 * The links a sampled ADD at step `state.step` of a construction seeded with `seed` takes, given
 * the edge probabilities over the existing agents (state order): the same draws from
 * `stepRng(seed, state.step)` that `policyStep` makes, so a preview shows the links the step will
 * take.
 */
export function seededLinks(state: ConstructionState, seed: number, edgeProbs: readonly number[]): string[] {
  return linksFrom(state, stepDraws(state, stepRng(seed, state.step)).edges, edgeProbs);
}

/**
 * One JPSS step. Exactly one uniform draw for the node and one per existing agent are consumed
 * whatever is chosen (`stepDraws`), so the random stream does not depend on overrides.
 */
export async function policyStep(
  net: PolicyNetwork,
  task: TaskEncoding,
  state: ConstructionState,
  rng: Rng,
  opts: SampleOptions = {},
  choice: StepChoice = {},
): Promise<StepOutcome> {
  const tau = opts.greedy ? 1 : (opts.temperature ?? 1);
  if (!(tau > 0)) throw new Error('temperature must be > 0');
  const ev = await net.evaluate(task, state);
  const q = nodeDistribution(ev, tau);
  const u = stepDraws(state, rng);
  let col: number;
  if (choice.action !== undefined) {
    if (ev.mask[choice.action] !== 1)
      throw new Error(`action ${actionNames(state.pool)[choice.action] ?? choice.action} is masked`);
    col = choice.action;
  } else col = opts.greedy ? argmax(q) : pickIndex(q, u.node);
  const kind = actionKind(state.pool, col);
  let edgeP: number[] = [];
  let action: PolicyAction;
  if (kind.kind === 'add') {
    edgeP = edgeDistribution(await ev.edges(kind.role), tau);
    const links =
      choice.links !== undefined
        ? [...choice.links]
        : opts.greedy
          ? state.agents.filter((_, i) => (edgeP[i] as number) >= 0.5).map((a) => a.id)
          : linksFrom(state, u.edges, edgeP);
    action = { kind: 'add', role: kind.role, links };
  } else action = kind;
  const applied = applyAction(state, action);
  const names = actionNames(state.pool);
  const pNode = q[col] as number;
  let logProb: number | null = null;
  if (pNode > 0) {
    const linked = new Set(action.kind === 'add' ? action.links : []);
    let lp = Math.log(pNode);
    for (let i = 0; i < edgeP.length; i++) {
      const p = edgeP[i] as number;
      lp += Math.log(linked.has((state.agents[i] as ConstructionState['agents'][number]).id) ? p : 1 - p);
    }
    logProb = lp;
  }
  const step: ConstructionStep = {
    index: state.step,
    action: applied.record,
    roleDistribution: names.map((name, i) => ({ action: name, p: q[i] as number })),
    edgeProbabilities:
      action.kind === 'add' ? state.agents.map((a, i) => ({ from: a.id, p: edgeP[i] as number })) : [],
    logProb,
    chooser: choice.action !== undefined || choice.links !== undefined ? 'user' : 'policy',
  };
  return { state: applied.state, step, evaluation: ev };
}

/** What the Build page shows before the user chooses: the node distribution and, per role, the edges. */
export interface StepPreview {
  /** Every action in head order with its probability (0 when masked) and whether it is allowed. */
  actions: { action: string; p: number; allowed: boolean }[];
  /** Edge probabilities for a role over the existing agents (call before the next evaluation). */
  edges: (role: number) => Promise<{ from: string; p: number }[]>;
}

/** The distributions of the next step without choosing or applying anything. */
export async function previewStep(
  net: PolicyNetwork,
  task: TaskEncoding,
  state: ConstructionState,
  temperature = 1,
): Promise<StepPreview> {
  const ev = await net.evaluate(task, state);
  const q = nodeDistribution(ev, temperature);
  return {
    actions: actionNames(state.pool).map((action, i) => ({
      action,
      p: q[i] as number,
      allowed: ev.mask[i] === 1,
    })),
    edges: async (role) => {
      const p = edgeDistribution(await ev.edges(role), temperature);
      return state.agents.slice(0, p.length).map((a, i) => ({ from: a.id, p: p[i] as number }));
    },
  };
}

/** The RNG of step t of a construction seeded with `seed`: independent of earlier overrides. */
export function stepRng(seed: number, t: number): Rng {
  return createRng(hashString(`baton.policy:${seed >>> 0}:${t}`));
}

export interface ConstructOptions extends SampleOptions {
  policy: PolicyNetwork;
  pool: RolePool;
  task: Task;
  seed: number;
  /** Step budget (≤ the checkpoint's maxSteps is typical; default the checkpoint's). */
  maxSteps?: number;
  /** Executes each intermediate MAS for its answer and correctness (and the action rewards). */
  runner?: IntermediateRunner;
  rewards?: ActionRewardConfig;
  /** Per-step overrides (the Build page's user choices). */
  choose?: (index: number, state: ConstructionState) => StepChoice | undefined;
  /** Called after every step (progress for the CLI and the UI). */
  onStep?: (o: StepOutcome) => void;
  /** ISO time written to the trace (pure code takes it as input). */
  createdAt?: string;
}

export interface Construction {
  steps: ConstructionStep[];
  state: ConstructionState;
  design: Design;
  trace: Trace;
}

/** Builds a MAS for the task by sampling from the policy until EXIT. */
export async function construct(o: ConstructOptions): Promise<Construction> {
  const cfg = o.policy.checkpoint.config;
  const why = incompatibility(
    o.policy.checkpoint,
    o.pool.roles.map((r) => r.name),
  );
  if (why) throw new Error(why);
  let state = initialState(o.pool, { maxAgents: cfg.maxAgents, maxSteps: o.maxSteps ?? cfg.maxSteps });
  const enc = encodeTask(o.task.query, cfg.hashDim);
  const steps: ConstructionStep[] = [];
  let prevCorrect: boolean | null = false;
  while (!state.exited) {
    const out = await policyStep(
      o.policy,
      enc,
      state,
      stepRng(o.seed, state.step),
      o,
      o.choose?.(state.step, state) ?? {},
    );
    state = out.state;
    let step = out.step;
    if (o.runner) {
      const design = toValidDesign(state);
      const r = design ? await o.runner(design, o.task) : { answer: null, correct: null };
      state = withResult(state, r.answer, r.correct);
      const reward = actionReward(prevCorrect, r.correct, step.index, o.rewards ?? DEFAULT_ACTION_REWARD);
      step = { ...step, intermediateAnswer: r.answer, intermediateCorrect: r.correct, actionReward: reward };
      prevCorrect = r.correct;
    }
    steps.push(step);
    o.onStep?.({ ...out, state, step });
  }
  const design = toValidDesign(state);
  if (!design) throw new Error('construction ended without agents');
  const src = o.task.source;
  const base = minimalTrace({
    query: o.task.query,
    title:
      src.kind === 'masbench'
        ? `MASBench ${src.axis} ${src.value} · ${o.policy.name} construction`
        : `${(o.task.query.trim().split('\n')[0] ?? '').slice(0, 60)} · ${o.policy.name} construction`,
    groundTruth: o.task.groundTruth,
    source: o.task.source,
    createdAt: o.createdAt,
    designer: {
      kind: 'policy',
      checkpoint: o.policy.name,
      backend: o.policy.backend,
      seed: o.seed,
      roles: o.pool.version,
      ...(o.runner ? { rewards: { ...(o.rewards ?? DEFAULT_ACTION_REWARD) } } : {}),
    },
  });
  const trace: Trace = {
    ...base,
    task: { ...o.task },
    construction: steps,
    design,
    tags: ['construction'],
  };
  return { steps, state, design, trace };
}
