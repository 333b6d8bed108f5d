/**
 * JPSS sampling: one construction step is encode → node distribution → choose an action (sampled,
 * greedy, or the user's) → edge probabilities for the chosen role → choose the links → apply → record
 * a full ConstructionStep. `previewStep` shows the next step without taking it; `stepPolicyOf` wraps
 * both for an episode (episode.ts), which strings steps into a construction.
 *
 * Recorded distributions are the ones the choice was drawn from: π itself at temperature 1 (and when
 * greedy), otherwise π_node^(1/τ) renormalised (= softmax(logits/τ)) and σ(ℓ/τ) for edges. The recorded
 * logProb is computed from exactly the recorded numbers, so check.ts can recompute it from the trace.
 */
import { hashString, createRng, type Rng } from '../core/rng.ts';
import type { ConstructionStep } from '../core/trace.ts';
import { DELETE, EXIT, actionKind, actionNames, type PolicyAction } from './actions.ts';
import { applyAction, type ConstructionState } from './construction.ts';
import type { TaskEncoding } from './encoder.ts';
import type { Evaluation, PolicyNetwork } from './network.ts';
import type {
  SampleOptions,
  StepChoice,
  StepOutcome,
  StepPolicy,
  StepPreview,
  StepSettings,
} from './step-types.ts';

/** Edge probabilities are kept in [ε, 1 − ε] (ε = 1e-7) so every log Bernoulli term is finite. */
export const EDGE_EPS = 1e-7;

const sigmoid = (x: number): number => (x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x)));
const clampEdge = (p: number): number => Math.min(1 - EDGE_EPS, Math.max(EDGE_EPS, p));

/** The distribution the node choice is drawn from (float64, masked entries exactly 0, sums to 1). */
export function nodeDistribution(ev: Pick<Evaluation, 'probs' | 'mask'>, temperature = 1): number[] {
  const probs = ev.probs;
  const A = probs.length;
  for (let i = 0; i < A; i++)
    if (!Number.isFinite(probs[i]))
      throw new Error(
        'the policy network produced a non-finite distribution (NaN or ∞): the checkpoint’s parameters overflow',
      );
  const q: number[] = [];
  let total = 0;
  for (let i = 0; i < A; i++) {
    const p = probs[i] as number;
    const x = ev.mask[i] === 1 && p > 0 ? (temperature === 1 ? p : Math.pow(p, 1 / temperature)) : 0;
    q.push(x);
    total += x;
  }
  if (!(total > 0)) throw new Error('no action is allowed in this state');
  for (let i = 0; i < A; i++) q[i] = (q[i] as number) / total;
  return q;
}

/** Edge probabilities σ(ℓ/τ) over the existing agents (state order), kept in [ε, 1 − ε]. */
export function edgeDistribution(logits: Float32Array, temperature = 1): number[] {
  const n = logits.length;
  for (let i = 0; i < n; i++)
    if (Number.isNaN(logits[i]))
      throw new Error('the policy network produced a NaN edge logit: the checkpoint’s parameters overflow');
  const p: number[] = [];
  for (let i = 0; i < n; i++) p.push(clampEdge(sigmoid((logits[i] as number) / temperature)));
  return p;
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
function stepDraws(state: ConstructionState, rng: Rng): StepDraws {
  const node = rng.next();
  return { node, edges: state.agents.map(() => rng.next()) };
}

/** The uniforms of one step: one for the node, one per existing agent (state order). */
export interface StepDraws {
  node: number;
  edges: number[];
}

/**
 * The draws of step `state.step` of a construction seeded with `seed`, exactly those
 * `stepRng(seed, state.step)` gives (`stepDraws`), from the same mulberry32 stream as
 * src/core/rng.ts computed inline: the batched sampler draws for hundreds of steps per pass, and
 * building a generator object per step cost more than the draws.
 */
export function seededStepDraws(seed: number, state: ConstructionState): StepDraws {
  let a = hashString(`baton.policy:${seed >>> 0}:${state.step}`) >>> 0;
  let node = 0;
  const edges: number[] = [];
  for (let i = 0; i <= state.agents.length; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const u = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    if (i === 0) node = u;
    else edges.push(u);
  }
  return { node, edges };
}

/** Links of a sampled ADD: agent i is linked when its uniform u_i < p_i. */
function linksFrom(state: ConstructionState, u: readonly number[], p: readonly number[]): string[] {
  const out: string[] = [];
  const agents = state.agents;
  for (let i = 0; i < agents.length; i++)
    if ((u[i] as number) < (p[i] as number)) out.push((agents[i] as (typeof agents)[number]).id);
  return out;
}

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
 * The node half of a JPSS step, decided from the node distribution alone: the uniforms of the step
 * (`stepDraws`), the distribution the choice is drawn from, the column chosen (sampled, greedy or
 * the user's) and, for an ADD, its role (whose edge logits `finishStep` needs). `policyStep` and the
 * batched sampler (batch-sample.ts) share it, so both make the same choice from the same numbers.
 */
export interface NodeDecision {
  tau: number;
  q: number[];
  draws: StepDraws;
  col: number;
  /** The role of an ADD (its edge logits are needed next), else null. */
  role: number | null;
}

export function decideNode(
  ev: Pick<Evaluation, 'probs' | 'mask'>,
  state: ConstructionState,
  /** The step's generator (`stepRng`), or its draws already made (`seededStepDraws`). */
  rng: Rng | StepDraws,
  opts: SampleOptions = {},
  choice: StepChoice = {},
): NodeDecision {
  const tau = opts.greedy ? 1 : (opts.temperature ?? 1);
  if (!(tau > 0)) throw new Error('temperature must be > 0');
  const q = nodeDistribution(ev, tau);
  const draws = 'next' in rng ? stepDraws(state, rng) : rng;
  let col: number;
  if (choice.action !== undefined) {
    if (ev.mask[choice.action] !== 1)
      throw new Error(`action ${actionNames(state.pool)[choice.action] ?? choice.action} is masked`);
    col = choice.action;
  } else col = opts.greedy ? argmax(q) : pickIndex(q, draws.node);
  const kind = actionKind(state.pool, col);
  return { tau, q, draws, col, role: kind.kind === 'add' ? kind.role : null };
}

/**
 * The edge half of a JPSS step: given the decision and, for an ADD, the edge logits of its role over
 * the existing agents (state order), choose the links, apply the action and record the step with
 * its joint log-probability.
 */
export function finishStep(
  state: ConstructionState,
  ev: Evaluation,
  d: NodeDecision,
  edgeLogits: Float32Array | null,
  opts: SampleOptions = {},
  choice: StepChoice = {},
): StepOutcome {
  const { tau, q, col } = d;
  const kind = actionKind(state.pool, col);
  let edgeP: number[] = [];
  let action: PolicyAction;
  if (kind.kind === 'add') {
    if (!edgeLogits) throw new Error('an ADD needs the edge logits of its role');
    edgeP = edgeDistribution(edgeLogits, tau);
    const links =
      choice.links !== undefined
        ? [...choice.links]
        : opts.greedy
          ? state.agents.filter((_, i) => (edgeP[i] as number) >= 0.5).map((a) => a.id)
          : linksFrom(state, d.draws.edges, edgeP);
    action = { kind: 'add', role: kind.role, links };
  } else action = kind;
  const applied = applyAction(state, action);
  const pNode = q[col] as number;
  let logProb: number | null = null;
  if (pNode > 0) {
    const linked = action.kind === 'add' ? action.links : [];
    let lp = Math.log(pNode);
    for (let i = 0; i < edgeP.length; i++) {
      const p = edgeP[i] as number;
      lp += Math.log(
        linked.includes((state.agents[i] as ConstructionState['agents'][number]).id) ? p : 1 - p,
      );
    }
    logProb = lp;
  }
  const step: ConstructionStep = {
    index: state.step,
    action: applied.record,
    roleDistribution: roleDistribution(state, q),
    edgeProbabilities:
      action.kind === 'add' ? state.agents.map((a, i) => ({ from: a.id, p: edgeP[i] as number })) : [],
    logProb,
    chooser: choice.action !== undefined || choice.links !== undefined ? 'user' : 'policy',
  };
  return { state: applied.state, step, evaluation: ev };
}

/** `actionNames(pool)` paired with q, without the names array. */
function roleDistribution(
  state: ConstructionState,
  q: readonly number[],
): ConstructionStep['roleDistribution'] {
  const roles = state.pool.roles;
  const out: ConstructionStep['roleDistribution'] = [];
  for (let i = 0; i < roles.length; i++)
    out.push({ action: (roles[i] as (typeof roles)[number]).name, p: q[i] as number });
  out.push({ action: DELETE, p: q[roles.length] as number });
  out.push({ action: EXIT, p: q[roles.length + 1] as number });
  return out;
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
  const d = decideNode(ev, state, rng, opts, choice);
  const logits = d.role !== null ? await ev.edges(d.role) : null;
  return finishStep(state, ev, d, logits, opts, choice);
}

function mostProbableRole(q: readonly number[], roles: number): number | null {
  let best: number | null = null;
  for (let i = 0; i < roles; i++)
    if ((q[i] as number) > 0 && (best === null || (q[i] as number) > (q[best] as number))) best = i;
  return best;
}

/**
 * The next step without choosing or applying anything: the node distribution, and for `o.role`
 * (when allowed; else the most probable role) the edge probabilities and the links a sampled and a
 * greedy step would take. `policyStep` with the same settings and that role records exactly these
 * numbers. After EXIT every probability is 0 and there is no role.
 */
export async function previewStep(
  net: PolicyNetwork,
  task: TaskEncoding,
  state: ConstructionState,
  o: StepSettings & { role: number | null },
): Promise<StepPreview> {
  const ev = await net.evaluate(task, state);
  const distribution = state.exited ? Array.from(ev.probs, () => 0) : nodeDistribution(ev, o.temperature);
  const roles = state.pool.roles.length;
  const picked = o.role !== null && o.role < roles && ev.mask[o.role] === 1 ? o.role : null;
  const role = picked ?? mostProbableRole(distribution, roles);
  const p = role === null ? [] : edgeDistribution(await ev.edges(role), o.temperature);
  return {
    distribution,
    mask: Array.from(ev.mask),
    role,
    edges: state.agents.slice(0, p.length).map((a, i) => ({ from: a.id, p: p[i] as number })),
    sampledLinks: role === null ? [] : seededLinks(state, o.seed, p),
    greedyLinks: role === null ? [] : state.agents.filter((_, i) => (p[i] as number) >= 0.5).map((a) => a.id),
  };
}

/** The RNG of step t of a construction seeded with `seed`: independent of earlier overrides. */
export function stepRng(seed: number, t: number): Rng {
  return createRng(hashString(`baton.policy:${seed >>> 0}:${t}`));
}

/** A network as an episode's `StepPolicy`: `previewStep` and `policyStep` with the step's seeded RNG. */
export function stepPolicyOf(net: PolicyNetwork): StepPolicy {
  return {
    preview: (task, state, o) => previewStep(net, task, state, o),
    step: (task, state, o, choice) =>
      policyStep(
        net,
        task,
        state,
        stepRng(o.seed, state.step),
        { greedy: o.greedy === true, temperature: o.temperature },
        choice,
      ),
  };
}
