/**
 * PPO-clip updates of the orchestrator LM on the compute core (docs/train.md, "Training the
 * orchestrator LM"). The training graph is the LM's own (src/lm/graph.ts) over a fixed window of
 * `minibatch` sequences × nPositions, extended with the masked next-token log-probability of each
 * position:
 *   lp_t = log softmax(logits_t/τ, mask_t)[target_t]
 * where mask_t is the allowed-token mask constrained decoding used when the token was sampled
 * (sampler.ts), so the learner scores exactly the distribution that was sampled from. With the
 * per-token gradient g_t = ∂L/∂lp_t of the PPO objective (objective.ts: clipped ratio, k3 KL to
 * the SFT reference), computed in TypeScript from a forward pass, the graph minimises
 *   L_graph = Σ_t g_t·lp_t + β_H·Σ_t v_t·Σ_a p_t(a)·log p_t(a)        (v_t = 1/n on trained tokens)
 * whose parameter gradient is that of the PPO loss minus β_H·(mean masked entropy). Only sampled
 * tokens with a choice count (n of them, token-mean): prompt positions, padding and forced tokens
 * (one allowed token: log-probability 0 whatever θ) get g_t = v_t = 0, hence no gradient.
 */
import { compile, type BackendChoice, type Model, type Tensor, type TrainState } from '../gpu/index.ts';
import { buildTinyGptGraph, weightsOf, type TinyGptGraph, type TinyGptWeights } from '../lm/index.ts';
import { ppoObjective } from './objective.ts';
import type { OrchestratorTrainConfig } from './orchestrator-config.ts';

/** What the learner needs of one sampled design (a `Sample`, or a hand-made one in tests). */
export interface ScoredSequence {
  prompt: readonly number[];
  tokens: readonly number[];
  forced: ArrayLike<number>;
  masks: readonly Int32Array[];
}

export interface OrchestratorUpdateStats {
  /** PPO loss + β_KL·KL − β_H·H, per trained token. */
  loss: number;
  /** Mean k3 estimate of KL(π_θ ‖ π_SFT) per trained token (nats). */
  kl: number;
  clipFraction: number;
  /** Mean entropy of the masked next-token distribution per trained token (nats). */
  entropy: number;
  gradNorm: number;
  ratioMean: number;
  /** Tokens with a choice in this minibatch. */
  tokens: number;
}

interface Compiled {
  tg: TinyGptGraph;
  model: Model;
  logp: Tensor;
}

/** The window's inputs for sequences `rows` (padded to `batch` rows). */
export function windowFor(
  seqs: readonly ScoredSequence[],
  batch: number,
  seq: number,
  vocab: number,
): {
  ids: Uint32Array;
  positions: Uint32Array;
  targets: Uint32Array;
  mask: Float32Array;
  /** 1 at a generated token with a choice. */
  trained: Float32Array;
  /** Row index of generated token k of sequence b: index[b][k]. */
  index: number[][];
} {
  const n = batch * seq;
  const ids = new Uint32Array(n);
  const positions = new Uint32Array(n);
  const targets = new Uint32Array(n);
  const mask = new Float32Array(n * vocab).fill(1);
  const trained = new Float32Array(n);
  for (let r = 0; r < n; r++) positions[r] = r % seq;
  const index = seqs.map((s, b) => {
    const all = [...s.prompt, ...s.tokens];
    if (all.length - 1 > seq)
      throw new Error(`a sequence of ${all.length} tokens exceeds the window of ${seq}`);
    for (let t = 0; t < all.length - 1 && t < seq; t++) {
      ids[b * seq + t] = all[t] as number;
      targets[b * seq + t] = all[t + 1] as number;
    }
    return s.tokens.map((_, k) => {
      const r = b * seq + s.prompt.length - 1 + k;
      const m = s.masks[k] as Int32Array;
      for (let v = 0; v < vocab; v++)
        mask[r * vocab + v] = (((m[v >>> 5] as number) >>> (v & 31)) & 1) === 1 ? 1 : 0;
      trained[r] = (s.forced[k] as number) === 1 ? 0 : 1;
      return r;
    });
  });
  return { ids, positions, targets, mask, trained, index };
}

const inputOf = (tg: TinyGptGraph, name: string): Tensor => {
  const n = tg.graph.inputs().find((i) => i.op.kind === 'input' && i.op.name === name);
  if (!n) throw new Error(`the LM graph has no input ${name}`);
  return n;
};

/** The LM graph with the masked, tempered log-probability of each position's target. */
function scoredGraph(
  w: TinyGptWeights,
  batch: number,
  temperature: number,
): { tg: TinyGptGraph; lp: Tensor; logp: Tensor } {
  const seq = w.config.nPositions;
  const tg = buildTinyGptGraph(w.config, { batch, seq, weights: w });
  const g = tg.graph;
  const mask = g.input('mask', [batch * seq, w.config.vocabSize]);
  const lp = g.logSoftmax(g.scale(tg.logits, 1 / temperature), mask);
  return { tg, lp, logp: g.pick(lp, inputOf(tg, 'targets')) };
}

export class OrchestratorLearner {
  private constructor(
    readonly config: OrchestratorTrainConfig,
    readonly modelConfig: TinyGptWeights['config'],
    private readonly train: Compiled & { coef: Tensor; valid: Tensor; negH: Tensor },
    private readonly ref: Compiled | null,
  ) {}

  static async create(
    current: TinyGptWeights,
    reference: TinyGptWeights,
    config: OrchestratorTrainConfig,
    choice: BackendChoice,
  ): Promise<OrchestratorLearner> {
    if (JSON.stringify(current.config) !== JSON.stringify(reference.config))
      throw new Error('the reference model has another configuration than the trained one');
    const batch = config.minibatch;
    const n = batch * current.config.nPositions;
    const t = scoredGraph(current, batch, config.temperature);
    const g = t.tg.graph;
    const coef = g.input('coef', [n]);
    const valid = g.input('valid', [n]);
    // Σ_a p·log p per position over the allowed tokens (masked entries: 0·(−1e30) = 0).
    const negH = g.sum(g.mul(g.unary('exp', t.lp), t.lp));
    let loss = g.sum(g.mul(t.logp, coef));
    if (config.entropyCoef > 0) loss = g.add(loss, g.scale(g.sum(g.mul(negH, valid)), config.entropyCoef));
    const model = await compile(choice, g, {
      loss,
      optimizer: { lr: config.lr, clipNorm: config.gradClip },
    });
    let ref: Compiled | null = null;
    if (config.klCoef > 0) {
      const r = scoredGraph(reference, batch, config.temperature);
      ref = { tg: r.tg, model: await compile(choice, r.tg.graph), logp: r.logp };
    }
    return new OrchestratorLearner(
      config,
      current.config,
      { tg: t.tg, model, logp: t.logp, coef, valid, negH },
      ref,
    );
  }

  private feed(c: Compiled, seqs: readonly ScoredSequence[]): ReturnType<typeof windowFor> {
    const seq = this.modelConfig.nPositions;
    const w = windowFor(seqs, this.config.minibatch, seq, this.modelConfig.vocabSize);
    // All rows are fed (attention cannot take padding rows); a short minibatch's extra rows are zeros.
    c.model.setInput('ids', w.ids);
    c.model.setInput('positions', w.positions);
    c.model.setInput('targets', w.targets);
    c.model.setInput('weights', new Float32Array(w.ids.length));
    c.model.setInput('mask', w.mask);
    return w;
  }

  private zeroLoss(): void {
    const n = this.config.minibatch * this.modelConfig.nPositions;
    this.train.model.setInput('coef', new Float32Array(n));
    this.train.model.setInput('valid', new Float32Array(n));
  }

  /**
   * Masked log-probability of every generated token of `seqs` under the current parameters (or
   * the frozen reference): per sequence, one f32 value per generated token.
   */
  async logProbs(
    seqs: readonly ScoredSequence[],
    which: 'current' | 'reference' = 'current',
  ): Promise<Float32Array[]> {
    const c = which === 'current' ? this.train : this.ref;
    if (!c) throw new Error('no reference model (klCoef is 0)');
    const M = this.config.minibatch;
    const out: Float32Array[] = [];
    for (let start = 0; start < seqs.length; start += M) {
      const part = seqs.slice(start, start + M);
      const w = this.feed(c, part);
      if (c === this.train) this.zeroLoss();
      await c.model.step({ backward: false, update: false });
      const lp = await c.model.read(c.logp);
      for (const idx of w.index) out.push(Float32Array.from(idx, (r) => lp[r] as number));
    }
    return out;
  }

  /**
   * One PPO minibatch update over `seqs` (at most `minibatch`): forward, the clipped objective
   * and its per-token gradient in TypeScript, then backward and Adam through the graph. `oldLogp`
   * (the sampler's), `refLogp` and `advantages` are per sequence; the advantage is the sequence's.
   */
  async update(
    seqs: readonly ScoredSequence[],
    oldLogp: readonly ArrayLike<number>[],
    refLogp: readonly ArrayLike<number>[] | null,
    advantages: readonly number[],
    apply = true,
  ): Promise<OrchestratorUpdateStats> {
    const { model } = this.train;
    const w = this.feed(this.train, seqs);
    this.zeroLoss();
    await model.step({ backward: false, update: false });
    const [lp, negH] = await Promise.all([model.read(this.train.logp), model.read(this.train.negH)]);
    const rows = w.ids.length;
    const old = new Float64Array(rows);
    const ref = refLogp ? new Float64Array(rows) : null;
    const adv = new Float64Array(rows);
    w.index.forEach((idx, b) =>
      idx.forEach((r, k) => {
        old[r] = oldLogp[b]![k] as number;
        if (ref) ref[r] = refLogp![b]![k] as number;
        adv[r] = advantages[b] as number;
      }),
    );
    const obj = ppoObjective({
      logp: lp,
      oldLogp: old,
      refLogp: ref,
      advantages: adv,
      weights: w.trained,
      clipEps: this.config.clipEps,
      klCoef: this.config.klCoef,
    });
    let n = 0;
    let entropy = 0;
    for (let r = 0; r < rows; r++)
      if ((w.trained[r] as number) > 0) {
        n++;
        entropy -= negH[r] as number;
      }
    entropy /= Math.max(1, n);
    model.setInput('coef', Float32Array.from(obj.grad));
    model.setInput(
      'valid',
      Float32Array.from(w.trained, (x) => x / Math.max(1, n)),
    );
    const step = await model.step({ update: apply });
    return {
      loss: obj.loss - this.config.entropyCoef * entropy,
      kl: obj.kl,
      clipFraction: obj.clipFraction,
      entropy,
      gradNorm: step.gradNorm,
      ratioMean: obj.ratioMean,
      tokens: n,
    };
  }

  /** The current weights (read back from the device on WebGPU). */
  weights(): Promise<TinyGptWeights> {
    return weightsOf(this.train.model, this.modelConfig);
  }

  exportState(): Promise<TrainState> {
    return this.train.model.exportState();
  }

  importState(s: TrainState): void {
    this.train.model.importState(s);
  }

  get model(): Model {
    return this.train.model;
  }

  get graph(): TinyGptGraph {
    return this.train.tg;
  }

  dispose(): void {
    this.train.model.dispose();
    this.ref?.model.dispose();
  }
}
