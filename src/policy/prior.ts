/**
 * The built-in `prior` checkpoint: hand-set weights on the interpretable features of encoder.ts, in
 * the network's linear terms (node: b2 + s·L; edge: B[ρ] and s·M scoring the agent features). The
 * hidden paths are initialised as in `random` but their output weights (W2, wo) are 0, so the prior
 * is exactly this table until training moves it.
 *
 * What it encodes (table units: node logits before the temperature below, edge logits as they are;
 * "count" features are min(count, 4)/4, "/12" cues are the MASBench estimates divided by 12):
 * - Empty graph: Decomposer on deep single-answer tasks (+3 deep), Planner on tasks whose asked
 *   quantities form independent groups (+4 wide).
 * - Solvers: +16·(estimated depth/12) + 16·(parallel groups/12), −30·(DAG depth/N), −14·(sinks/N):
 *   a chain about half as long as the task's depth on deep tasks, about one branch per group on
 *   wide ones, then EXIT.
 * - Verifier after solvers on deep or noisy tasks (+8·count(Solver), +20·notes/12), never twice.
 * - Edges: a Solver links to the newest agent on deep tasks (a chain) and to the Planner, not to
 *   other Solvers, on wide tasks (parallel branches); a Verifier reads the newest sink.
 * - Intermediate answers (only when the partial MAS is executed; without a runner every `RESULT`
 *   feature is 0 and the prior is exactly the table above): EXIT +3 when the newest two answers
 *   agree (the last action changed nothing, a sign the answer has settled; after the temperature
 *   +0.75, e^0.75 ≈ 2.1× the odds of stopping), and EXIT −5 when the current answer is a refusal
 *   (exiting would summarise a refusal; −1.25 after the temperature, 3.5× lower odds). The other answer features (answered, distinct, recorded) keep weight 0: they are
 *   there for training.
 * Roles the table does not name (user-edited pools) get a bias of −3 and link to the newest agent.
 *
 * Temperature: the node head's logits are the table's divided by PRIOR_TEMPERATURE (T = 4), so the
 * numbers above are in "table units" and the network's logits are a quarter of them. The table alone
 * is nearly deterministic (Planner 0.997 at step 1 on parallel tasks), and a policy that never
 * explores gives a policy-gradient trainer nothing to compare. Dividing every logit by the same
 * T > 0 keeps their order, so the most probable action — the greedy construction — is unchanged,
 * while sampling explores the other actions in proportion to exp(logit/T). T is a power of two, so
 * the division is exact in floating point: every logit the network computes is exactly a quarter of
 * the table's, ties included, and greedy constructions are identical bit for bit (tested over
 * generated tasks of every axis). The edge head keeps the table's values: its links already vary
 * (along the greedy constructions of the `bench:signal` tasks, the links the prior does not take
 * have probabilities 0.001 to 0.38, median 0.12, and the ones it takes 0.88 to 0.99).
 */
import { POLICY_FORMAT, paramShapes, type PolicyCheckpoint, type PolicyConfig } from './checkpoint.ts';
import {
  AGENT,
  CUE,
  GRAPH,
  RESULT,
  agentDim,
  agentFlagOffset,
  cueOffset,
  graphOffset,
  resultOffset,
  roleCountOffset,
  type EncoderConfig,
} from './encoder.ts';
import { randomCheckpoint, encoderConfig, policyConfig } from './network.ts';
import type { RolePool } from './roles.ts';

type Cue = keyof typeof CUE;
type GraphScalar = keyof typeof GRAPH;
type AnswerFeature = keyof typeof RESULT;
type Flag = keyof typeof AGENT;

/** A state feature: a cue, a graph scalar, an intermediate-answer feature, or the agent count of a named role. */
type StateFeature = { cue: Cue } | { graph: GraphScalar } | { result: AnswerFeature } | { count: string };
/** An agent feature: the constant 1, a flag, or "this agent has role X". */
type AgentFeature = 'bias' | { flag: Flag } | { role: string };

interface NodeRule {
  bias: number;
  w: [StateFeature, number][];
}

const NODE: Record<string, NodeRule> = {
  Decomposer: {
    bias: -6,
    w: [
      [{ graph: 'empty' }, 4],
      [{ cue: 'masbench' }, 2],
      [{ cue: 'deep' }, 3],
      [{ cue: 'depth' }, 12],
      [{ cue: 'wide' }, -3],
      [{ count: 'Decomposer' }, -60],
    ],
  },
  Planner: {
    bias: -6,
    w: [
      [{ graph: 'empty' }, 4],
      [{ cue: 'masbench' }, 2],
      [{ cue: 'wide' }, 4],
      [{ cue: 'parallel' }, 16],
      [{ cue: 'deep' }, -3],
      [{ count: 'Planner' }, -60],
    ],
  },
  Solver: {
    bias: 3.5,
    w: [
      [{ cue: 'masbench' }, -3],
      [{ graph: 'empty' }, -5],
      [{ cue: 'depth' }, 16],
      [{ cue: 'parallel' }, 16],
      [{ graph: 'depth' }, -30],
      [{ graph: 'sinks' }, -14],
    ],
  },
  Verifier: {
    bias: -3,
    w: [
      [{ graph: 'empty' }, -10],
      [{ count: 'Solver' }, 8],
      [{ cue: 'notes' }, 20],
      [{ cue: 'wide' }, -4],
      [{ count: 'Verifier' }, -60],
    ],
  },
  Calculator: { bias: -3, w: [] },
  'Consensus Solver': { bias: -3, w: [] },
  Critic: { bias: -3.5, w: [] },
  'Debate Panel': { bias: -3.5, w: [] },
  Researcher: { bias: -5, w: [[{ cue: 'masbench' }, -3]] },
  Extractor: { bias: -3.5, w: [] },
  DELETE: { bias: -6, w: [] },
  EXIT: {
    bias: -3,
    w: [
      [{ count: 'Solver' }, 6],
      [{ count: 'Verifier' }, 6],
      [{ graph: 'step' }, 4],
      [{ graph: 'forced' }, 10],
      [{ result: 'agree' }, 3],
      [{ result: 'refused' }, -5],
    ],
  },
};
const NODE_DEFAULT: NodeRule = { bias: -3, w: [] };

/** Edge scoring per chosen role: B[ρ, k] on agent features. */
const EDGE_ROLE: Record<string, [AgentFeature, number][]> = {
  Solver: [
    ['bias', -2],
    [{ flag: 'latest' }, 2.5],
    [{ role: 'Decomposer' }, 1.5],
    [{ role: 'Planner' }, 6.5],
  ],
  Verifier: [
    ['bias', -2],
    [{ flag: 'latest' }, 3],
    [{ flag: 'sink' }, 1],
    [{ role: 'Solver' }, 1],
  ],
  Decomposer: [
    ['bias', -1],
    [{ flag: 'latest' }, 2],
  ],
  Planner: [
    ['bias', -1],
    [{ flag: 'latest' }, 2],
  ],
};
const EDGE_DEFAULT: [AgentFeature, number][] = [
  ['bias', -1],
  [{ flag: 'latest' }, 2.5],
];

/** Edge scoring by the state, shared by all roles: M[s, k] (state feature s raises agent feature k). */
const EDGE_STATE: [StateFeature, AgentFeature, number][] = [
  [{ cue: 'wide' }, { flag: 'latest' }, -4.5],
  [{ cue: 'wide' }, { role: 'Solver' }, -3],
  [{ cue: 'deep' }, { flag: 'latest' }, 1.5],
];

function stateIndex(enc: EncoderConfig, roles: readonly string[], f: StateFeature): number | null {
  if ('cue' in f) return cueOffset(enc) + CUE[f.cue];
  if ('graph' in f) return graphOffset(enc) + GRAPH[f.graph];
  if ('result' in f) return resultOffset(enc) + RESULT[f.result];
  const r = roles.indexOf(f.count);
  return r < 0 ? null : roleCountOffset(enc) + r;
}

function agentIndex(enc: EncoderConfig, roles: readonly string[], f: AgentFeature): number | null {
  if (f === 'bias') return 0;
  if ('flag' in f) return agentFlagOffset(enc) + AGENT[f.flag];
  const r = roles.indexOf(f.role);
  return r < 0 ? null : 1 + r;
}

/**
 * T: the node head's logits are the table's divided by this (see the top of the file). A power of
 * two, so the division is exact and the argmax of every state is the table's.
 */
export const PRIOR_TEMPERATURE = 4;

export interface PriorOptions {
  /** The node head's temperature T > 0 (default PRIOR_TEMPERATURE); 1 gives the table as it is. */
  temperature?: number;
}

/**
 * The prior's linear parameters for a config (roles matched by name; state features the config's
 * encoder version lacks are left out), the node terms divided by the temperature.
 */
export function priorParams(cfg: PolicyConfig, options: PriorOptions = {}): Record<string, Float32Array> {
  const temperature = options.temperature ?? PRIOR_TEMPERATURE;
  if (!(temperature > 0) || !Number.isFinite(temperature))
    throw new Error(`the prior's temperature must be a positive number, not ${temperature}`);
  const enc = encoderConfig(cfg);
  const roles = cfg.roles;
  const shapes = paramShapes(cfg);
  const S = (shapes['node.lin'] as number[])[0] as number;
  const stateAt = (f: StateFeature): number | null => {
    const i = stateIndex(enc, roles, f);
    return i !== null && i < S ? i : null;
  };
  const A = roles.length + 2;
  const Da = agentDim(enc);
  const lin = new Float32Array((shapes['node.lin'] as number[]).reduce((a, b) => a * b, 1));
  const b2 = new Float32Array(A);
  const names = [...roles, 'DELETE', 'EXIT'];
  names.forEach((name, col) => {
    const rule = NODE[name] ?? NODE_DEFAULT;
    b2[col] = rule.bias;
    for (const [f, w] of rule.w) {
      const i = stateAt(f);
      if (i !== null) lin[i * A + col] = (lin[i * A + col] as number) + w;
    }
  });
  const roleLin = new Float32Array(roles.length * Da);
  roles.forEach((name, r) => {
    for (const [f, w] of EDGE_ROLE[name] ?? EDGE_DEFAULT) {
      const k = agentIndex(enc, roles, f);
      if (k !== null) roleLin[r * Da + k] = (roleLin[r * Da + k] as number) + w;
    }
  });
  const stateLin = new Float32Array((shapes['edge.stateLin'] as number[]).reduce((a, b) => a * b, 1));
  for (const [sf, af, w] of EDGE_STATE) {
    const i = stateAt(sf);
    const k = agentIndex(enc, roles, af);
    if (i !== null && k !== null) stateLin[i * Da + k] = (stateLin[i * Da + k] as number) + w;
  }
  for (let i = 0; i < lin.length; i++) lin[i] = (lin[i] as number) / temperature;
  for (let i = 0; i < b2.length; i++) b2[i] = (b2[i] as number) / temperature;
  return { 'node.lin': lin, 'node.b2': b2, 'edge.roleLin': roleLin, 'edge.stateLin': stateLin };
}

/** `prior`: the hand-set linear policy above on top of a seeded (silent) hidden path. */
export function priorCheckpoint(
  pool: RolePool,
  over: Partial<Omit<PolicyConfig, 'roles'>> = {},
  options: PriorOptions = {},
): PolicyCheckpoint {
  const base = randomCheckpoint(pool, 0, over);
  const cfg = policyConfig(pool, over);
  const params = { ...base.params };
  for (const [k, v] of Object.entries(priorParams(cfg, options))) params[k] = Array.from(v);
  params['node.w2'] = new Array<number>(params['node.w2']?.length ?? 0).fill(0);
  params['edge.wo'] = new Array<number>(params['edge.wo']?.length ?? 0).fill(0);
  params['edge.bo'] = [0];
  return { format: POLICY_FORMAT, name: 'prior', config: cfg, roleVersion: pool.version, params };
}
