/**
 * Rows of a `TrainingBatch` as one fixed-size minibatch, laid out exactly as `Learner` feeds its
 * training graph (src/train/learner.ts): row b of the minibatch is row pick[b] of the batch, its
 * agent and edge rows b·N … b·N + N − 1, its message slots b·L … b·L + L − 1 (pointers moved to
 * the new agent rows); rows past pick.length are padding that allows only EXIT, takes it, and has
 * no edges. The TF.js side of the benchmark reads this; the parity test checks that both sides
 * give the same log-probabilities on it.
 */
import {
  agentDim,
  encoderConfig,
  exitIndex,
  fixedLayout,
  stateDim,
  type PolicyConfig,
  type RolePool,
  type TrainingBatch,
} from '../../src/policy/index.ts';

export interface Minibatch {
  /** Real rows (the rest up to the fixed size is padding). */
  rows: number;
  /** The rows of the batch it holds, in order. */
  pick: readonly number[];
  inputs: Record<string, Float32Array | Uint32Array>;
}

const linkSlots = (n: number): number => Math.max(1, (n * (n - 1)) / 2);

export function minibatch(
  cfg: PolicyConfig,
  pool: RolePool,
  full: TrainingBatch,
  pick: readonly number[],
  M: number,
): Minibatch {
  if (pick.length > M) throw new Error(`${pick.length} rows do not fit a minibatch of ${M}`);
  const enc = encoderConfig(cfg);
  const N = cfg.maxAgents;
  const S = stateDim(enc);
  const Da = agentDim(enc);
  const A = cfg.roles.length + 2;
  const L = linkSlots(N);
  const src = fixedLayout(cfg, full);
  const f = (k: string): Float32Array => src[k] as Float32Array;
  const u = (k: string): Uint32Array => src[k] as Uint32Array;
  const exit = exitIndex(pool);
  const state = new Float32Array(M * S);
  const mask = new Float32Array(M * A);
  const agents = new Float32Array(M * N * Da);
  const edgeRole = new Uint32Array(M * N);
  const action = new Uint32Array(M);
  const edgeTarget = new Float32Array(M * N);
  const edgeWeight = new Float32Array(M * N);
  const graph = 'msgFrom' in src;
  const msgFrom = new Uint32Array(graph ? M * L : 0);
  const msgTo = new Uint32Array(graph ? M * L : 0);
  const inWeight = new Float32Array(graph ? M * L : 0);
  const outWeight = new Float32Array(graph ? M * L : 0);
  const readMean = new Float32Array(graph ? M * N : 0);
  const readSink = new Float32Array(graph ? M * N : 0);
  for (let b = 0; b < M; b++) {
    const from = pick[b];
    if (from === undefined) {
      mask[b * A + exit] = 1;
      action[b] = exit;
      msgFrom.fill(b * N, b * L, graph ? (b + 1) * L : 0);
      msgTo.fill(b * N, b * L, graph ? (b + 1) * L : 0);
      continue;
    }
    state.set(f('state').subarray(from * S, (from + 1) * S), b * S);
    mask.set(f('mask').subarray(from * A, (from + 1) * A), b * A);
    agents.set(f('agents').subarray(from * N * Da, (from + 1) * N * Da), b * N * Da);
    action[b] = u('action')[from] as number;
    edgeRole.set(u('edgeRole').subarray(from * N, (from + 1) * N), b * N);
    edgeTarget.set(f('edgeTarget').subarray(from * N, (from + 1) * N), b * N);
    edgeWeight.set(f('edgeWeight').subarray(from * N, (from + 1) * N), b * N);
    if (graph) {
      for (let m = 0; m < L; m++) {
        msgFrom[b * L + m] = (u('msgFrom')[from * L + m] as number) - from * N + b * N;
        msgTo[b * L + m] = (u('msgTo')[from * L + m] as number) - from * N + b * N;
      }
      inWeight.set(f('inWeight').subarray(from * L, (from + 1) * L), b * L);
      outWeight.set(f('outWeight').subarray(from * L, (from + 1) * L), b * L);
      readMean.set(f('readMean').subarray(from * N, (from + 1) * N), b * N);
      readSink.set(f('readSink').subarray(from * N, (from + 1) * N), b * N);
    }
  }
  const inputs: Record<string, Float32Array | Uint32Array> = {
    state,
    mask,
    agents,
    edgeRole,
    action,
    edgeTarget,
    edgeWeight,
    ...(graph ? { msgFrom, msgTo, inWeight, outWeight, readMean, readSink } : {}),
  };
  return { rows: pick.length, pick, inputs };
}
