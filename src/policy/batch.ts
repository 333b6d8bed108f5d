/**
 * Recorded construction steps → inputs of the batched policy graph (`buildPolicyGraph` with
 * `logProb`), so the trainer can recompute log π_θ of taken steps (the PPO ratio's numerator) on
 * either backend. States are rebuilt by replaying the recorded actions; a replay that does not
 * reproduce the recorded agent ids is an error (the trace was made with another pool).
 */
import type { ConstructionStep } from '../core/trace.ts';
import { actionIndex, type PolicyAction } from './actions.ts';
import { graphBlock, type PolicyConfig } from './checkpoint.ts';
import {
  applyAction,
  withResult,
  initialState,
  type ConstructionLimits,
  type ConstructionState,
} from './construction.ts';
import { agentDim, stateDim, type TaskEncoding } from './encoder.ts';
import { graphInputs, maxLinks } from './links.ts';
import { encoderConfig } from './network.ts';
import { PackedStates } from './pack.ts';
import type { RolePool } from './roles.ts';

/** The state before each step, the policy action each step took, and the state after the last. */
export function replay(
  pool: RolePool,
  limits: ConstructionLimits,
  steps: readonly ConstructionStep[],
): { states: ConstructionState[]; actions: PolicyAction[]; final: ConstructionState } {
  const states: ConstructionState[] = [];
  const actions: PolicyAction[] = [];
  let s = initialState(pool, limits);
  for (const step of steps) {
    const a = step.action;
    let action: PolicyAction;
    if (a.kind === 'add') {
      const role = pool.roles.findIndex((r) => r.name === a.role);
      if (role < 0) throw new Error(`step ${step.index}: role "${a.role}" is not in the pool`);
      action = { kind: 'add', role, links: a.links };
    } else action = { kind: a.kind };
    const applied = applyAction(s, action);
    const r = applied.record;
    if ((r.kind === 'add' || r.kind === 'delete') && 'agentId' in a && r.agentId !== a.agentId) {
      throw new Error(`step ${step.index}: replay gives agent ${r.agentId}, the trace has ${a.agentId}`);
    }
    states.push(s);
    actions.push(action);
    s = applied.state;
    // An executed step's intermediate answer is part of the next state (the encoder reads it).
    if (step.intermediateAnswer !== undefined)
      s = withResult(s, step.intermediateAnswer ?? null, step.intermediateCorrect ?? null);
  }
  return { states, actions, final: s };
}

export interface EpisodeSteps {
  task: TaskEncoding;
  steps: readonly ConstructionStep[];
  /** The limits the construction ran with (default: the checkpoint's). */
  limits?: ConstructionLimits;
  /**
   * The state before each step as the construction went (its episode's frames 0 … T − 1, results
   * recorded): what replaying `steps` from the empty MAS gives, so `trainingBatch` packs these
   * instead of replaying. States of another pool or other limits, or not one per step, are ignored
   * (the steps are replayed).
   */
  states?: readonly ConstructionState[];
}

/** The states before the steps of an episode: the given ones when they fit, else a replay. */
function statesOf(
  pool: RolePool,
  limits: ConstructionLimits,
  ep: EpisodeSteps,
): { states: readonly ConstructionState[]; actions: PolicyAction[] } {
  const given = ep.states;
  const fits =
    given !== undefined &&
    given.length === ep.steps.length &&
    given.every(
      (s, i) =>
        s.step === ep.steps[i]?.index &&
        s.pool === pool &&
        s.limits.maxAgents === limits.maxAgents &&
        s.limits.maxSteps === limits.maxSteps,
    );
  if (!fits) return replay(pool, limits, ep.steps);
  const actions = ep.steps.map((step): PolicyAction => {
    const a = step.action;
    if (a.kind !== 'add') return { kind: a.kind };
    const role = pool.roles.findIndex((r) => r.name === a.role);
    if (role < 0) throw new Error(`step ${step.index}: role "${a.role}" is not in the pool`);
    return { kind: 'add', role, links: a.links };
  });
  return { states: given, actions };
}

export interface TrainingBatch {
  /** States (B): one per step over all episodes, in order. */
  batch: number;
  /** Edge rows (E): one per existing agent of each ADD step, at least 1. */
  edgeRows: number;
  /**
   * Every step packed (pack.ts) with its action and edge targets; `rows.feed(model, { targets:
   * true })` feeds a graph built with `{ batch, edgeRows, logProb: true }`, and `PackedStates.copy`
   * takes a minibatch of steps from it.
   */
  rows: PackedStates;
}

/**
 * The recorded steps as inputs of `buildPolicyGraph(cfg, params, { batch, edgeRows, logProb: true })`.
 * Its `joint` output then equals each step's recorded logProb for steps sampled at temperature 1.
 */
export function trainingBatch(
  cfg: PolicyConfig,
  pool: RolePool,
  episodes: readonly EpisodeSteps[],
): TrainingBatch {
  const enc = encoderConfig(cfg);
  const N = cfg.maxAgents;
  const rows: { task: TaskEncoding; state: ConstructionState; action: PolicyAction }[] = [];
  for (const ep of episodes) {
    const { states, actions } = statesOf(
      pool,
      ep.limits ?? { maxAgents: cfg.maxAgents, maxSteps: cfg.maxSteps },
      ep,
    );
    states.forEach((state, i) => rows.push({ task: ep.task, state, action: actions[i] as PolicyAction }));
  }
  const edges = rows.reduce(
    (k, r) => k + (r.action.kind === 'add' ? Math.min(r.state.agents.length, N) : 0),
    0,
  );
  const B = Math.max(1, rows.length);
  const E = Math.max(1, edges);
  const packed = new PackedStates(enc, B, E, graphBlock(cfg) !== null);
  for (const { task, state, action } of rows) {
    const b = packed.add(task, state);
    const col = actionIndex(pool, action.kind === 'add' ? { kind: 'add', role: action.role } : action);
    packed.action[b] = col;
    // Only an ADD step's edges are part of its log-probability: other steps get no edge rows.
    if (action.kind === 'add' && state.agents.length > 0) {
      const n = Math.min(state.agents.length, N);
      const targets: number[] = [];
      for (let i = 0; i < n; i++)
        targets.push(
          action.links.includes((state.agents[i] as ConstructionState['agents'][number]).id) ? 1 : 0,
        );
      packed.addEdges(b, col, targets);
    }
  }
  return { batch: B, edgeRows: E, rows: packed };
}

/**
 * The steps of a training batch in the fixed-offset layout (state b: agent and edge rows
 * b·N … b·N + N − 1, message slots b·M … b·M + M − 1, empty ones zero or pointing at row b·N), for
 * code that implements the policy graph on its own (the TF.js benchmark, bench/train-tfjs).
 */
export function fixedLayout(
  cfg: PolicyConfig,
  tb: TrainingBatch,
): Record<string, Float32Array | Uint32Array> {
  const enc = encoderConfig(cfg);
  const p = tb.rows;
  const B = tb.batch;
  const N = cfg.maxAgents;
  const M = maxLinks(enc);
  const S = stateDim(enc);
  const Da = agentDim(enc);
  const block = graphBlock(cfg);
  const links = block ? graphInputs(enc, B) : null;
  const out = {
    state: p.state.slice(0, B * S),
    mask: p.mask.slice(0, B * (enc.roles + 2)),
    agents: new Float32Array(B * N * Da),
    edgeAgent: Uint32Array.from({ length: B * N }, (_, e) => e),
    edgeRole: new Uint32Array(B * N),
    edgeBatch: Uint32Array.from({ length: B * N }, (_, e) => Math.floor(e / N)),
    ones: new Float32Array(Da).fill(1),
    action: p.action.slice(0, B),
    edgeTarget: new Float32Array(B * N),
    edgeWeight: new Float32Array(B * N),
  };
  for (let b = 0; b < p.states; b++) {
    const r0 = p.firstRow[b] as number;
    const n = p.agentCount[b] as number;
    out.agents.set(p.agents.subarray(r0 * Da, (r0 + n) * Da), b * N * Da);
    const e0 = p.firstEdge[b] as number;
    for (let i = 0; i < (p.edgeCount[b] as number); i++) {
      const e = b * N + ((p.edgeAgent[e0 + i] as number) - r0);
      out.edgeRole[e] = p.edgeRole[e0 + i] as number;
      out.edgeTarget[e] = p.edgeTarget[e0 + i] as number;
      out.edgeWeight[e] = p.edgeWeight[e0 + i] as number;
    }
    if (p.edgeCount[b]) out.edgeRole.fill(p.edgeRole[e0] as number, b * N, (b + 1) * N);
    if (!links) continue;
    links.msgFrom.fill(b * N, b * M, (b + 1) * M);
    links.msgTo.fill(b * N, b * M, (b + 1) * M);
    const l0 = p.firstLink[b] as number;
    for (let i = 0; i < (p.linkCount[b] as number); i++) {
      links.msgFrom[b * M + i] = (p.msgFrom[l0 + i] as number) - r0 + b * N;
      links.msgTo[b * M + i] = (p.msgTo[l0 + i] as number) - r0 + b * N;
      links.inWeight[b * M + i] = p.inWeight[l0 + i] as number;
      links.outWeight[b * M + i] = p.outWeight[l0 + i] as number;
    }
    links.readMean.set(p.readMean.subarray(r0, r0 + n), b * N);
    links.readSink.set(p.readSink.subarray(r0, r0 + n), b * N);
  }
  return links && block ? { ...out, ...links, onesG: new Float32Array(block.hidden).fill(1) } : out;
}
