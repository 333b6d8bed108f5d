/**
 * The JPSS policy network on the compute core (src/gpu).
 *
 * Graph encoder (encoder version 3; message passing over the construction graph, L layers):
 *   x_i⁰ = a_i                                                       [B·N, Da]
 *   x_iˡ = tanh(x_iˡ⁻¹·S_l + mean_{j→i} x_jˡ⁻¹·I_l + mean_{i→k} x_kˡ⁻¹·O_l + c_l)   [B·N, G]
 *          (j → i: i reads j; the means are over the links of i and over the readers of i)
 *   g_b = mean_i x_iᴸ,  q_b = mean_{i sink} x_iᴸ                      [B, G]   (readouts)
 * Node head (π_θ, one row per state b):
 *   h = tanh(s·W1 + g·Wgm + q·Wgs + b1)                  [B, H]
 *   logits = h·W2 + s·L + b2                             [B, A]   (L: linear skip on the features)
 *   π_node = masked softmax(logits), log π_node = masked log-softmax(logits)
 * Edge head (π_φ, one row e per (state b, chosen role ρ, existing agent i)):
 *   z_e = tanh(a_i·Wa + (h_b·Ws) + E[ρ] + x_iᴸ·Wh + ba)  [E, H]   (E: role embedding)
 *   ℓ_e = z_e·wo + Σ_k a_ik·(B[ρ, k] + (s_b·M)[k]) + bo   [E, 1]   (B, M: linear agent scoring)
 *   π_edge(link i) = σ(ℓ_e)
 * Joint log-probability of a step: log π_node(a) + Σ_i [edge i exists]·log Bernoulli(y_i | σ(ℓ_i)).
 *
 * The linear terms (L, B, M) act on the interpretable features of encoder.ts; the built-in `prior`
 * checkpoint is written entirely in them (hidden-path outputs W2, wo start at 0), so it runs on the
 * same graph, on CPU or WebGPU, and can be fine-tuned like any other checkpoint.
 *
 * Two ways to run the edge head at inference (`EdgeMode`):
 * - `fused`: the edge head for every role runs in the same forward pass as the node head (E = R·N
 *   rows), so a step is one `step()` and one read-back, and a user-chosen role costs nothing more.
 *   The default on WebGPU, where a pass costs a queue submission and a mapAsync round trip.
 * - `two-pass`: the first pass gives the node distribution; after the choice, a second pass runs the
 *   edge head for that role only (E = N rows). The default on the CPU, where the fused pass's
 *   R× larger edge head costs more than a second pass (measured in docs/benchmarks.md, "Policy").
 *
 * Over 400 lines because the graph, its parameter layout and the network that runs it change
 * together (a new parameter touches all three); the `random` checkpoint is the layout's initialiser.
 */
import { createRng, type Rng } from '../core/rng.ts';
import {
  Graph,
  compile,
  init,
  readStep,
  type BackendChoice,
  type DType,
  type Model,
  type Shape,
  type Tensor,
} from '../gpu/index.ts';
import {
  GRAPH_DEFAULTS,
  POLICY_FORMAT,
  encoderVersion,
  graphBlock,
  migrateCheckpoint,
  paramShapes,
  type PolicyCheckpoint,
  type PolicyConfig,
} from './checkpoint.ts';
import { ENCODER_VERSION, agentDim, stateDimFor, type EncoderConfig, type TaskEncoding } from './encoder.ts';
import { maxLinks, type GraphInputs } from './links.ts';
import { PackedStates } from './pack.ts';
import type { ConstructionState } from './construction.ts';
import { actionMask } from './construction.ts';
import type { RolePool } from './roles.ts';

export const DEFAULT_CONFIG = { hashDim: 256, hidden: 64, maxAgents: 12, maxSteps: 16 } as const;

/** A config for a pool in the current encoder layout (`over` may name another, e.g. for tests). */
export function policyConfig(pool: RolePool, over: Partial<Omit<PolicyConfig, 'roles'>> = {}): PolicyConfig {
  return {
    ...DEFAULT_CONFIG,
    encoder: ENCODER_VERSION,
    graphHidden: GRAPH_DEFAULTS.hidden,
    graphLayers: GRAPH_DEFAULTS.layers,
    ...over,
    roles: pool.roles.map((r) => r.name),
  };
}

export function encoderConfig(cfg: PolicyConfig): EncoderConfig {
  return { hashDim: cfg.hashDim, maxAgents: cfg.maxAgents, maxSteps: cfg.maxSteps, roles: cfg.roles.length };
}

// ---------------------------------------------------------------- graph

export interface PolicyGraphOptions {
  /** States per pass (B). */
  batch: number;
  /** Edge rows per pass (E): R·N for inference over every role, B·N for a training batch. */
  edgeRows: number;
  /** Also build the joint log-probability of taken actions (inputs `action`, `edgeTarget`, `edgeWeight`). */
  logProb?: boolean;
  /**
   * JPSS (default true): the edge head reads the chosen role ρ (E[ρ], B[ρ, ·]). False is the
   * "w/o JPSS" ablation: every edge row reads the mean role embedding and the mean role scoring
   * instead, (1/R)·Σ_ρ E[ρ] and (1/R)·Σ_ρ B[ρ, ·], so edges are sampled independently of the role
   * (inputs `roleMean` [1, R] = 1/R and `edgeZero` [E] u32 = 0, from `jpssInputs`).
   */
  jpss?: boolean;
}

/** The inputs a graph built with `jpss: false` needs (set once; no other input changes them). */
export function jpssInputs(cfg: PolicyConfig, edgeRows: number): Record<string, Float32Array | Uint32Array> {
  const R = cfg.roles.length;
  return { roleMean: new Float32Array(R).fill(1 / R), edgeZero: new Uint32Array(edgeRows) };
}

export interface PolicyGraph {
  graph: Graph;
  /** π_node [B, A]. */
  probs: Tensor;
  /** log π_node [B, A] (MASKED_LOG_PROB where masked). */
  logProbs: Tensor;
  /** Edge logits ℓ [E, 1]. */
  edgeLogits: Tensor;
  /** Joint log-probability per state [B], when `logProb` was asked for. */
  joint: Tensor | null;
  params: Record<string, Tensor>;
}

/**
 * The graph for a config in its own encoder version's layout (S = `stateDimFor(enc, version)`);
 * `PolicyNetwork` migrates a checkpoint to the current version before it builds one.
 *
 * Inputs: `state` [B, S], `mask` [B, A], `agents` [B·N, Da], `edgeAgent` / `edgeRole` / `edgeBatch`
 * [E] u32 (which agent row, role and state each edge row is about), `ones` [Da, 1] (all 1: sums a
 * row with a matmul, the core has no reshape). With `logProb`: `action` [B] u32, `edgeTarget` [E, 1]
 * (1 = linked), `edgeWeight` [E, 1] (1 for rows that exist and belong to an ADD step, else 0).
 * From encoder version 3 also the links (`GraphInputs`, M = maxLinks per state): `msgFrom`,
 * `msgTo` [B·M] u32, `inWeight`, `outWeight` [B·M, 1], `readMean`, `readSink` [B·N, 1],
 * `agentBatch` [B·N] u32, and `onesG` [1, G] (all 1: turns a weight column into a [·, G] matrix).
 */
export function buildPolicyGraph(
  cfg: PolicyConfig,
  values: Record<string, ArrayLike<number>>,
  opts: PolicyGraphOptions,
): PolicyGraph {
  const g = new Graph();
  return { graph: g, ...policyHeads(g, sharedInputs(g), cfg, values, opts, '') };
}

/** A policy graph's heads and parameters, without the graph they are in. */
export type PolicyHeads = Omit<PolicyGraph, 'graph'>;

/**
 * Two policies of one config in one graph over the same inputs (`logProb` graphs for the log π
 * passes of the learner, which runs the current policy and the frozen reference over the same
 * rows): `current`'s parameters under their own names, first, so that the first half of the
 * parameter arena is laid out as `buildPolicyGraph`'s arena of the same config; `reference`'s
 * under `reference.`-prefixed names after them. Each policy's ops are those of its own graph, so
 * every value has the bits it has there; the inputs (and the link weights made from them) are
 * set, packed and uploaded once for both.
 */
export function buildPolicyGraphPair(
  cfg: PolicyConfig,
  current: Record<string, ArrayLike<number>>,
  reference: Record<string, ArrayLike<number>>,
  opts: PolicyGraphOptions,
): { pg: PolicyGraph; reference: PolicyHeads } {
  const g = new Graph();
  const inputs = sharedInputs(g);
  const pg = { graph: g, ...policyHeads(g, inputs, cfg, current, opts, '') };
  return { pg, reference: policyHeads(g, inputs, cfg, reference, opts, 'reference.') };
}

/** Inputs by name, each made once in `g` (and the weight columns widened from them, `wide`). */
interface SharedInputs {
  input(name: string, shape: Shape, dtype?: DType): Tensor;
  once(name: string, make: () => Tensor): Tensor;
}

function sharedInputs(g: Graph): SharedInputs {
  const made = new Map<string, Tensor>();
  const once = (name: string, make: () => Tensor): Tensor => {
    let t = made.get(name);
    if (!t) {
      t = make();
      made.set(name, t);
    }
    return t;
  };
  return {
    input: (name, shape, dtype) => once(name, () => g.input(name, shape, dtype)),
    once,
  };
}

/** The network's parameters (named with `prefix`) and heads in `g`, over `inputs`. */
function policyHeads(
  g: Graph,
  inputs: SharedInputs,
  cfg: PolicyConfig,
  values: Record<string, ArrayLike<number>>,
  opts: PolicyGraphOptions,
  prefix: string,
): PolicyHeads {
  const enc = encoderConfig(cfg);
  const S = stateDimFor(enc, encoderVersion(cfg));
  const Da = agentDim(enc);
  const A = cfg.roles.length + 2;
  const B = opts.batch;
  const E = opts.edgeRows;
  const params: Record<string, Tensor> = {};
  for (const [name, shape] of Object.entries(paramShapes(cfg))) {
    const v = values[name];
    if (!v) throw new Error(`missing parameter ${name}`);
    params[name] = g.param(prefix + name, shape, Float32Array.from(v));
  }
  const p = (name: string): Tensor => params[name] as Tensor;
  const state = inputs.input('state', [B, S]);
  const mask = inputs.input('mask', [B, A]);
  const agents = inputs.input('agents', [B * cfg.maxAgents, Da]);
  const edgeAgent = inputs.input('edgeAgent', [E], 'u32');
  const edgeRole = inputs.input('edgeRole', [E], 'u32');
  const edgeBatch = inputs.input('edgeBatch', [E], 'u32');
  const ones = inputs.input('ones', [Da, 1]);

  const block = graphBlock(cfg);
  let graph: { nodes: Tensor; mean: Tensor; sink: Tensor } | null = null;
  if (block) {
    const BN = B * cfg.maxAgents;
    const M = B * maxLinks(enc);
    const from = inputs.input('msgFrom', [M], 'u32');
    const to = inputs.input('msgTo', [M], 'u32');
    const onesG = inputs.input('onesG', [1, block.hidden]);
    // A weight column [K, 1] as a [K, G] matrix, since the core's binary ops do not broadcast.
    const wide = (name: string, rows: number): Tensor =>
      inputs.once(`wide ${name}`, () => g.matmul(inputs.input(name, [rows, 1]), onesG));
    const inW = wide('inWeight', M);
    const outW = wide('outWeight', M);
    const readMean = wide('readMean', BN);
    const readSink = wide('readSink', BN);
    const agentBatch = inputs.input('agentBatch', [BN], 'u32');
    let x = agents;
    for (let l = 1; l <= block.layers; l++) {
      // Messages along each link j → k: k hears j through I_l, j hears k through O_l; unused
      // slots have weight 0. Summing weighted messages per agent gives the means.
      const fromReads = g.scatterAddRows(
        g.mul(g.gatherRows(g.matmul(x, p(`gnn.in${l}`)), from), inW),
        to,
        BN,
      );
      const fromReaders = g.scatterAddRows(
        g.mul(g.gatherRows(g.matmul(x, p(`gnn.out${l}`)), to), outW),
        from,
        BN,
      );
      x = g.biasAct(
        g.add(g.add(g.matmul(x, p(`gnn.self${l}`)), fromReads), fromReaders),
        p(`gnn.b${l}`),
        'tanh',
      );
    }
    graph = {
      nodes: x,
      mean: g.scatterAddRows(g.mul(x, readMean), agentBatch, B),
      sink: g.scatterAddRows(g.mul(x, readSink), agentBatch, B),
    };
  }

  // Terms are added in the order of the versions that introduced them, so that zero weights of a
  // migrated checkpoint leave every earlier sum bit for bit as it was.
  let hPre = g.matmul(state, p('node.w1'));
  if (graph)
    hPre = g.add(g.add(hPre, g.matmul(graph.mean, p('node.wgm'))), g.matmul(graph.sink, p('node.wgs')));
  const h = g.biasAct(hPre, p('node.b1'), 'tanh');
  const logits = g.biasAct(
    g.add(g.matmul(h, p('node.w2')), g.matmul(state, p('node.lin'))),
    p('node.b2'),
    'none',
  );
  const probs = g.softmax(logits, mask);
  const logProbs = g.logSoftmax(logits, mask);

  const hs = g.matmul(h, p('edge.ws'));
  const za = g.matmul(agents, p('edge.wa'));
  // The chosen role's rows of a role table, or (w/o JPSS) the table's mean row on every edge row.
  const roleTerm = (() => {
    if (opts.jpss !== false) return (name: string): Tensor => g.gatherRows(p(name), edgeRole);
    const mean = inputs.input('roleMean', [1, cfg.roles.length]);
    const zero = inputs.input('edgeZero', [E], 'u32');
    return (name: string): Tensor => g.gatherRows(g.matmul(mean, p(name)), zero);
  })();
  let pre = g.add(g.add(g.gatherRows(za, edgeAgent), g.gatherRows(hs, edgeBatch)), roleTerm('edge.role'));
  if (graph) pre = g.add(pre, g.gatherRows(g.matmul(graph.nodes, p('edge.wh')), edgeAgent));
  const z = g.biasAct(pre, p('edge.ba'), 'tanh');
  const sm = g.matmul(state, p('edge.stateLin'));
  const coef = g.add(roleTerm('edge.roleLin'), g.gatherRows(sm, edgeBatch));
  const lin = g.matmul(g.mul(coef, g.gatherRows(agents, edgeAgent)), ones);
  const edgeLogits = g.biasAct(g.add(g.matmul(z, p('edge.wo')), lin), p('edge.bo'), 'none');

  let joint: Tensor | null = null;
  if (opts.logProb) {
    const action = inputs.input('action', [B], 'u32');
    const target = inputs.input('edgeTarget', [E, 1]);
    const weight = inputs.input('edgeWeight', [E, 1]);
    const bern = g.mul(g.bernoulliLogProb(edgeLogits, target), weight);
    joint = g.add(g.pick(logProbs, action), g.sum(g.scatterAddRows(bern, edgeBatch, B)));
  }
  return { probs, logProbs, edgeLogits, joint, params };
}

/**
 * Compile options for a policy graph: the state rows of one task share the hashed query (the first
 * `hashDim` features), so the CPU backend sums s·W over it once per task (`sharedPrefix`).
 */
export function policyCompileOptions(cfg: PolicyConfig): { sharedPrefix: Record<string, number> } {
  return { sharedPrefix: { state: cfg.hashDim } };
}

/** Feeds the per-state link inputs of the graph encoder (`agentBatch` and `onesG` are set once). */
export function setGraphInputs(
  model: { setInput(name: string, data: Float32Array | Uint32Array): void },
  gi: GraphInputs,
): void {
  model.setInput('msgFrom', gi.msgFrom);
  model.setInput('msgTo', gi.msgTo);
  model.setInput('inWeight', gi.inWeight);
  model.setInput('outWeight', gi.outWeight);
  model.setInput('readMean', gi.readMean);
  model.setInput('readSink', gi.readSink);
}

// ---------------------------------------------------------------- built-in checkpoints

function emptyParams(cfg: PolicyConfig): Record<string, Float32Array> {
  const out: Record<string, Float32Array> = {};
  for (const [name, shape] of Object.entries(paramShapes(cfg)))
    out[name] = new Float32Array(shape.reduce((a, b) => a * b, 1));
  return out;
}

/** Glorot-uniform weight matrices, zero biases, small uniform (±0.05) linear terms; seeded. */
function randomParams(cfg: PolicyConfig, rng: Rng): Record<string, Float32Array> {
  const out = emptyParams(cfg);
  for (const [name, shape] of Object.entries(paramShapes(cfg))) {
    if (shape.length !== 2) continue;
    const [fanIn, fanOut] = shape as [number, number];
    out[name] =
      name.endsWith('Lin') || name === 'node.lin'
        ? init.uniform(rng, fanIn * fanOut, 0.05)
        : name === 'edge.role'
          ? init.uniform(rng, fanIn * fanOut, 0.5)
          : init.glorot(rng, fanIn, fanOut);
  }
  return out;
}

const toRecord = (p: Record<string, Float32Array>): Record<string, number[]> =>
  Object.fromEntries(Object.entries(p).map(([k, v]) => [k, Array.from(v)]));

/** `random`: every parameter from a seeded initialiser (an untrained policy). */
export function randomCheckpoint(
  pool: RolePool,
  seed = 0,
  over: Partial<Omit<PolicyConfig, 'roles'>> = {},
): PolicyCheckpoint {
  const config = policyConfig(pool, over);
  return {
    format: POLICY_FORMAT,
    name: `random:${seed}`,
    config,
    roleVersion: pool.version,
    params: toRecord(randomParams(config, createRng(seed))),
  };
}

// ---------------------------------------------------------------- runtime

/** What one forward pass gives for a state. */
export interface Evaluation {
  /** Action mask in head order (1 allowed, 0 masked). */
  mask: Float32Array;
  /** π_node over roles ∪ {DELETE, EXIT}; exactly 0 where masked. */
  probs: Float32Array;
  /**
   * Edge logits ℓ for role ρ over the existing agents (state order). In `two-pass` mode this runs
   * the second pass; call it before the next `evaluate` on the same network.
   */
  edges: (role: number) => Promise<Float32Array>;
}

export type EdgeMode = 'fused' | 'two-pass';

export interface NetworkOptions {
  /** Default: `fused` on WebGPU, `two-pass` on the CPU. */
  edgeMode?: EdgeMode;
  /** False: the "w/o JPSS" ablation, edge probabilities independent of the role (`PolicyGraphOptions`). */
  jpss?: boolean;
}

/**
 * A compiled policy: encode a state, run the forward pass(es), read back the distributions. One
 * model per network holds the inputs, so evaluate one state at a time (await each step).
 */
export class PolicyNetwork {
  readonly backend: 'cpu' | 'wasm' | 'webgpu';
  readonly enc: EncoderConfig;
  private readonly model: Model;
  private readonly pg: PolicyGraph;
  /** The state being evaluated, packed (pack.ts), with its edge rows. */
  private readonly packed: PackedStates;

  private constructor(
    readonly checkpoint: PolicyCheckpoint,
    readonly edgeMode: EdgeMode,
    pg: PolicyGraph,
    model: Model,
    /** False: built for the "w/o JPSS" ablation. */
    readonly jpss = true,
  ) {
    const cfg = checkpoint.config;
    this.enc = encoderConfig(cfg);
    const R = edgeMode === 'fused' ? cfg.roles.length : 1;
    this.pg = pg;
    this.model = model;
    this.backend = this.model.backend;
    // Edge rows: ρ·n + i for agent i under role ρ (fused), or i under the chosen role (two-pass).
    this.packed = new PackedStates(this.enc, 1, R * cfg.maxAgents, graphBlock(cfg) !== null);
    this.model.setInput('ones', new Float32Array(agentDim(this.enc)).fill(1));
    const block = graphBlock(cfg);
    if (block) this.model.setInput('onesG', new Float32Array(block.hidden).fill(1));
  }

  /**
   * Compiles a checkpoint on the chosen backend (see `chooseBackend` in src/gpu). The WebGPU backend
   * is loaded only when chosen, so CPU-only callers never load the kernels. A checkpoint of an older
   * encoder version is migrated first (`migrateCheckpoint`); `checkpoint` is then the migrated one.
   */
  static async create(
    original: PolicyCheckpoint,
    choice: BackendChoice,
    opts: NetworkOptions = {},
  ): Promise<PolicyNetwork> {
    const checkpoint = migrateCheckpoint(original);
    const cfg = checkpoint.config;
    const mode = opts.edgeMode ?? (choice.backend === 'webgpu' ? 'fused' : 'two-pass');
    const rows = (mode === 'fused' ? cfg.roles.length : 1) * cfg.maxAgents;
    // A checkpoint trained without JPSS says so in meta.jpss; an explicit option wins.
    const jpss = (opts.jpss ?? checkpoint.meta?.jpss) !== false;
    const pg = buildPolicyGraph(cfg, checkpoint.params, { batch: 1, edgeRows: rows, jpss });
    const model = await compile(choice, pg.graph, policyCompileOptions(cfg));
    if (!jpss) for (const [k, v] of Object.entries(jpssInputs(cfg, rows))) model.setInput(k, v);
    return new PolicyNetwork(checkpoint, mode, pg, model, jpss);
  }

  /** The CPU backend without asking for an adapter (tests, benchmarks, Node). */
  static cpu(checkpoint: PolicyCheckpoint, opts: NetworkOptions = {}): Promise<PolicyNetwork> {
    const choice = { backend: 'cpu', reason: 'CPU backend forced', adapter: null, ctx: null } as const;
    return PolicyNetwork.create(checkpoint, choice, opts);
  }

  get name(): string {
    return this.checkpoint.name;
  }

  async evaluate(task: TaskEncoding, state: ConstructionState): Promise<Evaluation> {
    const mask = actionMask(state);
    const p = this.packed;
    const feed = { blind: !this.jpss };
    p.clear();
    p.add(task, state);
    const n = p.agentCount[0] as number;
    if (this.edgeMode === 'fused') {
      for (let r = 0; r < this.enc.roles; r++) p.addEdges(0, r);
      p.feed(this.model, feed);
      // Both heads in one step and one read-back; log π is taken on the host from the recorded p.
      const [probs, logits] = (
        await readStep(this.model, [this.pg.probs, this.pg.edgeLogits], { prune: true })
      ).values as [Float32Array, Float32Array];
      const edges = (role: number): Promise<Float32Array> =>
        Promise.resolve(logits.slice(role * n, role * n + n));
      return { mask, probs, edges };
    }
    // The node pass computes no edge rows; the edge pass changes only them, so the CPU backend
    // reruns the edge head alone (its forward reuse).
    p.feed(this.model, feed);
    const [probs] = (await readStep(this.model, [this.pg.probs], { prune: true })).values as [Float32Array];
    const edges = async (role: number): Promise<Float32Array> => {
      if (!Number.isInteger(role) || role < 0 || role >= this.enc.roles)
        throw new Error(`no role with index ${role}`);
      if (n === 0) return new Float32Array(0);
      p.clearEdges();
      p.addEdges(0, role);
      p.feed(this.model, feed);
      const [logits] = (await readStep(this.model, [this.pg.edgeLogits], { prune: true })).values as [
        Float32Array,
      ];
      return logits.slice(0, n);
    };
    return { mask, probs, edges };
  }

  dispose(): void {
    this.model.dispose();
  }
}
