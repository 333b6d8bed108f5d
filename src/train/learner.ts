/**
 * PPO updates on the compute core. The policy graph (`buildPolicyGraph` with `logProb`) gives the
 * joint log π_θ (node + edges) of each recorded step. The graph's `ppoClip` op computes the
 * PPO-clipped objective and its exact per-step gradient g_i = ∂L/∂log π_θ,i (the formula of
 * objective.ts) on the backend itself, so an update is one step — on WebGPU one submission and one
 * small read-back — minimising
 *   L_graph = Σ_i v_i·L_i(log π_θ,i) + β_H·Σ_i v_i·Σ_a π(a|s_i)·log π(a|s_i)     (v_i = 1/n, 0 on padding)
 * whose parameter gradient is exactly that of the PPO loss minus β_H·(mean node entropy). The
 * entropy bonus covers the node head only; edge entropy is reported, not optimised. The step also
 * reads back log π_θ per step (objective.ts recomputes the reported statistics from it on the host)
 * and the two entropy sums.
 *
 * The graph has a fixed batch of `minibatch` rows (its buffers and pipelines are built once); a
 * short minibatch is padded with rows that allow only EXIT and carry weight 0.
 */
import {
  compile,
  initialParams,
  paramLayout,
  readStep,
  type BackendChoice,
  type Model,
  type Tensor,
} from '../gpu/index.ts';
import { overlapped } from './overlap.ts';
import {
  PackedStates,
  agentDim,
  buildPolicyGraph,
  buildPolicyGraphPair,
  paramShapes,
  encoderConfig,
  fieldsOf,
  graphBlock,
  jpssInputs,
  lazyParams,
  policyCompileOptions,
  trainingBatch,
  type EpisodeSteps,
  type PolicyCheckpoint,
  type PolicyGraph,
  type RolePool,
  type TrainingBatch,
} from '../policy/index.ts';
import type { TrainConfig } from './config.ts';
import { ppoObjective } from './objective.ts';

export interface UpdateStats {
  /** PPO loss + β_KL·KL − β_H·H_node (objective.ts), per step. */
  loss: number;
  kl: number;
  clipFraction: number;
  /** Mean node-head entropy per step (nats). */
  nodeEntropy: number;
  /** Mean over ADD steps of Σ_i Bernoulli entropy of the edge sigmoids (nats). */
  edgeEntropy: number;
  /** Global L2 norm of the parameter gradients before clipping. */
  gradNorm: number;
  ratioMean: number;
  ratioMin: number;
  ratioMax: number;
}

interface Compiled {
  pg: PolicyGraph;
  model: Model;
}

/**
 * Forward-only copies of the graphs at `rows` rows for log π passes over more rows than a
 * minibatch (`Learner.passRows`): the current policy (parameters imported from the training graph
 * when they moved) and the reference.
 */
interface PassGraphs {
  rows: number;
  current: Compiled;
  /** The reference as a graph of its own: when its parameters are shaped unlike the current's. */
  ref: Compiled | null;
  /**
   * Or the reference in `current`'s graph (`buildPolicyGraphPair`): its joint log π there, and the
   * parameter arena that `current`'s model takes (the current half written when it moved).
   */
  pair: { joint: Tensor; arena: Float32Array } | null;
  packed: PackedStates;
  /** The training graph's `version` whose parameters `current` holds. */
  version: number;
}

/** A training graph (with loss and Adam) and, for the KL term, a frozen reference graph. */
export class Learner {
  private constructor(
    readonly checkpoint: PolicyCheckpoint,
    private readonly pool: RolePool,
    private readonly config: TrainConfig,
    private readonly train: Compiled & { stats: Tensor[] },
    private readonly ref: Compiled | null,
    private readonly choice: BackendChoice,
    private readonly reference: PolicyCheckpoint,
  ) {
    const cfg = checkpoint.config;
    const M = config.minibatch;
    this.packed = new PackedStates(encoderConfig(cfg), M, M * cfg.maxAgents, graphBlock(cfg) !== null);
    this.row = new Float32Array(M);
    for (const c of [train, ref]) if (c) this.constants(c.model, M * cfg.maxAgents);
  }

  /**
   * The inputs every graph of this config holds fixed: all-ones vectors, and without JPSS the
   * role-blind edge inputs for `edgeRows` rows (the log-probabilities are then those of the blind
   * edge head that sampled).
   */
  private constants(model: Model, edgeRows: number): void {
    const cfg = this.checkpoint.config;
    model.setInput('ones', new Float32Array(agentDim(encoderConfig(cfg))).fill(1));
    const block = graphBlock(cfg);
    if (block) model.setInput('onesG', new Float32Array(block.hidden).fill(1));
    if (!this.config.jpss)
      for (const [k, v] of Object.entries(jpssInputs(cfg, edgeRows))) model.setInput(k, v);
  }

  /**
   * Rows per log π pass: `oldAndReference` and `logProbs` over more rows than a minibatch run on
   * forward-only copies of the graphs with up to this many rows (a power of two ≥ the batch's rows),
   * so a batch of 358 steps is one pass rather than six of 64 per policy. The numbers are those of
   * minibatch passes, bit for bit (every row's log π is computed from that row alone); a GPU runs
   * far fewer dispatches and round trips. At most `minibatch`: passes of minibatches on the
   * training graph (benchmarks of a minibatch's forward pass set this).
   */
  passRows = 512;

  /** Counts changes of the training graph's parameters (updates, and any use of `model`). */
  private version = 0;
  /** The last parameter arena read (`arena`), and the version it was read at. */
  private lastArena: { version: number; params: Float32Array } | null = null;
  private readonly passGraphs = new Map<number, PassGraphs>();

  /** The minibatch's steps, packed (reused for every minibatch). */
  private readonly packed: PackedStates;
  /** One f32 value per minibatch row, for the update's per-row inputs. */
  private readonly row: Float32Array;
  /** Where each parameter lies in the training graph's arena (`snapshot`; made once). */
  private slices: ParamSlice[] | null = null;

  /**
   * Passes and updates started before the last one's result is awaited (`overlapped`): 2 keeps the
   * device busy while the host packs the next minibatch; 1 awaits each first (benchmarks compare).
   */
  overlap = 2;

  static async create(
    checkpoint: PolicyCheckpoint,
    reference: PolicyCheckpoint,
    pool: RolePool,
    config: TrainConfig,
    choice: BackendChoice,
  ): Promise<Learner> {
    const cfg = checkpoint.config;
    const M = config.minibatch;
    const opts = { batch: M, edgeRows: M * cfg.maxAgents, logProb: true, jpss: config.jpss };
    const pg = buildPolicyGraph(cfg, checkpoint.params, opts);
    const g = pg.graph;
    const vec = (name: string): Tensor => g.input(name, [M]);
    const valid = vec('valid');
    const kl = config.klCoef > 0;
    const data = { old: vec('oldLogp'), advantages: vec('advantages'), weights: valid };
    let loss = g.ppoClip(
      pg.joint as Tensor,
      kl ? { ...data, ref: vec('refLogp') } : data,
      config.clipEps,
      config.klCoef,
    );
    // −(mean node entropy) and −Σ of the edge rows' Bernoulli entropies (s·x − softplus(x) with
    // s = sigmoid(x) is −H), both read back with the update; only the first is optimised.
    const negNodeH = g.sum(g.mul(g.sum(g.mul(pg.probs, pg.logProbs)), valid));
    const edgeTerms = g.bernoulliLogProb(pg.edgeLogits, g.unary('sigmoid', pg.edgeLogits));
    const edgeWeight = g.inputs().find((n) => n.op.kind === 'input' && n.op.name === 'edgeWeight');
    if (!edgeWeight) throw new Error('the policy graph has no edgeWeight input');
    const negEdgeH = g.sum(g.sum(g.mul(edgeTerms, edgeWeight)));
    if (config.entropyCoef > 0) loss = g.add(loss, g.scale(negNodeH, config.entropyCoef));
    const model = await compile(choice, g, {
      loss,
      optimizer: { lr: config.lr, clipNorm: config.gradClip },
      ...policyCompileOptions(cfg),
    });
    let ref: Compiled | null = null;
    if (config.klCoef > 0) {
      const rpg = buildPolicyGraph(reference.config, reference.params, opts);
      ref = {
        pg: rpg,
        model: await compile(choice, rpg.graph, policyCompileOptions(reference.config)),
      };
    }
    return new Learner(
      checkpoint,
      pool,
      config,
      { pg, model, stats: [negNodeH, negEdgeH] },
      ref,
      choice,
      reference,
    );
  }

  /** All steps of the episodes as one batch (rows in episode order). */
  batch(episodes: readonly EpisodeSteps[]): TrainingBatch {
    return trainingBatch(this.checkpoint.config, this.pool, episodes);
  }

  /**
   * Packs rows `pick` of `full` (at most `minibatch`) into the minibatch buffers and writes them to
   * `model`: their agents, links and edges only, so the CPU backend computes no padding.
   */
  private feedRows(model: Model, full: TrainingBatch, pick: readonly number[]): PackedStates {
    const mb = this.packed;
    mb.clear();
    for (const r of pick) mb.copy(full.rows, r);
    mb.feed(model, { targets: true, blind: !this.config.jpss });
    return mb;
  }

  /** log π of every row of `full` under the current (or the reference) parameters. */
  async logProbs(full: TrainingBatch, which: 'current' | 'reference' = 'current'): Promise<Float64Array> {
    if (which === 'reference' && !this.ref) throw new Error('no reference policy (klCoef is 0)');
    const [lp] = await this.passes(full, [which]);
    return lp as Float64Array;
  }

  /**
   * log π of every row of `full` under the current parameters and, with a reference policy (klCoef
   * > 0), under the reference: `logProbs(full)` and `logProbs(full, 'reference')`, with each
   * minibatch of rows packed once for both graphs.
   */
  async oldAndReference(full: TrainingBatch): Promise<{ old: Float64Array; ref: Float64Array | null }> {
    const [old, ref] = await this.passes(full, this.ref ? ['current', 'reference'] : ['current']);
    return { old: old as Float64Array, ref: ref ?? null };
  }

  /**
   * Forward passes of the `which` graphs over consecutive blocks of `full`'s rows (block copies): on
   * the pass graphs of `passRows` rows when the batch is longer than a minibatch, else on the
   * training and reference graphs, a minibatch at a time. A pass graph holding both policies is one
   * model read for both log π; otherwise the graphs are separate models with their own inputs, so
   * each block is fed to all of them and their passes run together. On WebGPU each
   * pass is submitted when called, and the next block is packed and submitted before the last one's
   * log π is awaited (`overlapped`): the host prepares one while the device runs the other. Each
   * pass is pruned to the joint log π (`RunOptions.prune`): the training graph's objective and
   * entropy sums, which it does not read, are not computed.
   */
  private async passes(
    full: TrainingBatch,
    which: readonly ('current' | 'reference')[],
  ): Promise<Float64Array[]> {
    const M = this.config.minibatch;
    let rows = M;
    while (rows < Math.min(full.batch, this.passRows)) rows *= 2;
    // The models to run and which of `which` each one's reads answer, in order.
    let runs: { model: Model; reads: Tensor[]; slots: number[] }[];
    let mb = this.packed;
    const own = (c: Compiled, i: number) => ({ model: c.model, reads: [c.pg.joint as Tensor], slots: [i] });
    if (rows > M) {
      const p = await this.passGraphsOf(Math.min(rows, Math.max(M, this.passRows)));
      rows = p.rows;
      mb = p.packed;
      const pair = p.pair;
      runs = pair
        ? [
            {
              model: p.current.model,
              reads: which.map((w) => (w === 'current' ? (p.current.pg.joint as Tensor) : pair.joint)),
              slots: which.map((_, i) => i),
            },
          ]
        : which.map((w, i) => own(w === 'current' ? p.current : (p.ref as Compiled), i));
    } else runs = which.map((w, i) => own(w === 'current' ? this.train : (this.ref as Compiled), i));
    const out = which.map(() => new Float64Array(full.batch));
    await overlapped(
      Math.ceil(full.batch / rows),
      (i) => {
        const start = i * rows;
        mb.clear();
        mb.copyRange(full.rows, start, Math.min(rows, full.batch - start));
        for (const r of runs) mb.feed(r.model, { targets: true, blind: !this.config.jpss });
        const opts = { backward: false, update: false, prune: true };
        return Promise.all(runs.map(async (r) => (await readStep(r.model, r.reads, opts)).values));
      },
      (lps, i) => {
        const start = i * rows;
        const n = Math.min(rows, full.batch - start);
        for (const [k, values] of lps.entries()) {
          const slots = (runs[k] as (typeof runs)[number]).slots;
          for (const [j, lp] of values.entries()) {
            const dst = out[slots[j] as number] as Float64Array;
            for (let r = 0; r < n; r++) dst[start + r] = (lp as Float32Array)[r] as number;
          }
        }
      },
      this.overlap,
    );
    return out;
  }

  /**
   * The pass graphs of `rows` rows (compiled on first use), holding the current parameters: one
   * graph with both policies when the reference's parameters are shaped as the current's (each
   * pass then packs, uploads and submits its rows once for both), else one graph each.
   */
  private async passGraphsOf(rows: number): Promise<PassGraphs> {
    let p = this.passGraphs.get(rows);
    if (!p) {
      const cfg = this.checkpoint.config;
      const opts = { batch: rows, edgeRows: rows * cfg.maxAgents, logProb: true, jpss: this.config.jpss };
      const compiled = async (pg: PolicyGraph, c: PolicyCheckpoint): Promise<Compiled> => {
        const model = await compile(this.choice, pg.graph, policyCompileOptions(c.config));
        this.constants(model, opts.edgeRows);
        return { pg, model };
      };
      const forward = (c: PolicyCheckpoint): Promise<Compiled> =>
        compiled(buildPolicyGraph(c.config, c.params, opts), c);
      const packed = new PackedStates(encoderConfig(cfg), rows, opts.edgeRows, graphBlock(cfg) !== null);
      // Built from the checkpoint: the training graph's parameters before any update (version 0).
      if (this.ref && sameShapes(this.checkpoint.config, this.reference.config)) {
        const both = buildPolicyGraphPair(cfg, this.checkpoint.params, this.reference.params, opts);
        const current = await compiled(both.pg, this.checkpoint);
        const arena = initialParams(both.pg.graph, paramLayout(both.pg.graph));
        const joint = both.reference.joint as Tensor;
        p = { rows, current, ref: null, pair: { joint, arena }, packed, version: 0 };
      } else {
        const current = await forward(this.checkpoint);
        const ref = this.ref ? await forward(this.reference) : null;
        p = { rows, current, ref, pair: null, packed, version: 0 };
      }
      this.passGraphs.set(rows, p);
    }
    if (p.version !== this.version) {
      const v = this.version;
      const params = this.lastArena?.version === v ? this.lastArena.params : await this.arena();
      // Parameters only: a pass graph has no optimizer. A pair's current half is laid out as the
      // training graph's arena (buildPolicyGraphPair).
      if (p.pair) {
        p.pair.arena.set(params);
        p.current.model.importParams(p.pair.arena);
      } else p.current.model.importParams(params);
      p.version = v;
    }
    return p;
  }

  /**
   * One minibatch update on rows `pick` (at most `minibatch`): forward, the objective and its
   * per-step gradient (`ppoClip`), backward and Adam as one step of the graph. The rows are packed
   * and the step started before this returns, so the caller may start the next update before
   * awaiting this one (loop.ts does, with `overlapped`). With `readArena` the step also reads the
   * parameter arena it leaves (`RunOptions.state`: on WebGPU in its one read-back), and `arena()`
   * then gives it without a read of its own: the last update of an iteration asks for it.
   */
  async update(
    full: TrainingBatch,
    pick: readonly number[],
    oldLogp: Float64Array,
    refLogp: Float64Array | null,
    advantages: Float64Array,
    apply = true,
    readArena = false,
  ): Promise<UpdateStats> {
    const M = this.config.minibatch;
    const { model, pg } = this.train;
    if (apply) this.version++;
    const version = this.version;
    this.feedRows(model, full, pick);
    const n = pick.length;
    const at = <T>(xs: ArrayLike<T>, k: number): T[] =>
      pick.map((r) => xs[r] as T).concat(Array<T>(M - n).fill(xs[k] as T));
    const weights = Array.from({ length: M }, (_, b) => (b < n ? 1 : 0));
    const old = at(oldLogp, 0);
    const ref = refLogp ? at(refLogp, 0) : null;
    const adv = at(advantages, 0);
    // Through one f32 row of M (setInput copies what it is given): no new arrays per update.
    const row = this.row;
    const put = (name: string, xs: readonly number[]): void => {
      row.set(xs);
      model.setInput(name, row);
    };
    put('oldLogp', old);
    if (ref && this.config.klCoef > 0) put('refLogp', ref);
    put('advantages', adv);
    for (let b = 0; b < M; b++) row[b] = (weights[b] as number) / Math.max(1, n);
    model.setInput('valid', row);
    // Forward, objective, backward and Adam in one step; log π_θ and the entropy sums come back with it.
    const [negNodeH, negEdgeH] = this.train.stats as [Tensor, Tensor];
    const read = [pg.joint as Tensor, negNodeH, negEdgeH];
    const {
      values: [joint, nodeSum, edgeSum],
      result: step,
    } = await readStep(model, read, { update: apply, state: readArena });
    // The arena as this step left it: no update awaited after it has moved it (they run in order).
    if (step.state && (this.lastArena?.version ?? -1) <= version)
      this.lastArena = { version, params: step.state.params };
    // The reported statistics, recomputed on the host from the same log π_θ (f64).
    const obj = ppoObjective({
      logp: joint as Float32Array,
      oldLogp: old,
      refLogp: ref,
      advantages: adv,
      weights,
      clipEps: this.config.clipEps,
      klCoef: this.config.klCoef,
    });
    const nodeH = -((nodeSum as Float32Array)[0] as number);
    const edgeH = -((edgeSum as Float32Array)[0] as number) / Math.max(1, n);
    return {
      loss: obj.loss - this.config.entropyCoef * nodeH,
      kl: obj.kl,
      clipFraction: obj.clipFraction,
      nodeEntropy: nodeH,
      edgeEntropy: edgeH,
      gradNorm: step.gradNorm,
      ratioMean: obj.ratioMean,
      ratioMin: obj.ratioMin,
      ratioMax: obj.ratioMax,
    };
  }

  /**
   * The training graph's parameter arena, in one read (on WebGPU one submission for the whole
   * arena, not one per parameter): what `snapshot` slices and the trainer's sampler loads. None
   * when the last update read it (`update`'s `readArena`) and nothing changed the parameters since.
   * Callers do not write into it.
   */
  async arena(): Promise<Float32Array> {
    const version = this.version;
    if (this.lastArena?.version === version) return this.lastArena.params;
    const params = (await this.train.model.exportState()).params;
    this.lastArena = { version, params };
    return params;
  }

  /**
   * The current parameters as a checkpoint (same config and roles as the starting one), sliced from
   * `arena` (read now when not given; one given is kept as it is, so it must not change afterwards).
   */
  async snapshot(
    name: string,
    meta: Record<string, string | number | boolean> = {},
    arena?: Float32Array,
  ): Promise<PolicyCheckpoint> {
    // The arena, turned into per-tensor arrays only when something reads `params` (`lazyParams`):
    // the trainer makes one of these every iteration and its sampler loads the arena. Arenas are not
    // changed once read (`arena` gives a fresh one after every update), so it is kept, not copied.
    const a = arena ?? (await this.arena());
    const slices = (this.slices ??= paramSlices(this.train.pg));
    return lazyParams({ ...fieldsOf(this.checkpoint), name, meta }, () => {
      const params: Record<string, number[]> = {};
      for (const [k, from, to] of slices) params[k] = numbers(a.subarray(from, to));
      return params;
    });
  }

  /**
   * The training graph's model (gradient checks read it; a resumed trainer imports its state). Its
   * parameters may change through it, so the pass graphs take them again before their next pass.
   */
  get model(): Model {
    this.version++;
    return this.train.model;
  }

  get graph(): PolicyGraph {
    return this.train.pg;
  }

  dispose(): void {
    this.train.model.dispose();
    this.ref?.model.dispose();
    for (const p of this.passGraphs.values()) for (const c of [p.current, p.ref]) c?.model.dispose();
    this.passGraphs.clear();
  }
}

/**
 * `Array.from(x)` for a Float32Array: the same numbers, written by index into an array of zeros
 * (several times faster than the iterator for the policy's ~50 K parameters, every iteration).
 */
/** A parameter's name and its words' range in the arena. */
type ParamSlice = readonly [name: string, from: number, to: number];

function paramSlices(pg: PolicyGraph): ParamSlice[] {
  const { offsets } = paramLayout(pg.graph);
  return Object.entries(pg.params).map(([k, t]) => {
    const from = offsets.get(t.id);
    if (from === undefined) throw new Error(`parameter ${k} is not in the arena`);
    return [k, from, from + t.shape.reduce((x, y) => x * y, 1)] as const;
  });
}

function numbers(x: Float32Array): number[] {
  const out = new Array<number>(x.length).fill(0);
  for (let i = 0; i < x.length; i++) out[i] = x[i] as number;
  return out;
}

/** Two configs whose policy graphs have the same parameters, each of the same shape. */
function sameShapes(a: PolicyCheckpoint['config'], b: PolicyCheckpoint['config']): boolean {
  return JSON.stringify(paramShapes(a)) === JSON.stringify(paramShapes(b));
}
