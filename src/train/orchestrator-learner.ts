/**
 * PPO-clip updates of the orchestrator LM on the compute core (docs/train.md, "Training the
 * orchestrator LM"). The training graph is the LM's own (src/lm/graph.ts) over a fixed window of
 * `packRows` rows × nPositions into which the designs are packed, several per row, each its own
 * attention segment (or, with packRows 0, one design per row, `minibatch` rows), extended with the
 * masked next-token log-probability of each position:
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
import {
  compile,
  readStep,
  type BackendChoice,
  type Model,
  type Tensor,
  type TrainState,
} from '../gpu/index.ts';
import { buildTinyGptLogits, weightsOf, type TinyGptGraph, type TinyGptWeights } from '../lm/index.ts';

/** The LM graph up to its logits (no cross-entropy loss): what the learner scores with. */
type LogitsGraph = Omit<TinyGptGraph, 'loss'>;
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
  tg: LogitsGraph;
  model: Model;
  logp: Tensor;
}

/** Positions a sequence occupies in a window: it reads every token but the last. */
const spanOf = (s: ScoredSequence): number => s.prompt.length + s.tokens.length - 1;

/**
 * Rows of a packed window of `batch` rows × `seq` positions for `seqs`, first fit in their order
 * (row of sequence b, and the position it starts at), or null when they do not all fit.
 */
export function packSequences(
  seqs: readonly ScoredSequence[],
  batch: number,
  seq: number,
): { row: number; at: number }[] | null {
  const used = new Array<number>(batch).fill(0);
  const out: { row: number; at: number }[] = [];
  for (const s of seqs) {
    const need = spanOf(s);
    const row = used.findIndex((u) => u + need <= seq);
    if (row < 0) return null;
    out.push({ row, at: used[row] as number });
    used[row] = (used[row] as number) + need;
  }
  return out;
}

/**
 * The window's inputs for `seqs`. Unpacked (`packed` false): sequence b fills row b from position
 * 0, at most `batch` sequences. Packed: sequences are laid first fit into the rows, each its own
 * attention segment (id k + 1 for the k-th of a row; each padding position its own, `PAD_SEGMENT`
 * + its position) whose positions restart at 0, so a
 * sequence's every row computes what it computes alone from position 0 (graph.ts, `packed`).
 */
/** Segment ids of packed padding: PAD_SEGMENT + position in the row (sequences use 1, 2, …). */
export const PAD_SEGMENT = 0x8000_0000;

export function windowFor(
  seqs: readonly ScoredSequence[],
  batch: number,
  seq: number,
  vocab: number,
  packed = false,
): {
  ids: Uint32Array;
  positions: Uint32Array;
  targets: Uint32Array;
  mask: Float32Array;
  /** Attention segment of every position (packed windows; zeros otherwise). */
  segments: Uint32Array;
  /** 1 at a generated token with a choice. */
  trained: Float32Array;
  /** Window row (flat position) of generated token k of sequence b: index[b][k]. */
  index: number[][];
  /** Rows holding at least one sequence. */
  rowsUsed: number;
} {
  const n = batch * seq;
  const ids = new Uint32Array(n);
  const positions = new Uint32Array(n);
  const targets = new Uint32Array(n);
  const segments = new Uint32Array(n);
  const mask = new Float32Array(n * vocab).fill(1);
  const trained = new Float32Array(n);
  for (const s of seqs)
    if (spanOf(s) > seq)
      throw new Error(`a sequence of ${spanOf(s) + 1} tokens exceeds the window of ${seq}`);
  let place: { row: number; at: number }[] | null;
  if (packed) place = packSequences(seqs, batch, seq);
  else place = seqs.length <= batch ? seqs.map((_, b) => ({ row: b, at: 0 })) : null;
  if (!place) throw new Error(`${seqs.length} sequences do not fit a window of ${batch} × ${seq}`);
  const fill = new Array<number>(batch).fill(0);
  const count = new Array<number>(batch).fill(0);
  const index = seqs.map((s, b) => {
    const { row, at } = place[b] as { row: number; at: number };
    const base = row * seq + at;
    const all = [...s.prompt, ...s.tokens];
    const seg = (count[row] as number) + 1;
    count[row] = seg;
    for (let t = 0; t < all.length - 1; t++) {
      ids[base + t] = all[t] as number;
      targets[base + t] = all[t + 1] as number;
      positions[base + t] = t;
      segments[base + t] = seg;
    }
    fill[row] = at + spanOf(s);
    return s.tokens.map((_, k) => {
      const r = base + s.prompt.length - 1 + k;
      const m = s.masks[k] as Int32Array;
      for (let v = 0; v < vocab; v++)
        mask[r * vocab + v] = (((m[v >>> 5] as number) >>> (v & 31)) & 1) === 1 ? 1 : 0;
      trained[r] = (s.forced[k] as number) === 1 ? 0 : 1;
      return r;
    });
  });
  // Padding: positions count on from the last sequence of the row (token 0). Packed, each padding
  // position is a segment of its own, so it attends to itself only: a row's padding (or a whole
  // unused row) costs attention in proportion to its length, not its square, and no sequence
  // reads it either way.
  for (let row = 0; row < batch; row++)
    for (let t = fill[row] as number; t < seq; t++) {
      positions[row * seq + t] = packed ? t - (fill[row] as number) : t;
      if (packed) segments[row * seq + t] = PAD_SEGMENT + t;
    }
  const rowsUsed = count.filter((c) => c > 0).length;
  return { ids, positions, targets, mask, segments, trained, index, rowsUsed };
}

const inputOf = (tg: LogitsGraph, name: string): Tensor => {
  const n = tg.graph.inputs().find((i) => i.op.kind === 'input' && i.op.name === name);
  if (!n) throw new Error(`the LM graph has no input ${name}`);
  return n;
};

/** The LM graph with the masked, tempered log-probability of each position's target. */
function scoredGraph(
  w: TinyGptWeights,
  batch: number,
  temperature: number,
  packed: boolean,
): { tg: LogitsGraph; lp: Tensor; logp: Tensor } {
  const seq = w.config.nPositions;
  const tg = buildTinyGptLogits(w.config, { batch, seq, weights: w, packed });
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
    const packed = config.packRows > 0;
    const batch = packed ? config.packRows : config.minibatch;
    const n = batch * current.config.nPositions;
    const t = scoredGraph(current, batch, config.temperature, packed);
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
      const r = scoredGraph(reference, batch, config.temperature, packed);
      ref = { tg: r.tg, model: await compile(choice, r.tg.graph), logp: r.logp };
    }
    return new OrchestratorLearner(
      config,
      current.config,
      { tg: t.tg, model, logp: t.logp, coef, valid, negH },
      ref,
    );
  }

  /** Rows of the training window (`packRows`, or one per design of a minibatch unpacked). */
  get rows(): number {
    return this.config.packRows > 0 ? this.config.packRows : this.config.minibatch;
  }

  get packed(): boolean {
    return this.config.packRows > 0;
  }

  /**
   * How many of `seqs[from..]` (at least 1, at most `max`) one window takes: unpacked, `max`
   * capped by the rows; packed, as many as fit first fit in order.
   */
  fit(seqs: readonly ScoredSequence[], from: number, max = Infinity): number {
    const left = Math.min(max, seqs.length - from);
    if (!this.packed) return Math.max(1, Math.min(left, this.rows));
    let k = 1;
    while (k < left && packSequences(seqs.slice(from, from + k + 1), this.rows, this.modelConfig.nPositions))
      k++;
    return k;
  }

  private feed(c: Compiled, seqs: readonly ScoredSequence[]): ReturnType<typeof windowFor> {
    const seq = this.modelConfig.nPositions;
    const w = windowFor(seqs, this.rows, seq, this.modelConfig.vocabSize, this.packed);
    // Only the rows holding a sequence are live (they come first): the unused ones are padding by
    // whole sequences, which the backends skip (or, on WebGPU, compute and never read).
    const live = w.rowsUsed * seq;
    this.live = live;
    if (this.packed) c.model.setInput('segments', w.segments, live);
    c.model.setInput('ids', w.ids, live);
    c.model.setInput('positions', w.positions, live);
    c.model.setInput('targets', w.targets, live);
    c.model.setInput('mask', w.mask, live);
    return w;
  }

  /** Live positions of the last window fed. */
  private live = 0;

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
    const out: Float32Array[] = [];
    for (let start = 0; start < seqs.length;) {
      const part = seqs.slice(start, start + this.fit(seqs, start));
      start += part.length;
      const w = this.feed(c, part);
      // Pruned to log π (RunOptions.prune): the training graph's loss is not computed.
      const [lp] = (await readStep(c.model, [c.logp], { backward: false, update: false, prune: true }))
        .values as [Float32Array];
      for (const idx of w.index) out.push(Float32Array.from(idx, (r) => lp[r] as number));
    }
    return out;
  }

  /**
   * One PPO minibatch update over `seqs` (what one window takes: `fit`): forward, the clipped objective
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
    // log π and the entropy terms first (pruned: not the loss, whose per-token weights come from them).
    const [lp, negH] = (
      await readStep(model, [this.train.logp, this.train.negH], {
        backward: false,
        update: false,
        prune: true,
      })
    ).values as [Float32Array, Float32Array];
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
    model.setInput('coef', Float32Array.from(obj.grad), this.live);
    model.setInput(
      'valid',
      Float32Array.from(w.trained, (x) => x / Math.max(1, n)),
      this.live,
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

  get graph(): LogitsGraph {
    return this.train.tg;
  }

  dispose(): void {
    this.train.model.dispose();
    this.ref?.model.dispose();
  }
}
