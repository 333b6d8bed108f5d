/**
 * The static computation graph both backends execute. A graph is recorded once (shapes are fixed),
 * compiled by a backend, and then replayed every training step: forward in recording order, backward
 * in reverse order (the autograd tape), then one optimizer update over every parameter. Because the
 * whole step is known up front, the WebGPU backend encodes it as a single submission.
 *
 * Tensors are row-major f32 (or u32 for indices). Most ops treat a tensor as a matrix
 * [rows, cols] where cols is the last dimension and rows the product of the others.
 */

export type Shape = readonly number[];
export type DType = 'f32' | 'u32';
export type Activation = 'none' | 'relu' | 'tanh' | 'gelu' | 'sigmoid';
export type BinaryOp = 'add' | 'sub' | 'mul';
export type UnaryOp = 'scale' | 'exp' | 'log' | 'sigmoid' | 'tanh';
export type ReduceOp = 'sum' | 'mean' | 'max';

/** A handle to one node of a graph. */
export interface Tensor {
  readonly id: number;
  readonly shape: Shape;
  readonly dtype: DType;
}

export type OpSpec =
  | { kind: 'input'; name: string }
  | { kind: 'param'; name: string; init: Float32Array }
  /** C = op(A)·op(B) per batch: op(A) is [M,K], op(B) is [K,N]; A is [batch,M,K] or [batch,K,M] when transA. */
  | {
      kind: 'matmul';
      a: number;
      b: number;
      transA: boolean;
      transB: boolean;
      batch: number;
      m: number;
      n: number;
      k: number;
    }
  /** y = act(x + bias[col]); bias is optional ([cols]). */
  | { kind: 'biasAct'; x: number; bias: number | null; act: Activation }
  /** Row softmax / log-softmax over the last axis. mask (f32, 1 = allowed, 0 = masked) has shape [maskRows, cols]; row r uses mask row r % maskRows. */
  | { kind: 'softmax'; x: number; mask: number | null; log: boolean }
  /** out[r] = x[r, idx[r]]: picks one entry per row (the log-probability of the taken action). */
  | { kind: 'pick'; x: number; idx: number }
  | { kind: 'binary'; op: BinaryOp; a: number; b: number }
  /** scale: y = alpha·x. */
  | { kind: 'unary'; op: UnaryOp; x: number; alpha: number }
  /** log Bernoulli(target | sigmoid(logits)) = target·x − softplus(x), elementwise. */
  | { kind: 'bernoulliLogProb'; logits: number; target: number }
  /** out[i, :] = table[idx[i], :] (embeddings, reading node states along edges). */
  | { kind: 'gatherRows'; table: number; idx: number }
  /** out[r, :] = Σ_{i: idx[i] = r} src[i, :] (message passing: sum incoming messages per node). */
  | { kind: 'scatterAddRows'; src: number; idx: number; rows: number }
  /** y = (x − mean)/sqrt(var + eps)·gamma + beta over the last axis (biased variance). */
  | { kind: 'layerNorm'; x: number; gamma: number; beta: number; eps: number }
  /** Reduces the last axis: [.., C] -> [..]. */
  | { kind: 'reduce'; op: ReduceOp; x: number }
  /**
   * Fused multi-head causal self-attention. q, k, v and the output are [batch·seq, d] (rows of one
   * sequence contiguous); head h is the column slice [h·d/heads, (h+1)·d/heads). Per head, query
   * row i attends to key rows j ≤ i of its own sequence with softmax(q·kᵀ/sqrt(d/heads)). With
   * `segments` (u32 [batch·seq]), row i also attends only to rows j with segments[j] = segments[i]:
   * several examples packed into one sequence do not see each other.
   */
  | {
      kind: 'causalAttention';
      q: number;
      k: number;
      v: number;
      segments: number | null;
      batch: number;
      seq: number;
      heads: number;
    }
  /**
   * Weighted cross-entropy, a scalar: Σ_i weights[i]·(−log softmax(logits[i, :])[targets[i]]) over
   * the rows of logits [N, V]; targets u32 [N], weights f32 [N] (data, not differentiated).
   */
  | { kind: 'crossEntropy'; logits: number; targets: number; weights: number }
  /**
   * The PPO-clipped surrogate over per-row log-probabilities, a scalar: Σ_i w_i·L_i with
   *   r_i = exp(logp_i − old_i), clipped_i = (A_i > 0 ∧ r_i > 1 + ε) ∨ (A_i < 0 ∧ r_i < 1 − ε),
   *   L_i = −(clipped_i ? clip(r_i, 1 − ε, 1 + ε) : r_i)·A_i + β·k3_i,
   *   k3_i = exp(ref_i − logp_i) − (ref_i − logp_i) − 1 (0 without `ref`),
   * and ∂/∂logp_i = w_i·(−[¬clipped_i]·r_i·A_i + β·(1 − exp(ref_i − logp_i))). Every operand but
   * logp is data (old, ref, advantages, weights: f32 [N]); only logp is differentiated. Lets a
   * trainer compute the per-row weights of its policy gradient on the device, in the same step.
   */
  | {
      kind: 'ppoClip';
      logp: number;
      old: number;
      ref: number | null;
      advantages: number;
      weights: number;
      clipEps: number;
      klCoef: number;
    };

export interface Node extends Tensor {
  readonly op: OpSpec;
  /** True when the loss gradient must flow into this node (a parameter or depends on one). */
  readonly requiresGrad: boolean;
}

export const size = (shape: Shape): number => shape.reduce((a, b) => a * b, 1);
/** Last dimension (1 for a scalar). */
export const cols = (shape: Shape): number => (shape.length === 0 ? 1 : (shape[shape.length - 1] as number));
export const rows = (shape: Shape): number => size(shape) / cols(shape);

const sameShape = (a: Shape, b: Shape): boolean => a.length === b.length && a.every((d, i) => d === b[i]);
const fmt = (s: Shape): string => `[${s.join(', ')}]`;

export class Graph {
  readonly nodes: Node[] = [];

  private push(op: OpSpec, shape: Shape, dtype: DType, deps: number[]): Tensor {
    for (const d of shape) {
      if (!Number.isInteger(d) || d <= 0) throw new Error(`bad shape ${fmt(shape)} for ${op.kind}`);
    }
    const requiresGrad =
      op.kind === 'param' ||
      deps.some((d) => (this.nodes[d] as Node).requiresGrad && this.nodes[d]?.dtype === 'f32');
    const node: Node = { id: this.nodes.length, shape: [...shape], dtype, op, requiresGrad };
    this.nodes.push(node);
    return node;
  }

  private f32(t: Tensor, what: string): void {
    if (t.dtype !== 'f32') throw new Error(`${what} must be f32`);
  }

  input(name: string, shape: Shape, dtype: DType = 'f32'): Tensor {
    if (this.nodes.some((n) => (n.op.kind === 'input' || n.op.kind === 'param') && n.op.name === name)) {
      throw new Error(`duplicate tensor name "${name}"`);
    }
    return this.push({ kind: 'input', name }, shape, dtype, []);
  }

  param(name: string, shape: Shape, init: Float32Array): Tensor {
    if (init.length !== size(shape))
      throw new Error(`param ${name}: init has ${init.length} values, shape ${fmt(shape)}`);
    if (this.nodes.some((n) => (n.op.kind === 'input' || n.op.kind === 'param') && n.op.name === name)) {
      throw new Error(`duplicate tensor name "${name}"`);
    }
    return this.push({ kind: 'param', name, init: Float32Array.from(init) }, shape, 'f32', []);
  }

  /** Batched matrix product; 2-D operands or 3-D with a shared leading batch dimension. */
  matmul(a: Tensor, b: Tensor, opts: { transA?: boolean; transB?: boolean } = {}): Tensor {
    this.f32(a, 'matmul a');
    this.f32(b, 'matmul b');
    const transA = opts.transA ?? false;
    const transB = opts.transB ?? false;
    if (a.shape.length !== b.shape.length || a.shape.length < 2 || a.shape.length > 3) {
      throw new Error(`matmul needs two 2-D or two 3-D operands, got ${fmt(a.shape)} and ${fmt(b.shape)}`);
    }
    const batch = a.shape.length === 3 ? (a.shape[0] as number) : 1;
    if (a.shape.length === 3 && b.shape[0] !== batch) throw new Error('matmul batch sizes differ');
    const [a0, a1] = a.shape.slice(-2) as [number, number];
    const [b0, b1] = b.shape.slice(-2) as [number, number];
    const [m, ka] = transA ? [a1, a0] : [a0, a1];
    const [kb, n] = transB ? [b1, b0] : [b0, b1];
    if (ka !== kb) throw new Error(`matmul inner sizes differ: ${fmt(a.shape)} x ${fmt(b.shape)}`);
    const shape = a.shape.length === 3 ? [batch, m, n] : [m, n];
    return this.push({ kind: 'matmul', a: a.id, b: b.id, transA, transB, batch, m, n, k: ka }, shape, 'f32', [
      a.id,
      b.id,
    ]);
  }

  biasAct(x: Tensor, bias: Tensor | null, act: Activation): Tensor {
    this.f32(x, 'biasAct x');
    if (bias && (bias.shape.length !== 1 || bias.shape[0] !== cols(x.shape))) {
      throw new Error(`bias ${fmt(bias.shape)} does not match ${fmt(x.shape)}`);
    }
    const deps = bias ? [x.id, bias.id] : [x.id];
    return this.push({ kind: 'biasAct', x: x.id, bias: bias?.id ?? null, act }, x.shape, 'f32', deps);
  }

  /** x·W + b followed by an activation: the MLP layer. */
  linear(x: Tensor, w: Tensor, b: Tensor | null, act: Activation = 'none'): Tensor {
    return this.biasAct(this.matmul(x, w), b, act);
  }

  private softmaxLike(x: Tensor, mask: Tensor | null, log: boolean): Tensor {
    this.f32(x, 'softmax x');
    if (mask) {
      this.f32(mask, 'mask');
      if (cols(mask.shape) !== cols(x.shape) || rows(x.shape) % rows(mask.shape) !== 0) {
        throw new Error(`mask ${fmt(mask.shape)} does not fit ${fmt(x.shape)}`);
      }
      if (this.node(mask).requiresGrad) throw new Error('mask must not depend on parameters');
    }
    const deps = mask ? [x.id, mask.id] : [x.id];
    return this.push({ kind: 'softmax', x: x.id, mask: mask?.id ?? null, log }, x.shape, 'f32', deps);
  }

  /** Masked entries get probability exactly 0. A row with every entry masked is all zeros. */
  softmax(x: Tensor, mask: Tensor | null = null): Tensor {
    return this.softmaxLike(x, mask, false);
  }

  /** Masked entries get MASKED_LOG_PROB (finite, so 0·logp stays 0 in entropy terms). */
  logSoftmax(x: Tensor, mask: Tensor | null = null): Tensor {
    return this.softmaxLike(x, mask, true);
  }

  pick(x: Tensor, idx: Tensor): Tensor {
    this.f32(x, 'pick x');
    if (idx.dtype !== 'u32' || size(idx.shape) !== rows(x.shape))
      throw new Error('pick needs one u32 index per row');
    return this.push({ kind: 'pick', x: x.id, idx: idx.id }, x.shape.slice(0, -1), 'f32', [x.id, idx.id]);
  }

  private binary(op: BinaryOp, a: Tensor, b: Tensor): Tensor {
    this.f32(a, op);
    this.f32(b, op);
    if (!sameShape(a.shape, b.shape))
      throw new Error(`${op}: shapes differ ${fmt(a.shape)} vs ${fmt(b.shape)}`);
    return this.push({ kind: 'binary', op, a: a.id, b: b.id }, a.shape, 'f32', [a.id, b.id]);
  }
  add(a: Tensor, b: Tensor): Tensor {
    return this.binary('add', a, b);
  }
  sub(a: Tensor, b: Tensor): Tensor {
    return this.binary('sub', a, b);
  }
  mul(a: Tensor, b: Tensor): Tensor {
    return this.binary('mul', a, b);
  }

  unary(op: UnaryOp, x: Tensor, alpha = 1): Tensor {
    this.f32(x, op);
    return this.push({ kind: 'unary', op, x: x.id, alpha }, x.shape, 'f32', [x.id]);
  }
  scale(x: Tensor, alpha: number): Tensor {
    return this.unary('scale', x, alpha);
  }

  bernoulliLogProb(logits: Tensor, target: Tensor): Tensor {
    this.f32(logits, 'logits');
    this.f32(target, 'target');
    if (!sameShape(logits.shape, target.shape)) throw new Error('bernoulliLogProb: shapes differ');
    return this.push(
      { kind: 'bernoulliLogProb', logits: logits.id, target: target.id },
      logits.shape,
      'f32',
      [logits.id, target.id],
    );
  }

  gatherRows(table: Tensor, idx: Tensor): Tensor {
    this.f32(table, 'table');
    if (table.shape.length !== 2 || idx.dtype !== 'u32' || idx.shape.length !== 1) {
      throw new Error('gatherRows needs a 2-D table and a 1-D u32 index');
    }
    const shape = [idx.shape[0] as number, table.shape[1] as number];
    return this.push({ kind: 'gatherRows', table: table.id, idx: idx.id }, shape, 'f32', [table.id, idx.id]);
  }

  scatterAddRows(src: Tensor, idx: Tensor, rowCount: number): Tensor {
    this.f32(src, 'src');
    if (src.shape.length !== 2 || idx.dtype !== 'u32' || size(idx.shape) !== src.shape[0]) {
      throw new Error('scatterAddRows needs a 2-D source and one u32 index per source row');
    }
    const shape = [rowCount, src.shape[1] as number];
    return this.push({ kind: 'scatterAddRows', src: src.id, idx: idx.id, rows: rowCount }, shape, 'f32', [
      src.id,
      idx.id,
    ]);
  }

  layerNorm(x: Tensor, gamma: Tensor, beta: Tensor, eps = 1e-5): Tensor {
    const c = cols(x.shape);
    if (size(gamma.shape) !== c || size(beta.shape) !== c)
      throw new Error('layerNorm gamma/beta must be [cols]');
    return this.push({ kind: 'layerNorm', x: x.id, gamma: gamma.id, beta: beta.id, eps }, x.shape, 'f32', [
      x.id,
      gamma.id,
      beta.id,
    ]);
  }

  reduce(op: ReduceOp, x: Tensor): Tensor {
    this.f32(x, op);
    return this.push({ kind: 'reduce', op, x: x.id }, x.shape.slice(0, -1), 'f32', [x.id]);
  }
  sum(x: Tensor): Tensor {
    return this.reduce('sum', x);
  }
  mean(x: Tensor): Tensor {
    return this.reduce('mean', x);
  }
  max(x: Tensor): Tensor {
    return this.reduce('max', x);
  }

  /** Multi-head causal self-attention over `batch` sequences of `seq` rows each (see OpSpec). */
  causalAttention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    opts: { batch: number; seq: number; heads: number; segments?: Tensor },
  ): Tensor {
    const { batch, seq, heads } = opts;
    const seg = opts.segments ?? null;
    for (const [t, what] of [
      [q, 'q'],
      [k, 'k'],
      [v, 'v'],
    ] as const) {
      this.f32(t, `causalAttention ${what}`);
      if (t.shape.length !== 2) throw new Error(`causalAttention ${what} must be 2-D, got ${fmt(t.shape)}`);
    }
    if (!sameShape(q.shape, k.shape) || !sameShape(q.shape, v.shape)) {
      throw new Error(
        `causalAttention: q, k, v shapes differ ${fmt(q.shape)} ${fmt(k.shape)} ${fmt(v.shape)}`,
      );
    }
    for (const [name, n] of Object.entries({ batch, seq, heads })) {
      if (!Number.isInteger(n) || n <= 0)
        throw new Error(`causalAttention: ${name} must be a positive integer`);
    }
    const [r, d] = q.shape as [number, number];
    if (r !== batch * seq) throw new Error(`causalAttention: ${r} rows, expected batch·seq = ${batch * seq}`);
    if (d % heads !== 0) throw new Error(`causalAttention: width ${d} is not a multiple of ${heads} heads`);
    if (seg && (seg.dtype !== 'u32' || size(seg.shape) !== r)) {
      throw new Error(`causalAttention: segments must be ${r} u32 ids, one per row`);
    }
    const deps = seg ? [q.id, k.id, v.id, seg.id] : [q.id, k.id, v.id];
    return this.push(
      { kind: 'causalAttention', q: q.id, k: k.id, v: v.id, segments: seg?.id ?? null, batch, seq, heads },
      q.shape,
      'f32',
      deps,
    );
  }

  /** Σ_i w_i·(−log softmax(logits_i)[t_i]): a scalar; weights are data (0 skips a row). */
  crossEntropy(logits: Tensor, targets: Tensor, weights: Tensor): Tensor {
    this.f32(logits, 'crossEntropy logits');
    this.f32(weights, 'crossEntropy weights');
    if (logits.shape.length !== 2)
      throw new Error(`crossEntropy logits must be [N, V], got ${fmt(logits.shape)}`);
    const n = logits.shape[0] as number;
    if (targets.dtype !== 'u32' || size(targets.shape) !== n)
      throw new Error(`crossEntropy needs one u32 target per row (${n})`);
    if (size(weights.shape) !== n) throw new Error(`crossEntropy needs one weight per row (${n})`);
    if (this.node(weights).requiresGrad)
      throw new Error('crossEntropy weights must not depend on parameters');
    return this.push(
      { kind: 'crossEntropy', logits: logits.id, targets: targets.id, weights: weights.id },
      [],
      'f32',
      [logits.id, targets.id, weights.id],
    );
  }

  /** The PPO-clipped surrogate Σ_i w_i·L_i of per-row log-probabilities `logp` [N] (see OpSpec). */
  ppoClip(
    logp: Tensor,
    data: { old: Tensor; ref?: Tensor | null; advantages: Tensor; weights: Tensor },
    clipEps: number,
    klCoef = 0,
  ): Tensor {
    this.f32(logp, 'ppoClip logp');
    if (logp.shape.length !== 1) throw new Error(`ppoClip logp must be [N], got ${fmt(logp.shape)}`);
    const ref = data.ref ?? null;
    const operands = [data.old, data.advantages, data.weights, ...(ref ? [ref] : [])];
    for (const t of operands) {
      this.f32(t, 'ppoClip data');
      if (!sameShape(t.shape, logp.shape))
        throw new Error(`ppoClip data ${fmt(t.shape)} is not ${fmt(logp.shape)}`);
      if (this.node(t).requiresGrad) throw new Error('ppoClip data must not depend on parameters');
    }
    if (!(clipEps >= 0) || !Number.isFinite(klCoef)) throw new Error('ppoClip: bad clipEps or klCoef');
    return this.push(
      {
        kind: 'ppoClip',
        logp: logp.id,
        old: data.old.id,
        ref: ref?.id ?? null,
        advantages: data.advantages.id,
        weights: data.weights.id,
        clipEps,
        klCoef,
      },
      [],
      'f32',
      [logp.id, ...operands.map((t) => t.id)],
    );
  }

  node(t: Tensor | number): Node {
    const n = this.nodes[typeof t === 'number' ? t : t.id];
    if (!n) throw new Error('tensor does not belong to this graph');
    return n;
  }

  params(): Node[] {
    return this.nodes.filter((n) => n.op.kind === 'param');
  }

  inputs(): Node[] {
    return this.nodes.filter((n) => n.op.kind === 'input');
  }
}

/** Log-probability written for masked entries: finite so that p·log p = 0·(−1e30) = 0, exp() = 0 exactly. */
export const MASKED_LOG_PROB = -1e30;

/** The node ids an op reads, in the order its spec lists them. */
export function opInputs(op: OpSpec): number[] {
  switch (op.kind) {
    case 'input':
    case 'param':
      return [];
    case 'matmul':
      return [op.a, op.b];
    case 'biasAct':
      return op.bias === null ? [op.x] : [op.x, op.bias];
    case 'softmax':
      return op.mask === null ? [op.x] : [op.x, op.mask];
    case 'pick':
      return [op.x, op.idx];
    case 'binary':
      return [op.a, op.b];
    case 'unary':
      return [op.x];
    case 'bernoulliLogProb':
      return [op.logits, op.target];
    case 'gatherRows':
      return [op.table, op.idx];
    case 'scatterAddRows':
      return [op.src, op.idx];
    case 'layerNorm':
      return [op.x, op.gamma, op.beta];
    case 'reduce':
      return [op.x];
    case 'causalAttention':
      return op.segments === null ? [op.q, op.k, op.v] : [op.q, op.k, op.v, op.segments];
    case 'crossEntropy':
      return [op.logits, op.targets, op.weights];
    case 'ppoClip':
      return op.ref === null
        ? [op.logp, op.old, op.advantages, op.weights]
        : [op.logp, op.old, op.advantages, op.weights, op.ref];
  }
}

const upstreamCache = new WeakMap<Graph, Map<string, Uint8Array>>();

/**
 * Marks the nodes that `ids` are computed from (themselves included): what a forward pass must run
 * to give them (`RunOptions.prune`). Node ids are in recording order, every op after what it reads,
 * so one walk from the last node back suffices. Cached per graph and list (a pruned pass asks for
 * the same few lists again and again); do not write into the result.
 */
export function upstreamOf(graph: Graph, ids: readonly number[]): Uint8Array {
  let cache = upstreamCache.get(graph);
  if (!cache) upstreamCache.set(graph, (cache = new Map()));
  const key = `${graph.nodes.length}:${ids.join(',')}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const need = new Uint8Array(graph.nodes.length);
  for (const id of ids) need[id] = 1;
  for (let id = graph.nodes.length - 1; id >= 0; id--)
    if (need[id] === 1) for (const d of opInputs(graph.node(id).op)) need[d] = 1;
  cache.set(key, need);
  return need;
}

/** Node ids on a path from a parameter to the loss, in reverse recording order (the tape, replayed backwards). */
export function backwardOrder(graph: Graph, lossId: number): number[] {
  const needed = new Set<number>([lossId]);
  for (let id = lossId; id >= 0; id--) {
    if (!needed.has(id)) continue;
    for (const d of opInputs(graph.node(id).op)) if (graph.node(d).requiresGrad) needed.add(d);
  }
  return [...needed].filter((id) => graph.node(id).requiresGrad).sort((a, b) => b - a);
}
