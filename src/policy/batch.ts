/**
 * Recorded construction steps → inputs of the batched policy graph (`buildPolicyGraph` with
 * `logProb`), so the trainer can recompute log π_θ of taken steps (the PPO ratio's numerator) on
 * either backend. States are rebuilt by replaying the recorded actions; a replay that does not
 * reproduce the recorded agent ids is an error (the trace was made with another pool).
 */
import type { ConstructionStep } from '../core/trace.ts';
import { actionCount, actionIndex, type PolicyAction } from './actions.ts';
import { graphBlock, type PolicyConfig } from './checkpoint.ts';
import {
  actionMask,
  applyAction,
  withResult,
  initialState,
  type ConstructionLimits,
  type ConstructionState,
} from './construction.ts';
import { agentDim, encodeAgents, encodeState, stateDim, type TaskEncoding } from './encoder.ts';
import { encodeGraph, graphInputs } from './links.ts';
import { encoderConfig } from './network.ts';
import type { RolePool } from './roles.ts';

/** The state before each step, and the policy action each step took. */
export function replay(
  pool: RolePool,
  limits: ConstructionLimits,
  steps: readonly ConstructionStep[],
): { states: ConstructionState[]; actions: PolicyAction[] } {
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
  return { states, actions };
}

export interface EpisodeSteps {
  task: TaskEncoding;
  steps: readonly ConstructionStep[];
  /** The limits the construction ran with (default: the checkpoint's). */
  limits?: ConstructionLimits;
}

export interface TrainingBatch {
  /** States (B): one per step over all episodes, in order. */
  batch: number;
  /** Edge rows (E = B·N). */
  edgeRows: number;
  inputs: Record<string, Float32Array | Uint32Array>;
}

/**
 * Inputs for `buildPolicyGraph(cfg, params, { batch, edgeRows, logProb: true })`. Its `joint`
 * output then equals each step's recorded logProb for steps sampled at temperature 1.
 */
export function trainingBatch(
  cfg: PolicyConfig,
  pool: RolePool,
  episodes: readonly EpisodeSteps[],
): TrainingBatch {
  const enc = encoderConfig(cfg);
  const N = cfg.maxAgents;
  const S = stateDim(enc);
  const Da = agentDim(enc);
  const A = actionCount(pool);
  const rows: { task: TaskEncoding; state: ConstructionState; action: PolicyAction }[] = [];
  for (const ep of episodes) {
    const { states, actions } = replay(
      pool,
      ep.limits ?? { maxAgents: cfg.maxAgents, maxSteps: cfg.maxSteps },
      ep.steps,
    );
    states.forEach((state, i) => rows.push({ task: ep.task, state, action: actions[i] as PolicyAction }));
  }
  const B = Math.max(1, rows.length);
  const block = graphBlock(cfg);
  const links = block ? graphInputs(enc, B) : null;
  const inputs: Record<string, Float32Array | Uint32Array> & {
    state: Float32Array;
    mask: Float32Array;
    agents: Float32Array;
    edgeAgent: Uint32Array;
    edgeRole: Uint32Array;
    edgeBatch: Uint32Array;
    action: Uint32Array;
    edgeTarget: Float32Array;
    edgeWeight: Float32Array;
  } = {
    state: new Float32Array(B * S),
    mask: new Float32Array(B * A),
    agents: new Float32Array(B * N * Da),
    edgeAgent: new Uint32Array(B * N),
    edgeRole: new Uint32Array(B * N),
    edgeBatch: new Uint32Array(B * N),
    ones: new Float32Array(Da).fill(1),
    action: new Uint32Array(B),
    edgeTarget: new Float32Array(B * N),
    edgeWeight: new Float32Array(B * N),
    ...(block && links ? { ...links, onesG: new Float32Array(block.hidden).fill(1) } : {}),
  };
  rows.forEach(({ task, state, action }, b) => {
    encodeState(enc, task, state, inputs.state.subarray(b * S, (b + 1) * S));
    inputs.mask.set(actionMask(state), b * A);
    encodeAgents(enc, state, inputs.agents.subarray(b * N * Da, (b + 1) * N * Da));
    if (links) encodeGraph(enc, state, links, b);
    const col = actionIndex(pool, action.kind === 'add' ? { kind: 'add', role: action.role } : action);
    inputs.action[b] = col;
    const linked = new Set(action.kind === 'add' ? action.links : []);
    for (let i = 0; i < N; i++) {
      const e = b * N + i;
      inputs.edgeAgent[e] = e;
      inputs.edgeBatch[e] = b;
      inputs.edgeRole[e] = action.kind === 'add' ? col : 0;
      const agent = state.agents[i];
      if (action.kind === 'add' && agent) {
        inputs.edgeWeight[e] = 1;
        inputs.edgeTarget[e] = linked.has(agent.id) ? 1 : 0;
      }
    }
  });
  return { batch: B, edgeRows: B * N, inputs };
}
