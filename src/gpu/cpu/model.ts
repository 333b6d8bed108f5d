/**
 * The CPU backend: executes a Graph with the reference kernels in ./ops.ts.
 *
 * A forward pass recomputes only what changed since the last one: `setInput` changes an input
 * only when its bits or live rows differ from what it holds, an optimizer update or `importState`
 * changes the parameters, and a node runs when it has never run or one of the nodes it reads
 * changed since it last ran (../fresh.ts). Every other node still holds exactly the value it would
 * compute again (ops are pure functions of their inputs), so results are bit for bit those of a
 * full pass. A pruned pass (`RunOptions.prune`) runs the stale nodes its `read` tensors need and
 * leaves the rest stale. This is what makes
 * a second `step()` after changing only a loss weight (the trainer's forward, objective, then
 * forward + backward) cost the loss's few nodes instead of a whole forward pass, and a second pass
 * that changes only the edge head's role input cost the edge head only.
 *
 * Live rows. An input set with `rows` (`Model.setInput`) ends in padding rows that the results do
 * not depend on; every tensor computed row by row from it (matmul by a weight, element-wise and
 * row-wise ops, gathers by a padded index) then has as many live rows, and only those are
 * computed, in forward and backward. Sums over rows (scatterAddRows, a weight gradient xᵀ·dy,
 * reducing a vector) read only live rows. An op that would mix padding into its result in a way
 * the rule cannot follow (attention, cross-entropy, a softmax over a padded vector) throws.
 */
import { checkInput, indexLimits, type IndexLimit } from '../inputs.ts';
import type { Graph, Node, Tensor } from '../graph.ts';
import { backwardOrder, cols, opInputs, size, upstreamOf } from '../graph.ts';
import { initialParams, paramLayout } from '../layout.ts';
import type { ParamLayout } from '../layout.ts';
import type { BackendKind, CompileOptions, Model, RunOptions, StepResult } from '../model.ts';
import type { ResolvedAdam, TrainState } from '../optimizer.ts';
import { resolveAdam } from '../optimizer.ts';
import * as ops from './ops.ts';
import { Freshness } from '../fresh.ts';
import { SharedPrefixes } from './prefix.ts';
import { TS_RUNTIME, statsLength } from './runtime.ts';
import type { CpuRuntime, Kernels } from './runtime.ts';

export type { CpuRuntime, Kernels } from './runtime.ts';

type Buf = Float32Array | Uint32Array;

export class CpuModel implements Model {
  readonly backend: BackendKind;
  private readonly k: Kernels;
  private readonly runtime: CpuRuntime;
  private readonly layout: ParamLayout;
  private readonly params: Float32Array;
  private readonly paramGrads: Float32Array;
  private readonly m: Float32Array;
  private readonly v: Float32Array;
  private t = 0;
  private readonly values: Buf[] = [];
  private readonly grads: (Float32Array | null)[] = [];
  /** Per layerNorm node: [mean, rstd] per row; per attention node: its probabilities; per crossEntropy node: [max, log Σ exp] per row. */
  private readonly stats = new Map<number, Float32Array>();
  private readonly adam: ResolvedAdam | null;
  private readonly lossId: number | null;
  /** Node ids replayed by backward, computed once: the graph is static. */
  private readonly order: number[];
  /** Per node: the node ids it reads. */
  private readonly deps: number[][];
  /** Which ops a forward pass must run again (../fresh.ts). */
  private readonly fresh: Freshness;
  private readonly paramIds: number[];
  private readonly inputByName = new Map<string, Node>();
  private readonly indexLimits: Map<number, IndexLimit>;
  /** Op nodes the last forward pass ran (the rest kept their values); for tests and profiling. */
  computed = 0;
  /** Per node: its first dimension (1 for a scalar), the floats per index of it, and its live part. */
  private readonly dim0: Int32Array;
  private readonly inner: Int32Array;
  private readonly live: Int32Array;
  /** The products of inputs with `sharedPrefix` (./prefix.ts). */
  private readonly prefixes = new SharedPrefixes();

  constructor(
    readonly graph: Graph,
    opts: CompileOptions = {},
    runtime: CpuRuntime = TS_RUNTIME,
  ) {
    this.backend = runtime.backend;
    this.runtime = runtime;
    this.k = runtime.kernels;
    this.layout = paramLayout(graph);
    this.params = runtime.f32(this.layout.total);
    this.params.set(initialParams(graph, this.layout));
    runtime.weights?.(this.params);
    this.paramGrads = runtime.f32(this.layout.total);
    this.m = runtime.f32(this.layout.total);
    this.v = runtime.f32(this.layout.total);
    this.adam = opts.optimizer ? resolveAdam(opts.optimizer) : null;
    this.lossId = opts.loss ? opts.loss.id : null;
    if (opts.loss && size(opts.loss.shape) !== 1) throw new Error('loss must be a scalar');
    this.order = this.lossId === null ? [] : backwardOrder(graph, this.lossId);
    this.deps = graph.nodes.map((n) => opInputs(n.op));
    this.fresh = Freshness.of(graph);
    this.paramIds = graph.params().map((n) => n.id);
    for (const n of graph.inputs()) if (n.op.kind === 'input') this.inputByName.set(n.op.name, n);
    this.indexLimits = indexLimits(graph);
    this.dim0 = Int32Array.from(graph.nodes, (n) => (n.shape.length === 0 ? 1 : (n.shape[0] as number)));
    this.inner = Int32Array.from(graph.nodes, (n, i) => size(n.shape) / (this.dim0[i] as number));
    this.live = Int32Array.from(this.dim0);
    for (const [name, cols] of Object.entries(opts.sharedPrefix ?? {})) {
      const n = this.inputByName.get(name);
      const d = Math.floor(cols / 4) * 4;
      if (n && d >= 4) this.prefixes.add(n.id, d);
    }
    for (const n of graph.nodes) {
      const len = size(n.shape);
      if (n.op.kind === 'param') {
        const off = this.layout.offsets.get(n.id) ?? 0;
        this.values.push(this.params.subarray(off, off + len));
        this.grads.push(this.paramGrads.subarray(off, off + len));
      } else {
        this.values.push(n.dtype === 'u32' ? runtime.u32(len) : runtime.f32(len));
        this.grads.push(n.requiresGrad ? runtime.f32(len) : null);
      }
      const stats = statsLength(graph, n);
      if (stats > 0) this.stats.set(n.id, runtime.f32(stats));
    }
  }

  private f(id: number): Float32Array {
    return this.values[id] as Float32Array;
  }
  private u(id: number): Uint32Array {
    return this.values[id] as Uint32Array;
  }
  private g(id: number): Float32Array | null {
    return this.grads[id] ?? null;
  }

  setInput(name: string, data: Float32Array | Uint32Array, rows?: number): void {
    const n = this.inputByName.get(name);
    if (!n) throw new Error(`no input named "${name}"`);
    const live = checkInput(n, data, rows, this.indexLimits.get(n.id));
    const have = this.values[n.id] as Buf;
    if (this.live[n.id] === live && sameBits(have, data)) return;
    have.set(data);
    this.live[n.id] = live;
    this.fresh.bump(n.id);
    this.prefixes.changed(n.id);
  }

  /** Live rows of op node `n` from those of the nodes it reads (see the header). */
  private liveOf(n: Node): number {
    const op = n.op;
    const L = this.live;
    switch (op.kind) {
      case 'input':
        return L[n.id] as number;
      case 'param':
        return this.dim0[n.id] as number;
      case 'matmul': {
        const a = this.graph.node(op.a);
        this.whole(n, op.b);
        if (op.transA || a.shape.length !== 2) return this.whole(n, op.a);
        return L[op.a] as number;
      }
      case 'biasAct':
      case 'unary':
        return L[op.x] as number;
      case 'softmax':
      case 'layerNorm':
        return this.rowWise(n, op.x);
      case 'pick':
        return Math.min(this.rowWise(n, op.x), L[op.idx] as number);
      case 'binary':
        return Math.min(L[op.a] as number, L[op.b] as number);
      case 'bernoulliLogProb':
        return Math.min(L[op.logits] as number, L[op.target] as number);
      case 'gatherRows':
        return L[op.idx] as number;
      case 'scatterAddRows':
        // Every output row is written (zeros where nothing lands).
        return this.dim0[n.id] as number;
      case 'reduce':
        // A padded vector reduces over its live entries; a matrix keeps its live rows.
        return this.graph.node(op.x).shape.length < 2 ? (this.dim0[n.id] as number) : this.rowWise(n, op.x);
      case 'causalAttention': {
        // Attention mixes a sequence's rows: its inputs may end in padding only by whole sequences
        // (the same live rows for all, a multiple of seq), and then only the live sequences are computed.
        const ids = this.deps[n.id] as number[];
        const live = L[ids[0] as number] as number;
        for (const id of ids)
          if ((L[id] as number) !== live || live % op.seq !== 0)
            throw new Error(`${op.kind} cannot take padding rows inside a sequence (node ${id})`);
        return live;
      }
      case 'crossEntropy':
        for (const id of this.deps[n.id] as number[]) this.whole(n, id);
        return this.dim0[n.id] as number;
      case 'ppoClip':
        // A sum over the live rows of logp (padding rows carry weight 0).
        return this.dim0[n.id] as number;
    }
  }

  /** Node `id`, read by `n`, must have all its rows live; returns `n`'s full row count. */
  private whole(n: Node, id: number): number {
    if ((this.live[id] as number) < (this.dim0[id] as number))
      throw new Error(`${n.op.kind} cannot take padding rows (node ${id})`);
    return this.dim0[n.id] as number;
  }

  /** A row-wise op over node `x`: a vector is one row, so a padded vector would read its padding. */
  private rowWise(n: Node, x: number): number {
    return this.graph.node(x).shape.length < 2 ? this.whole(n, x) : (this.live[x] as number);
  }

  private paramsChanged(): void {
    for (const id of this.paramIds) this.fresh.bump(id);
    this.runtime.weightsChanged?.();
  }

  /** Runs every stale op, or with `need` every stale op it marks (the others stay stale). */
  private forward(need: Uint8Array | null): void {
    const fresh = this.fresh;
    this.computed = 0;
    for (const n of this.graph.nodes) {
      const k = n.op.kind;
      if (k === 'input' || k === 'param' || (need && need[n.id] === 0)) continue;
      this.live[n.id] = this.liveOf(n);
      if (fresh.stale(n.id)) {
        this.forwardNode(n);
        fresh.ran(n.id);
        this.computed++;
      }
    }
  }

  /** Live floats of node `id` (its live rows times the floats per row). */
  private count(id: number): number {
    return (this.live[id] as number) * (this.inner[id] as number);
  }

  private forwardNode(n: Node): void {
    const op = n.op;
    const y = this.values[n.id] as Float32Array;
    const live = this.live[n.id] as number;
    const count = this.count(n.id);
    const c = cols(n.shape);
    switch (op.kind) {
      case 'input':
      case 'param':
        return;
      case 'matmul': {
        const d = this.prefixes.width(op.a);
        if (d !== undefined && op.batch === 1 && !op.transA && !op.transB && d <= op.k) {
          const newB = this.fresh.moved(n.id, 1);
          const [A, B] = [this.f(op.a), this.f(op.b)];
          return this.prefixes.product(this.k, n.id, op.a, A, B, newB, y, live, op.n, op.k);
        }
        return this.k.matmul(
          this.f(op.a),
          this.f(op.b),
          y,
          op.batch,
          op.batch === 1 && !op.transA ? live : op.m,
          op.n,
          op.k,
          op.transA,
          op.transB,
          false,
        );
      }
      case 'biasAct':
        return this.k.biasAct(this.f(op.x), op.bias === null ? null : this.f(op.bias), y, c, op.act, count);
      case 'softmax': {
        const mask = op.mask === null ? null : this.f(op.mask);
        const maskRows = op.mask === null ? 1 : size(this.graph.node(op.mask).shape) / c;
        return this.k.softmax(this.f(op.x), mask, maskRows, y, c, op.log, count / c);
      }
      case 'pick':
        return this.k.pick(this.f(op.x), this.u(op.idx), y, cols(this.graph.node(op.x).shape), live);
      case 'binary':
        return this.k.binary(op.op, this.f(op.a), this.f(op.b), y, count);
      case 'unary':
        return this.k.unary(op.op, this.f(op.x), y, op.alpha, count);
      case 'bernoulliLogProb':
        return this.k.bernoulliLogProb(this.f(op.logits), this.f(op.target), y, count);
      case 'gatherRows':
        return this.k.gatherRows(this.f(op.table), this.u(op.idx), y, c, false, live);
      case 'scatterAddRows':
        return this.k.scatterAddRows(this.f(op.src), this.u(op.idx), y, c, false, this.scattered(op));
      case 'layerNorm':
        return this.k.layerNorm(
          this.f(op.x),
          this.f(op.gamma),
          this.f(op.beta),
          y,
          this.stats.get(n.id) as Float32Array,
          c,
          op.eps,
          count / c,
        );
      case 'reduce': {
        const [rowsN, used] = this.reduced(n.id, op.x);
        return this.k.reduce(op.op, this.f(op.x), y, cols(this.graph.node(op.x).shape), rowsN, used);
      }
      case 'causalAttention': {
        // The live sequences only: every array cut to its first `b` sequences.
        const b = live / op.seq;
        const rows = (a: Float32Array): Float32Array => a.subarray(0, (a.length / op.batch) * b);
        return this.k.causalAttention(
          rows(this.f(op.q)),
          rows(this.f(op.k)),
          rows(this.f(op.v)),
          rows(y),
          rows(this.stats.get(n.id) as Float32Array),
          b,
          op.seq,
          op.heads,
          op.segments === null ? null : this.u(op.segments).subarray(0, live),
        );
      }
      case 'crossEntropy':
        y[0] = this.k.crossEntropy(
          this.f(op.logits),
          this.u(op.targets),
          this.f(op.weights),
          this.stats.get(n.id) as Float32Array,
          cols(this.graph.node(op.logits).shape),
        );
        return;
      case 'ppoClip':
        y[0] = ops.ppoClip(
          this.f(op.logp),
          this.f(op.old),
          op.ref === null ? null : this.f(op.ref),
          this.f(op.advantages),
          this.f(op.weights),
          op.clipEps,
          op.klCoef,
          this.stats.get(n.id) as Float32Array,
          this.live[op.logp] as number,
        );
        return;
    }
  }

  /** Source rows a scatterAddRows reads: the live ones of both its source and its index. */
  private scattered(op: { src: number; idx: number }): number {
    return Math.min(this.live[op.src] as number, this.live[op.idx] as number);
  }

  /** [rows of y, columns of x read] for reduce node `id` over `x` (a padded vector: its live entries). */
  private reduced(id: number, x: number): [number, number] {
    const xs = this.graph.node(x).shape;
    if (xs.length < 2) return [1, this.live[x] as number];
    return [this.count(id), cols(xs)];
  }

  private backwardNode(n: Node): void {
    const op = n.op;
    const gy = this.g(n.id);
    if (!gy) return;
    const y = this.values[n.id] as Float32Array;
    const live = this.live[n.id] as number;
    const count = this.count(n.id);
    const c = cols(n.shape);
    switch (op.kind) {
      case 'input':
      case 'param':
        return;
      case 'matmul': {
        // C = op(A)·op(B): dA = dC·op(B)ᵀ (stored transposed when transA), dB = op(A)ᵀ·dC likewise.
        const A = this.f(op.a);
        const B = this.f(op.b);
        const gA = this.g(op.a);
        const gB = this.g(op.b);
        // Live rows of C are those of A (not transposed, one batch); the others hold padding.
        const m = op.batch === 1 && !op.transA ? live : op.m;
        if (gA) {
          if (op.transA) this.k.matmul(B, gy, gA, op.batch, op.k, op.m, op.n, op.transB, true, true);
          else this.k.matmul(gy, B, gA, op.batch, m, op.k, op.n, false, !op.transB, true);
        }
        if (gB) {
          if (op.transB) this.k.matmul(gy, A, gB, op.batch, op.n, op.k, m, true, op.transA, true);
          else this.k.matmul(A, gy, gB, op.batch, op.k, op.n, m, !op.transA, false, true);
        }
        return;
      }
      case 'biasAct':
        return this.k.biasActGrad(
          this.f(op.x),
          op.bias === null ? null : this.f(op.bias),
          gy,
          this.g(op.x),
          op.bias === null ? null : this.g(op.bias),
          c,
          op.act,
          count,
        );
      case 'softmax': {
        const gx = this.g(op.x);
        if (!gx) return;
        const mask = op.mask === null ? null : this.f(op.mask);
        const maskRows = op.mask === null ? 1 : size(this.graph.node(op.mask).shape) / c;
        return this.k.softmaxGrad(y, gy, mask, maskRows, gx, c, op.log, count / c);
      }
      case 'pick': {
        const gx = this.g(op.x);
        if (gx) this.k.pickGrad(gy, this.u(op.idx), gx, cols(this.graph.node(op.x).shape), live);
        return;
      }
      case 'binary': {
        const ga = this.g(op.a);
        const gb = this.g(op.b);
        if (ga) this.k.binaryGrad(op.op, 0, this.f(op.a), this.f(op.b), gy, ga, count);
        if (gb) this.k.binaryGrad(op.op, 1, this.f(op.a), this.f(op.b), gy, gb, count);
        return;
      }
      case 'unary': {
        const gx = this.g(op.x);
        if (gx) this.k.unaryGrad(op.op, this.f(op.x), y, gy, gx, op.alpha, count);
        return;
      }
      case 'bernoulliLogProb':
        return this.k.bernoulliLogProbGrad(
          this.f(op.logits),
          this.f(op.target),
          gy,
          this.g(op.logits),
          this.g(op.target),
          count,
        );
      case 'gatherRows': {
        const gt = this.g(op.table);
        if (gt) this.k.scatterAddRows(gy, this.u(op.idx), gt, c, true, live);
        return;
      }
      case 'scatterAddRows': {
        const gs = this.g(op.src);
        if (gs) this.k.gatherRows(gy, this.u(op.idx), gs, c, true, this.scattered(op));
        return;
      }
      case 'layerNorm':
        return this.k.layerNormGrad(
          this.f(op.x),
          this.f(op.gamma),
          this.stats.get(n.id) as Float32Array,
          gy,
          this.g(op.x),
          this.g(op.gamma),
          this.g(op.beta),
          c,
          count / c,
        );
      case 'reduce': {
        const gx = this.g(op.x);
        if (gx) {
          const [rowsN, used] = this.reduced(n.id, op.x);
          this.k.reduceGrad(op.op, this.f(op.x), y, gy, gx, cols(this.graph.node(op.x).shape), rowsN, used);
        }
        return;
      }
      case 'causalAttention': {
        const b = (this.live[n.id] as number) / op.seq;
        const rows = (a: Float32Array): Float32Array => a.subarray(0, (a.length / op.batch) * b);
        const maybe = (a: Float32Array | null): Float32Array | null => (a === null ? null : rows(a));
        return this.k.causalAttentionGrad(
          rows(this.f(op.q)),
          rows(this.f(op.k)),
          rows(this.f(op.v)),
          rows(y),
          rows(this.stats.get(n.id) as Float32Array),
          rows(gy),
          maybe(this.g(op.q)),
          maybe(this.g(op.k)),
          maybe(this.g(op.v)),
          b,
          op.seq,
          op.heads,
        );
      }
      case 'crossEntropy': {
        const gx = this.g(op.logits);
        if (gx)
          this.k.crossEntropyGrad(
            this.f(op.logits),
            this.u(op.targets),
            this.f(op.weights),
            this.stats.get(n.id) as Float32Array,
            gy[0] as number,
            gx,
            cols(this.graph.node(op.logits).shape),
          );
        return;
      }
      case 'ppoClip': {
        const gx = this.g(op.logp);
        if (gx)
          ops.ppoClipGrad(
            this.stats.get(n.id) as Float32Array,
            gy[0] as number,
            gx,
            this.live[op.logp] as number,
          );
        return;
      }
    }
  }

  step(opts: RunOptions = {}): Promise<StepResult> {
    try {
      const out = this.run(opts);
      if (opts.read) out.values = opts.read.map((t) => Float32Array.from(this.values[t.id] as Buf));
      if (opts.state) out.state = this.state();
      return Promise.resolve(out);
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
  }

  private run(opts: RunOptions): StepResult {
    const backward = this.lossId !== null && (opts.backward ?? true);
    const reads = opts.prune === true && !backward ? opts.read?.map((t) => t.id) : undefined;
    const prune = reads !== undefined;
    this.forward(prune ? upstreamOf(this.graph, reads) : null);
    const loss = this.lossId === null || prune ? NaN : (this.f(this.lossId)[0] as number);
    if (!backward || this.lossId === null) return { loss, gradNorm: NaN };
    // Gradients of padding rows are neither written nor read: zero the live part only.
    this.grads.forEach((g, id) => g?.fill(0, 0, this.count(id)));
    const seed = this.g(this.lossId);
    if (!seed) throw new Error('the loss does not depend on any parameter');
    seed[0] = 1;
    for (const id of this.order) this.backwardNode(this.graph.node(id));
    let gradNorm: number;
    if (this.adam && (opts.update ?? true)) {
      this.t += 1;
      const adam = opts.lr === undefined ? this.adam : { ...this.adam, lr: opts.lr };
      gradNorm = this.k.adamStep(this.params, this.paramGrads, this.m, this.v, this.t, adam);
      this.paramsChanged();
    } else {
      let sq = 0;
      for (const x of this.paramGrads) sq += x * x;
      gradNorm = Math.sqrt(sq);
    }
    return { loss, gradNorm };
  }

  read(t: Tensor): Promise<Float32Array> {
    const v = this.values[t.id];
    if (!v) throw new Error('unknown tensor');
    return Promise.resolve(v instanceof Float32Array ? Float32Array.from(v) : new Float32Array(v));
  }

  readGrad(t: Tensor): Promise<Float32Array> {
    const g = this.g(t.id);
    if (!g) throw new Error('tensor has no gradient');
    return Promise.resolve(Float32Array.from(g));
  }

  exportState(): Promise<TrainState> {
    return Promise.resolve(this.state());
  }

  private state(): TrainState {
    return {
      params: Float32Array.from(this.params),
      m: Float32Array.from(this.m),
      v: Float32Array.from(this.v),
      t: this.t,
    };
  }

  importState(s: TrainState): void {
    if (s.params.length !== this.layout.total) throw new Error('state does not match this graph');
    this.params.set(s.params);
    this.paramsChanged();
    this.m.set(s.m);
    this.v.set(s.v);
    this.t = s.t;
  }

  importParams(params: Float32Array): void {
    if (params.length !== this.layout.total) throw new Error('parameters do not match this graph');
    this.params.set(params);
    this.paramsChanged();
  }

  dispose(): void {}
}

/** True when `a` and `b` hold the same bits (−0 differs from 0; a NaN equals only the same NaN). */
function sameBits(a: Buf, b: Buf): boolean {
  if (a.length !== b.length) return false;
  const x = new Uint32Array(a.buffer, a.byteOffset, a.length);
  const y = new Uint32Array(b.buffer, b.byteOffset, b.length);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}
