/**
 * The JPSS policy network of src/policy/network.ts and the PPO update of src/train/learner.ts,
 * written a second time with TF.js ops: the baseline of `npm run bench:train-tfjs`.
 *
 * Same parameters (names and shapes of `paramShapes`, values from the same checkpoint), same
 * forward math (message passing, node head, edge head, masked log-softmax, log-Bernoulli edges,
 * joint log-probability), same loss
 *   L_graph = Σ_b coef_b·log π_θ,b + β_H·Σ_b valid_b·Σ_a π(a|s_b)·log π(a|s_b)
 * with coef_b = ∂L_PPO/∂log π_θ,b from `ppoObjective` (the same function the trainer calls), and
 * the same optimiser: the gradients' global L2 norm clipped to `gradClip` (scale
 * min(1, clip/(‖g‖ + 1e-6))), then Adam (β₁ 0.9, β₂ 0.999, ε 1e-8, bias-corrected).
 *
 * Written the way TF.js is meant to be used, not as a transcription of the compute core's graph:
 * the training minibatch's fixed layout (agent rows b·N + i, edge rows b·N + i, as
 * `Learner` feeds it) lets the per-state sums and the per-state broadcasts be reshapes and
 * broadcasting, where the compute core (no reshape, no broadcast) gathers and scatters rows.
 * Role embeddings are read as one-hot × table matmuls rather than `gather`, whose gradient on the
 * CPU backend is the same per-segment loop as `unsortedSegmentSum` (it took about a fifth of the
 * step). The sums of messages over links are batched matmuls with per-state N×N weight matrices built
 * from the same link slots (`adjacency`): the direct transcription, `gather` + `unsortedSegmentSum`
 * over the slots, gives the same numbers but takes about a minute per forward pass on TF.js's CPU
 * backend at a minibatch of 32 (its segment sum loops over the segments, one masked pass each).
 */
import type * as TF from '@tensorflow/tfjs';
import { paramShapes, type PolicyCheckpoint } from '../../src/policy/index.ts';
import { ppoObjective, type TrainConfig } from '../../src/train/index.ts';
import type { Minibatch } from './minibatch.ts';

/** Same defaults as src/gpu/optimizer.ts `resolveAdam`. */
const BETA1 = 0.9;
const BETA2 = 0.999;
const EPS = 1e-8;
/** Added to masked logits: exp() is exactly 0 in f32, as the compute core's masked softmax. */
const MASK_PENALTY = -1e9;

/** Minibatch inputs as tensors, built once per update (the upload, as `setInput` on the core). */
export interface Feed {
  state: TF.Tensor2D;
  /** (1 − mask)·MASK_PENALTY, [B, A]. */
  maskAdd: TF.Tensor2D;
  agents: TF.Tensor2D;
  /** One-hot of each edge row's role, [B·N, R]. */
  roleHot: TF.Tensor2D;
  action: TF.Tensor1D;
  edgeTarget: TF.Tensor2D;
  edgeWeight: TF.Tensor2D;
  /** [B, N, N]: adjIn[b, k, j] = weight of link j → k in k's mean over what it reads. */
  adjIn: TF.Tensor3D | null;
  /** [B, N, N]: adjOut[b, j, k] = weight of link j → k in j's mean over its readers. */
  adjOut: TF.Tensor3D | null;
  readMean: TF.Tensor3D | null;
  readSink: TF.Tensor3D | null;
}

export interface ForwardOut {
  /** Joint log-probability per row [B]. */
  joint: TF.Tensor1D;
  /** π_node [B, A]. */
  probs: TF.Tensor2D;
  /** log π_node [B, A] (≈ −1e9 where masked; the core writes −1e30 there). */
  logProbs: TF.Tensor2D;
  /** Edge logits [B·N]. */
  edgeLogits: TF.Tensor1D;
}

/** What one update returns: the same numbers `Learner.update` reports, as a subset. */
export interface TfUpdateStats {
  loss: number;
  gradNorm: number;
  clipFraction: number;
  nodeEntropy: number;
}

let nextPrefix = 0;

export class TfPolicy {
  readonly vars: Record<string, TF.Variable>;
  private readonly opt: TF.AdamOptimizer;
  private readonly N: number;
  private readonly A: number;
  private readonly layers: number;
  /** Hidden width H of the heads and the agent feature width Da. */
  private readonly H: number;
  private readonly Da: number;
  /** Width G of the message-passing layers (0 without them). */
  private readonly G: number;

  constructor(
    private readonly tf: typeof TF,
    checkpoint: PolicyCheckpoint,
    private readonly config: TrainConfig,
    private readonly M: number,
  ) {
    const cfg = checkpoint.config;
    this.N = cfg.maxAgents;
    this.A = cfg.roles.length + 2;
    // Variable names are global to the TF.js engine: a fresh prefix per network keeps them unique.
    const prefix = `tp${(nextPrefix += 1)}/`;
    this.vars = {};
    for (const [name, shape] of Object.entries(paramShapes(cfg))) {
      const v = checkpoint.params[name];
      if (!v) throw new Error(`missing parameter ${name}`);
      this.vars[name] = tf.variable(tf.tensor(Float32Array.from(v), shape), true, prefix + name);
    }
    this.layers = Object.keys(this.vars).filter((k) => k.startsWith('gnn.self')).length;
    const shapes = paramShapes(cfg);
    this.H = cfg.hidden;
    this.Da = shapes['edge.wa']?.[0] ?? 0;
    this.G = shapes['gnn.b1']?.[0] ?? 0;
    this.opt = tf.train.adam(config.lr, BETA1, BETA2, EPS);
  }

  private v<R extends TF.Rank>(name: string): TF.Variable<R> {
    const t = this.vars[name];
    if (!t) throw new Error(`no parameter ${name}`);
    return t as TF.Variable<R>;
  }

  /** Uploads a minibatch (fixed size M; padding rows as `Learner` pads). */
  feed(mb: Minibatch): Feed {
    const tf = this.tf;
    const { M, N, A } = this;
    const x = mb.inputs;
    const f = (k: string): Float32Array => x[k] as Float32Array;
    const i32 = (k: string): TF.Tensor1D => tf.tensor1d(Int32Array.from(x[k] as Uint32Array), 'int32');
    const graph = 'msgFrom' in x;
    const S = f('state').length / M;
    const Da = f('agents').length / (M * N);
    const adj = graph ? adjacency(mb, M, N) : null;
    return {
      state: tf.tensor2d(f('state'), [M, S]),
      maskAdd: tf.tidy(() => tf.mul(tf.sub(1, tf.tensor2d(f('mask'), [M, A])), MASK_PENALTY)),
      agents: tf.tensor2d(f('agents'), [M * N, Da]),
      roleHot: tf.tidy(() => tf.oneHot(i32('edgeRole'), this.A - 2).toFloat() as TF.Tensor2D),
      action: i32('action'),
      edgeTarget: tf.tensor2d(f('edgeTarget'), [M, N]),
      edgeWeight: tf.tensor2d(f('edgeWeight'), [M, N]),
      adjIn: adj ? tf.tensor3d(adj.adjIn, [M, N, N]) : null,
      adjOut: adj ? tf.tensor3d(adj.adjOut, [M, N, N]) : null,
      readMean: graph ? tf.tensor3d(f('readMean'), [M, N, 1]) : null,
      readSink: graph ? tf.tensor3d(f('readSink'), [M, N, 1]) : null,
    };
  }

  /** The forward pass (network.ts's math); call inside `tf.tidy` or a gradient function. */
  forward(d: Feed): ForwardOut {
    const tf = this.tf;
    const { M, N, A } = this;
    const mm = (a: TF.Tensor, w: string): TF.Tensor2D => tf.matMul(a as TF.Tensor2D, this.v<TF.Rank.R2>(w));
    let nodes: TF.Tensor2D | null = null;
    let mean: TF.Tensor2D | null = null;
    let sink: TF.Tensor2D | null = null;
    if (d.adjIn && d.adjOut && d.readMean && d.readSink) {
      const { G } = this;
      let x: TF.Tensor2D = d.agents;
      for (let l = 1; l <= this.layers; l++) {
        // Link j → k: k hears j through I_l, j hears k through O_l, weighted into means.
        const perState = (t: TF.Tensor2D): TF.Tensor3D => tf.reshape(t, [M, N, G]);
        const fromReads = tf.matMul(d.adjIn, perState(mm(x, `gnn.in${l}`)));
        const fromReaders = tf.matMul(d.adjOut, perState(mm(x, `gnn.out${l}`)));
        x = tf.tanh(
          tf.add(
            tf.add(mm(x, `gnn.self${l}`), tf.reshape(tf.add(fromReads, fromReaders), [M * N, G])),
            this.v(`gnn.b${l}`),
          ),
        );
      }
      const x3 = tf.reshape(x, [M, N, G]);
      nodes = x;
      mean = tf.sum(tf.mul(x3, d.readMean), 1);
      sink = tf.sum(tf.mul(x3, d.readSink), 1);
    }
    let hPre = mm(d.state, 'node.w1');
    if (mean && sink) hPre = tf.add(tf.add(hPre, mm(mean, 'node.wgm')), mm(sink, 'node.wgs'));
    const h = tf.tanh(tf.add(hPre, this.v('node.b1')));
    const logits = tf.add(tf.add(mm(h, 'node.w2'), mm(d.state, 'node.lin')), this.v('node.b2'));
    const masked = tf.add(logits, d.maskAdd);
    const probs = tf.softmax(masked);
    const logProbs = tf.logSoftmax(masked);

    // Edge rows e = b·N + i: agent row e, state b, the row's role (the chosen one on ADD steps).
    const { H, Da } = this;
    const perState = (t: TF.Tensor2D, width: number): TF.Tensor3D => tf.reshape(t, [M, 1, width]);
    let pre = tf.add(
      tf.add(tf.reshape(mm(d.agents, 'edge.wa'), [M, N, H]), perState(mm(h, 'edge.ws'), H)),
      tf.reshape(tf.matMul(d.roleHot, this.v<TF.Rank.R2>('edge.role')), [M, N, H]),
    );
    if (nodes) pre = tf.add(pre, tf.reshape(mm(nodes, 'edge.wh'), [M, N, H]));
    const z = tf.tanh(tf.add(pre, this.v('edge.ba')));
    const coef = tf.add(
      tf.reshape(tf.matMul(d.roleHot, this.v<TF.Rank.R2>('edge.roleLin')), [M, N, Da]),
      perState(mm(d.state, 'edge.stateLin'), Da),
    );
    const lin = tf.sum(tf.mul(coef, tf.reshape(d.agents, [M, N, Da])), 2);
    const edgeLogits = tf.add(
      tf.add(tf.reshape(mm(tf.reshape(z, [M * N, H]), 'edge.wo'), [M, N]), lin),
      this.v('edge.bo'),
    );
    // log Bernoulli(y | σ(ℓ)) = y·ℓ − softplus(ℓ), on the rows of ADD steps that exist.
    const bern = tf.mul(tf.sub(tf.mul(d.edgeTarget, edgeLogits), tf.softplus(edgeLogits)), d.edgeWeight);
    const taken = tf.sum(tf.mul(logProbs, tf.oneHot(d.action, A)), 1);
    const joint = tf.add(taken, tf.sum(bern, 1));
    return {
      joint: joint as TF.Tensor1D,
      probs: probs as TF.Tensor2D,
      logProbs: logProbs as TF.Tensor2D,
      edgeLogits: tf.reshape(edgeLogits, [M * N]),
    };
  }

  /** Joint log π of the minibatch's rows (forward only). */
  async logProbs(mb: Minibatch): Promise<Float32Array> {
    const d = this.feed(mb);
    try {
      const joint = this.tf.tidy(() => this.forward(d).joint);
      const out = (await joint.data()) as Float32Array;
      joint.dispose();
      return out;
    } finally {
      this.release(d);
    }
  }

  /**
   * One update as `Learner.update` does it: a forward pass read back, the PPO objective and its
   * per-row gradient in TypeScript (`ppoObjective`), then forward + backward of L_graph, clipping
   * and Adam. `oldLogp`, `refLogp` and `advantages` are per minibatch row (padding rows: any).
   */
  async update(
    mb: Minibatch,
    oldLogp: ArrayLike<number>,
    refLogp: ArrayLike<number> | null,
    advantages: ArrayLike<number>,
  ): Promise<TfUpdateStats> {
    const tf = this.tf;
    const { M, A } = this;
    const c = this.config;
    const d = this.feed(mb);
    try {
      const fw = tf.tidy(() => {
        const o = this.forward(d);
        return [o.joint, o.probs, o.logProbs] as const;
      });
      const [joint, probs, logProbs] = (await Promise.all(fw.map((t) => t.data()))) as Float32Array[];
      tf.dispose([...fw]);
      const n = mb.rows;
      const weights = Array.from({ length: M }, (_, b) => (b < n ? 1 : 0));
      const obj = ppoObjective({
        logp: joint as Float32Array,
        oldLogp,
        refLogp,
        advantages,
        weights,
        clipEps: c.clipEps,
        klCoef: c.klCoef,
      });
      let nodeH = 0;
      for (let b = 0; b < n; b++)
        for (let a = 0; a < A; a++) {
          const p = (probs as Float32Array)[b * A + a] as number;
          if (p > 0) nodeH -= p * ((logProbs as Float32Array)[b * A + a] as number);
        }
      nodeH /= Math.max(1, n);
      const coef = tf.tensor1d(Float32Array.from(obj.grad));
      const valid = tf.tensor1d(Float32Array.from(weights, (w) => w / Math.max(1, n)));
      const gradNorm = await this.applyGraphLoss(d, coef, valid);
      tf.dispose([coef, valid]);
      return {
        loss: obj.loss - c.entropyCoef * nodeH,
        gradNorm,
        clipFraction: obj.clipFraction,
        nodeEntropy: nodeH,
      };
    } finally {
      this.release(d);
    }
  }

  /** Forward + backward of L_graph, global-norm clipping, Adam; returns the unclipped norm. */
  private async applyGraphLoss(d: Feed, coef: TF.Tensor1D, valid: TF.Tensor1D): Promise<number> {
    const tf = this.tf;
    const beta = this.config.entropyCoef;
    const lossFn = (): TF.Scalar =>
      tf.tidy(() => {
        const o = this.forward(d);
        let loss = tf.sum(tf.mul(o.joint, coef));
        if (beta > 0) {
          const negH = tf.sum(tf.mul(o.probs, o.logProbs), 1);
          loss = tf.add(loss, tf.mul(tf.sum(tf.mul(negH, valid)), beta));
        }
        return loss as TF.Scalar;
      });
    const { value, grads } = tf.variableGrads(lossFn, Object.values(this.vars));
    const clip = this.config.gradClip;
    // Pairwise adds, not one addN: tfjs-backend-webgpu binds every addN input as a storage
    // buffer, and 25 exceed the 8 a software adapter allows per shader stage.
    const norm = tf.tidy(() =>
      tf.sqrt(
        Object.values(grads)
          .map((g) => tf.sum(tf.square(g)))
          .reduce((a, b) => tf.add(a, b)),
      ),
    );
    const clipped = tf.tidy(() => {
      const s = clip > 0 ? tf.minimum(1, tf.div(clip, tf.add(norm, 1e-6))) : tf.scalar(1);
      return Object.entries(grads).map(([name, g]) => ({ name, tensor: tf.mul(g, s) }));
    });
    this.opt.applyGradients(clipped);
    tf.dispose([value, ...Object.values(grads), ...clipped.map((x) => x.tensor)]);
    const out = ((await norm.data()) as Float32Array)[0] as number;
    norm.dispose();
    return out;
  }

  /**
   * The graph step alone (no objective): forward + backward + clip + Adam on inputs already
   * uploaded (`feed`), as `model.step()` on the compute core. Returns the unclipped norm.
   */
  graphStep(d: Feed, coef: TF.Tensor1D, valid: TF.Tensor1D): Promise<number> {
    return this.applyGraphLoss(d, coef, valid);
  }

  /** Frees an uploaded minibatch. */
  release(d: Feed): void {
    this.tf.dispose(Object.values(d).filter((t): t is TF.Tensor => t !== null));
  }

  /** Current parameter values by name. */
  async params(): Promise<Record<string, Float32Array>> {
    const out: Record<string, Float32Array> = {};
    for (const [k, t] of Object.entries(this.vars)) out[k] = (await t.data()) as Float32Array;
    return out;
  }

  dispose(): void {
    this.tf.dispose(Object.values(this.vars));
    this.opt.dispose();
  }
}

/**
 * The link slots of a minibatch (msgFrom, msgTo, inWeight, outWeight; links.ts) as two dense
 * per-state N×N weight matrices, so that the sums of messages over links are batched matmuls.
 */
export function adjacency(
  mb: Minibatch,
  M: number,
  N: number,
): { adjIn: Float32Array; adjOut: Float32Array } {
  const x = mb.inputs;
  const from = x.msgFrom as Uint32Array;
  const to = x.msgTo as Uint32Array;
  const inW = x.inWeight as Float32Array;
  const outW = x.outWeight as Float32Array;
  const L = from.length / M;
  const adjIn = new Float32Array(M * N * N);
  const adjOut = new Float32Array(M * N * N);
  for (let s = 0; s < M * L; s++) {
    const b = Math.floor(s / L);
    const j = (from[s] as number) - b * N;
    const k = (to[s] as number) - b * N;
    const ik = (b * N + k) * N + j;
    const oj = (b * N + j) * N + k;
    adjIn[ik] = (adjIn[ik] as number) + (inW[s] as number);
    adjOut[oj] = (adjOut[oj] as number) + (outW[s] as number);
  }
  return { adjIn, adjOut };
}
