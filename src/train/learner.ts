/**
 * PPO updates on the compute core. The policy graph (`buildPolicyGraph` with `logProb`) gives the
 * joint log π_θ (node + edges) of each recorded step. The clip is a branch the graph cannot
 * express, so the objective and its exact gradient per step, g_i = ∂L/∂log π_θ,i, are computed in
 * TypeScript (objective.ts) from a forward pass, and the graph minimises
 *   L_graph = Σ_i g_i·log π_θ,i + β_H·Σ_i v_i·Σ_a π(a|s_i)·log π(a|s_i)     (v_i = 1/n, 0 on padding)
 * whose parameter gradient is exactly that of the PPO loss minus β_H·(mean node entropy). The
 * entropy bonus covers the node head only; edge entropy is reported, not optimised.
 *
 * The graph has a fixed batch of `minibatch` rows (its buffers and pipelines are built once); a
 * short minibatch is padded with rows that allow only EXIT and carry weight 0.
 */
import { compile, type BackendChoice, type Model, type Tensor } from '../gpu/index.ts';
import {
  PackedStates,
  agentDim,
  buildPolicyGraph,
  encoderConfig,
  graphBlock,
  jpssInputs,
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

/** A training graph (with loss and Adam) and, for the KL term, a frozen reference graph. */
export class Learner {
  private constructor(
    readonly checkpoint: PolicyCheckpoint,
    private readonly pool: RolePool,
    private readonly config: TrainConfig,
    private readonly train: Compiled & { coef: Tensor; valid: Tensor },
    private readonly ref: Compiled | null,
  ) {
    const cfg = checkpoint.config;
    const M = config.minibatch;
    this.packed = new PackedStates(encoderConfig(cfg), M, M * cfg.maxAgents, graphBlock(cfg) !== null);
    for (const c of [train, ref]) {
      if (!c) continue;
      c.model.setInput('ones', new Float32Array(agentDim(encoderConfig(cfg))).fill(1));
      const block = graphBlock(cfg);
      if (block) c.model.setInput('onesG', new Float32Array(block.hidden).fill(1));
    }
  }

  /** The minibatch's steps, packed (reused for every minibatch). */
  private readonly packed: PackedStates;

  static async create(
    checkpoint: PolicyCheckpoint,
    reference: PolicyCheckpoint,
    pool: RolePool,
    config: TrainConfig,
    choice: BackendChoice,
  ): Promise<Learner> {
    const cfg = checkpoint.config;
    const M = config.minibatch;
    // jpss off ("w/o JPSS"): the log-probabilities are those of the role-blind edge head that sampled.
    const opts = { batch: M, edgeRows: M * cfg.maxAgents, logProb: true, jpss: config.jpss };
    const blind = (model: Model, c: PolicyCheckpoint['config']): Model => {
      if (!config.jpss)
        for (const [k, v] of Object.entries(jpssInputs(c, opts.edgeRows))) model.setInput(k, v);
      return model;
    };
    const pg = buildPolicyGraph(cfg, checkpoint.params, opts);
    const g = pg.graph;
    const coef = g.input('coef', [M]);
    const valid = g.input('valid', [M]);
    let loss = g.sum(g.mul(pg.joint as Tensor, coef));
    if (config.entropyCoef > 0) {
      const negH = g.sum(g.mul(pg.probs, pg.logProbs));
      loss = g.add(loss, g.scale(g.sum(g.mul(negH, valid)), config.entropyCoef));
    }
    const model = blind(
      await compile(choice, g, {
        loss,
        optimizer: { lr: config.lr, clipNorm: config.gradClip },
        ...policyCompileOptions(cfg),
      }),
      cfg,
    );
    let ref: Compiled | null = null;
    if (config.klCoef > 0) {
      const rpg = buildPolicyGraph(reference.config, reference.params, opts);
      ref = {
        pg: rpg,
        model: blind(
          await compile(choice, rpg.graph, policyCompileOptions(reference.config)),
          reference.config,
        ),
      };
    }
    return new Learner(checkpoint, pool, config, { pg, model, coef, valid }, ref);
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
    const c = which === 'current' ? this.train : this.ref;
    if (!c) throw new Error('no reference policy (klCoef is 0)');
    const M = this.config.minibatch;
    const out = new Float64Array(full.batch);
    for (let start = 0; start < full.batch; start += M) {
      const pick = Array.from({ length: Math.min(M, full.batch - start) }, (_, i) => start + i);
      this.feedRows(c.model, full, pick);
      if (c === this.train) this.zeroLoss();
      await c.model.step({ backward: false, update: false });
      const lp = await c.model.read(c.pg.joint as Tensor);
      pick.forEach((_, i) => (out[start + i] = lp[i] as number));
    }
    return out;
  }

  private zeroLoss(): void {
    const M = this.config.minibatch;
    this.train.model.setInput('coef', new Float32Array(M));
    this.train.model.setInput('valid', new Float32Array(M));
  }

  /**
   * One minibatch update on rows `pick` (at most `minibatch`): forward, the objective and its
   * per-step gradient in TypeScript, then backward and Adam through the graph.
   */
  async update(
    full: TrainingBatch,
    pick: readonly number[],
    oldLogp: Float64Array,
    refLogp: Float64Array | null,
    advantages: Float64Array,
    apply = true,
  ): Promise<UpdateStats> {
    const M = this.config.minibatch;
    const cfg = this.checkpoint.config;
    const A = cfg.roles.length + 2;
    const { model, pg } = this.train;
    const mb = this.feedRows(model, full, pick);
    this.zeroLoss();
    await model.step({ backward: false, update: false });
    const [joint, probs, logProbs, edgeLogits] = await Promise.all([
      model.read(pg.joint as Tensor),
      model.read(pg.probs),
      model.read(pg.logProbs),
      model.read(pg.edgeLogits),
    ]);
    const n = pick.length;
    const at = <T>(xs: ArrayLike<T>, k: number): T[] =>
      pick.map((r) => xs[r] as T).concat(Array<T>(M - n).fill(xs[k] as T));
    const weights = Array.from({ length: M }, (_, b) => (b < n ? 1 : 0));
    const obj = ppoObjective({
      logp: joint,
      oldLogp: at(oldLogp, 0),
      refLogp: refLogp ? at(refLogp, 0) : null,
      advantages: at(advantages, 0),
      weights,
      clipEps: this.config.clipEps,
      klCoef: this.config.klCoef,
    });
    let nodeH = 0;
    let edgeH = 0;
    for (let b = 0; b < n; b++) {
      for (let a = 0; a < A; a++) {
        const p = probs[b * A + a] as number;
        if (p > 0) nodeH -= p * (logProbs[b * A + a] as number);
      }
      // The edge rows of an ADD step (its existing agents), in agent order.
      const e0 = mb.firstEdge[b] as number;
      for (let e = e0; e < e0 + (mb.edgeCount[b] as number); e++) {
        if ((mb.edgeWeight[e] as number) === 0) continue;
        const s = 1 / (1 + Math.exp(-(edgeLogits[e] as number)));
        if (s > 0 && s < 1) edgeH -= s * Math.log(s) + (1 - s) * Math.log(1 - s);
      }
    }
    nodeH /= Math.max(1, n);
    edgeH /= Math.max(1, n);
    // Only the loss weights change: the CPU backend reruns just the loss's nodes before the
    // backward pass, not the network (its forward reuse, src/gpu/cpu/model.ts).
    model.setInput('coef', Float32Array.from(obj.grad));
    model.setInput(
      'valid',
      Float32Array.from(weights, (w) => w / Math.max(1, n)),
    );
    const step = await model.step({ update: apply });
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

  /** The current parameters as a checkpoint (same config and roles as the starting one). */
  async snapshot(
    name: string,
    meta: Record<string, string | number | boolean> = {},
  ): Promise<PolicyCheckpoint> {
    const params: Record<string, number[]> = {};
    for (const [k, t] of Object.entries(this.train.pg.params))
      params[k] = Array.from(await this.train.model.read(t));
    return { ...this.checkpoint, name, params, meta };
  }

  /** The training graph's model (gradient checks read it). */
  get model(): Model {
    return this.train.model;
  }

  get graph(): PolicyGraph {
    return this.train.pg;
  }

  dispose(): void {
    this.train.model.dispose();
    this.ref?.model.dispose();
  }
}
