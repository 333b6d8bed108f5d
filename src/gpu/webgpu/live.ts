/**
 * Live rows on WebGPU. An input set with `rows` (`Model.setInput`) ends in padding rows; the rule of
 * the CPU backend (cpu/model.ts `liveOf`) gives every node its live rows, and here each kernel call
 * whose work is row by row gets its sizes (uniform words) and workgroup counts from those live
 * rows at step time, so padding costs no dispatch work. Sums over rows (a weight gradient xᵀ·dy, a
 * bias or layer-norm column sum, reducing a padded vector, a scatter's source lists) read live rows
 * only; padding rows of a result are left as they were, and no live result reads them. Graphs the
 * CPU backend refuses (attention, cross-entropy or a row softmax over padding) are refused alike.
 */
import type { Graph } from '../graph.ts';
import { cols, opInputs, size } from '../graph.ts';
import { maxChunks } from './csr.ts';
import {
  baseKernel,
  COL_BLOCK,
  grid,
  LAYER_NORM_WIDE_WG,
  MATMUL_TILE,
  MATMUL_TILES,
  REDUCE_WIDE_WG,
  SPLITK_CHUNK,
  type Call,
  type MatmulKernel,
  lanesWorkgroups,
} from './plan-calls.ts';
import { siblingWords } from './plan-siblings.ts';

/** Live rows of every node from the live rows of the inputs (absent: all rows). */
export function liveRows(graph: Graph, inputLive: ReadonlyMap<number, number>): Int32Array {
  const dim0 = (id: number): number => {
    const s = graph.node(id).shape;
    return s.length === 0 ? 1 : (s[0] as number);
  };
  const L = new Int32Array(graph.nodes.length);
  for (const n of graph.nodes) {
    const op = n.op;
    const full = dim0(n.id);
    const whole = (...ids: number[]): number => {
      for (const id of ids)
        if ((L[id] as number) < dim0(id)) throw new Error(`${op.kind} cannot take padding rows (node ${id})`);
      return full;
    };
    const rowWise = (x: number): number => (graph.node(x).shape.length < 2 ? whole(x) : (L[x] as number));
    let v: number;
    switch (op.kind) {
      case 'input':
        v = inputLive.get(n.id) ?? full;
        break;
      case 'param':
      case 'scatterAddRows':
      case 'ppoClip':
        v = full;
        break;
      case 'matmul':
        if (op.transA || graph.node(op.a).shape.length !== 2) v = whole(op.a, op.b);
        else v = (whole(op.b), L[op.a] as number);
        break;
      case 'biasAct':
      case 'unary':
        v = L[op.x] as number;
        break;
      case 'softmax':
      case 'layerNorm':
        v = rowWise(op.x);
        break;
      case 'pick':
        v = Math.min(rowWise(op.x), L[op.idx] as number);
        break;
      case 'binary':
        v = Math.min(L[op.a] as number, L[op.b] as number);
        break;
      case 'bernoulliLogProb':
        v = Math.min(L[op.logits] as number, L[op.target] as number);
        break;
      case 'gatherRows':
        v = L[op.idx] as number;
        break;
      case 'reduce':
        v = graph.node(op.x).shape.length < 2 ? full : (L[op.x] as number);
        break;
      case 'causalAttention': {
        // Padding by whole sequences only (as on the CPU); the kernel still computes every
        // sequence, and the padding ones are never read.
        const ins = [op.q, op.k, op.v, ...(op.segments === null ? [] : [op.segments])];
        const live = L[op.q] as number;
        for (const id of ins)
          if ((L[id] as number) !== live || live % op.seq !== 0)
            throw new Error(`${op.kind} cannot take padding rows inside a sequence (node ${id})`);
        v = live;
        break;
      }
      case 'crossEntropy':
        v = whole(op.logits, op.targets, op.weights);
        break;
    }
    L[n.id] = v;
  }
  return L;
}

/**
 * The one-pass scatter (scatter_rows.wgsl) runs while the longest source list of its index has at
 * most this many chunks of CHUNK sources (256 sources), the two-pass one beyond: the one pass saves
 * a dispatch, the two passes spread a long list over many invocations.
 */
export const SCATTER_SHORT_CHUNKS = 4;

/** Chunks of the longest list of CSR lists (csr.ts): which scatter form runs (SCATTER_SHORT_CHUNKS). */
export function longestChunks(chunks: Uint32Array): number {
  let most = 0;
  for (let r = 0; r + 1 < chunks.length; r++)
    most = Math.max(most, (chunks[r + 1] as number) - (chunks[r] as number));
  return most;
}

/**
 * A call's sizes and workgroups for the live rows `L` (the plan's own where nothing is padded).
 * `short(idx, rows)`: whether the longest list of the CSR lists a scatter call reads has at most
 * SCATTER_SHORT_CHUNKS chunks; a call whose `when` does not hold gets no workgroups (the model
 * skips it).
 */
export function liveCall(
  graph: Graph,
  c: Call,
  L: Int32Array,
  short: (idx: number, rows: number) => boolean = () => false,
): { uniform: number[]; wg: [number, number, number] } {
  const sized = sizeCall(graph, c, L);
  const w = c.when;
  if (w && short(w.idx, w.rows) !== w.short) sized.wg = [0, 0, 0];
  return sized;
}

/**
 * Sizes a model's calls for live rows step after step (liveCall), resizing only the calls whose
 * sizes can have changed: those of a node, or reading a node (each fused part's), whose live rows
 * moved. A policy's minibatch moves the live rows of its agent, link and edge nodes and few others,
 * so most of the trainer's update's 194 calls keep their sizes (`npm run bench:gpu-host` times the
 * host's part of an update).
 */
export class LiveSizer {
  /** Per call: the nodes whose live rows its sizes are computed from. */
  private readonly deps: Int32Array[];
  /** Per call: its Sizer, made once. */
  private readonly sizers: Sizer[];

  constructor(
    private readonly graph: Graph,
    private readonly calls: readonly Call[],
  ) {
    this.deps = calls.map((c) => {
      const ids = new Set<number>();
      for (const x of [c, ...(c.fused?.parts ?? [])]) {
        if (x.node === undefined) continue;
        ids.add(x.node);
        for (const d of opInputs(graph.node(x.node).op)) ids.add(d);
      }
      return Int32Array.from(ids);
    });
    this.sizers = calls.map((c) => sizerOf(graph, c));
  }

  /**
   * Writes the workgroups (`wgs[i].wg`) and uniform words (`words`, `slot` words per call) of every
   * call whose live rows differ from `prev` (the rows they were last sized for; null: all calls).
   * Refuses a scatter with fewer live source rows than live indices.
   */
  resize(
    L: Int32Array,
    prev: Int32Array | null,
    short: (idx: number, rows: number) => boolean,
    wgs: readonly { wg: [number, number, number] }[],
    words: Uint32Array,
    slot: number,
  ): void {
    for (let i = 0; i < this.calls.length; i++) {
      const deps = this.deps[i] as Int32Array;
      if (prev && unmoved(deps, L, prev)) continue;
      const c = this.calls[i] as Call;
      const w = c.when;
      const wg = (this.sizers[i] as Sizer)(L, words, i * slot);
      (wgs[i] as { wg: [number, number, number] }).wg =
        w && short(w.idx, w.rows) !== w.short ? [0, 0, 0] : wg;
      const op = c.node === undefined ? null : this.graph.node(c.node).op;
      if (op?.kind === 'scatterAddRows' && (L[op.src] as number) < (L[op.idx] as number))
        throw new Error(`scatterAddRows: fewer live source rows than live indices (node ${op.src})`);
    }
  }
}

/** No node of `deps` has other live rows in `L` than in `prev`. */
function unmoved(deps: Int32Array, L: Int32Array, prev: Int32Array): boolean {
  for (let k = 0; k < deps.length; k++) {
    const d = deps[k] as number;
    if (L[d] !== prev[d]) return false;
  }
  return true;
}

/** The encoded calls that are dispatched (a scatter form that is off has no workgroups), and their calls. */
export function dispatched<E extends { wg: [number, number, number] }>(es: E[], cs: Call[]): [E[], Call[]] {
  return [es.filter((e) => e.wg[0] > 0), cs.filter((_, i) => (es[i]?.wg[0] ?? 0) > 0)];
}

/**
 * Writes a call's sizes for live rows `L`: its uniform words into `u` from word `at` (the plan's
 * own words, then those the live rows change) and returns its workgroups.
 */
type Sizer = (L: Int32Array, u: Uint32Array | number[], at: number) => [number, number, number];

function sizeCall(graph: Graph, c: Call, L: Int32Array): { uniform: number[]; wg: [number, number, number] } {
  const uniform = c.uniform.slice();
  const wg = sizerOf(graph, c)(L, uniform, 0);
  return { uniform, wg };
}

/**
 * A call's Sizer. What does not depend on the live rows (the kernel's case, node ids, row widths,
 * the plan's words) is worked out here, once per call, so that sizing a model's calls before each
 * step allocates and looks up little.
 */
function sizerOf(graph: Graph, c: Call): Sizer {
  const base = c.uniform;
  const nw = base.length;
  const plan = c.wg;
  const own = (u: Uint32Array | number[], at: number): void => {
    for (let w = 0; w < nw; w++) u[at + w] = base[w] as number;
  };
  const planned: Sizer = (_L, u, at) => {
    own(u, at);
    return [plan[0], plan[1], plan[2]];
  };
  if (c.fused && (c.kernel === 'matmul_siblings' || c.kernel === 'matmul_siblings_sg')) {
    // Sibling products (plan-siblings.ts): the left operand's live rows are every member's.
    const { parts } = c.fused;
    const offsets = [base[8], base[9], base[10]] as number[];
    const a = (parts[0] as Call).node as number;
    const m0 = base[0] as number;
    return (L, u, at) => {
      own(u, at);
      const live = L[a] as number;
      if (live === m0) return [plan[0], plan[1], plan[2]];
      const { uniform, wg } = siblingWords(parts, live, offsets);
      for (let w = 0; w < uniform.length; w++) u[at + w] = uniform[w] as number;
      return wg;
    };
  }
  const group = baseKernel(c.kernel);
  if (c.fused && (group === 'matmul_wgrads' || group === 'matmul_xgrads')) {
    // Grouped gradient products (plan-grads.ts), sized as their first member alone: weight
    // gradients of one input sum over its live rows (K, word 1; the workgroups stay); input
    // gradients into one tensor's have them as their rows (word 0) and take the member's workgroups.
    const weights = group === 'matmul_wgrads';
    const sizer = sizerOf(graph, c.fused.parts[0] as Call);
    const scratch = new Uint32Array(4);
    return (L, u, at) => {
      own(u, at);
      const wg = sizer(L, scratch, 0);
      if (!weights) {
        u[at] = scratch[0] as number;
        return wg;
      }
      u[at + 1] = scratch[2] as number;
      return [plan[0], plan[1], plan[2]];
    };
  }
  if (c.fused) {
    // A fused call (plan-fuse.ts): each part's live length, as if it ran alone, in its own word.
    const { parts, words, per } = c.fused;
    const sizers = parts.map((part) => sizerOf(graph, part));
    const scratch = new Uint32Array(Math.max(1, ...parts.map((part) => part.uniform.length)));
    return (L, u, at) => {
      own(u, at);
      let most = 0;
      for (let j = 0; j < sizers.length; j++) {
        (sizers[j] as Sizer)(L, scratch, 0);
        const n = scratch[0] as number;
        u[at + (words[j] as number)] = n;
        most = Math.max(most, n);
      }
      return grid(most, per);
    };
  }
  if (c.node === undefined) return planned;
  const n = graph.node(c.node);
  const op = n.op;
  const id = n.id;
  const shapeOf = (x: number): readonly number[] => graph.node(x).shape;
  const inner = (x: number): number => size(shapeOf(x)) / Math.max(1, shapeOf(x)[0] ?? 1);
  /** Live rows in the kernels' sense (last axis = columns) of node x. */
  const rowsOf = (x: number): ((L: Int32Array) => number) => {
    const w = inner(x);
    const k = cols(shapeOf(x));
    return (L) => ((L[x] as number) * w) / k;
  };
  /** u[0] = len, one invocation per element in workgroups of `per`. */
  const flat =
    (len: (L: Int32Array) => number, per: number): Sizer =>
    (L, u, at) => {
      own(u, at);
      const k = len(L);
      u[at] = k;
      return grid(k, per);
    };
  /** As `flat`, with a workgroup of `per` invocations per one of the `len` live rows. */
  const perRow =
    (len: (L: Int32Array) => number, per: number): Sizer =>
    (L, u, at) => {
      own(u, at);
      const k = len(L);
      u[at] = k;
      return grid(k * per, per);
    };
  /** Only the uniform words `set` writes change; the planned workgroups stay. */
  const words =
    (set: (L: Int32Array, u: Uint32Array | number[], at: number) => void): Sizer =>
    (L, u, at) => {
      own(u, at);
      set(L, u, at);
      return [plan[0], plan[1], plan[2]];
    };
  const isVector = (x: number): boolean => shapeOf(x).length < 2;
  /**
   * A product over live rows of op(A) (m planned rows, B node b): C and dA have live output rows,
   * with workgroups `wgOf(live)`; dB = op(A)ᵀ·dC sums over them (K = live rows).
   */
  const product = (m: number, b: number, wgOf: (live: number) => [number, number, number]): Sizer => {
    const r = c.refs[2];
    const intoB = r?.t === 'grad' && r.id === b;
    return (L, u, at) => {
      own(u, at);
      const live = L[id] as number;
      if (live === m) return [plan[0], plan[1], plan[2]];
      if (intoB) {
        u[at + 2] = live;
        return [plan[0], plan[1], plan[2]];
      }
      u[at] = live;
      return wgOf(live);
    };
  };
  const rowMatmul = op.kind === 'matmul' && !op.transA && op.batch === 1;
  // A subgroup twin (kernels.ts SUBGROUP_TWINS) runs on the uniforms and workgroups of its kernel.
  switch (baseKernel(c.kernel)) {
    case 'bias_act':
    case 'binary':
    case 'unary':
    case 'bernoulli':
    case 'bias_act_grad':
    case 'binary_grad':
    case 'unary_grad':
    case 'bernoulli_grad':
    case 'pick': {
      const w = inner(id);
      return flat((L) => (L[id] as number) * w, 256);
    }
    case 'gather_rows': {
      // Forward: one output row per live index; backward of scatterAddRows: its live sources.
      const w = cols(n.shape);
      if (op.kind === 'scatterAddRows') {
        const { src, idx } = op;
        return flat((L) => Math.min(L[src] as number, L[idx] as number) * w, 256);
      }
      return flat((L) => (L[id] as number) * w, 256);
    }
    case 'scatter_partial': {
      // Chunks of the live positions of the index over the live destination rows.
      const w = cols(n.shape);
      if (op.kind === 'gatherRows') {
        const { table, idx } = op;
        const rows = rowsOf(table);
        return flat((L) => maxChunks(L[idx] as number, rows(L)) * w, 256);
      }
      if (op.kind === 'scatterAddRows') {
        const { rows, idx } = op;
        return flat((L) => maxChunks(L[idx] as number, rows) * w, 256);
      }
      return planned;
    }
    case 'scatter_add_rows':
    case 'scatter_rows': {
      // The table gradient of a gather: its live table rows (a scatter's own output keeps all rows).
      if (op.kind === 'gatherRows') {
        const rows = rowsOf(op.table);
        const w = cols(n.shape);
        return flat((L) => rows(L) * w, 256);
      }
      if (c.kernel === 'scatter_rows') {
        const fixed = grid(base[0] as number, 256);
        return (_L, u, at) => {
          own(u, at);
          return [fixed[0], fixed[1], fixed[2]];
        };
      }
      return planned;
    }
    case 'softmax':
    case 'softmax_grad':
    case 'layer_norm':
    case 'layer_norm_grad':
      return flat(rowsOf(id), 64);
    case 'layer_norm_wide':
    case 'layer_norm_grad_wide':
      return perRow(rowsOf(id), LAYER_NORM_WIDE_WG);
    case 'pick_grad': {
      if (op.kind !== 'pick') return planned;
      const { x } = op;
      const w = inner(x);
      return flat((L) => (L[x] as number) * w, 256);
    }
    case 'col_sum':
    case 'col_rows':
    case 'col_blocks': {
      const rows = rowsOf(id);
      return words((L, u, at) => (u[at] = rows(L)));
    }
    case 'col_partial': {
      const rows = rowsOf(id);
      const colsWord = base[1] as number;
      return (L, u, at) => {
        own(u, at);
        const r = rows(L);
        u[at] = r;
        return grid(Math.max(1, Math.ceil(r / COL_BLOCK)) * colsWord, 256);
      };
    }
    case 'reduce': {
      if (op.kind !== 'reduce') return planned;
      const { x } = op;
      if (isVector(x)) return words((L, u, at) => (u[at + 1] = L[x] as number));
      return flat(rowsOf(x), 64);
    }
    case 'reduce_wide': {
      // One workgroup per live row; a vector's live length is its columns.
      if (op.kind !== 'reduce') return planned;
      const { x } = op;
      if (isVector(x)) return words((L, u, at) => (u[at + 1] = L[x] as number));
      return perRow(rowsOf(x), REDUCE_WIDE_WG);
    }
    case 'reduce_grad': {
      if (op.kind !== 'reduce') return planned;
      const { x } = op;
      if (isVector(x))
        return (L, u, at) => {
          own(u, at);
          const k = L[x] as number;
          u[at + 1] = k;
          u[at] = k;
          return grid(k, 256);
        };
      const w = inner(x);
      return flat((L) => (L[x] as number) * w, 256);
    }
    case 'matmul':
    case 'matmul_tiled':
    case 'matmul_wide': {
      if (op.kind !== 'matmul' || !rowMatmul) return planned;
      const tile = MATMUL_TILES[c.kernel as MatmulKernel];
      return product(op.m, op.b, (live) => [plan[0], Math.max(1, Math.ceil(live / tile)), plan[2]]);
    }
    case 'matmul_lanes': {
      if (op.kind !== 'matmul' || !rowMatmul) return planned;
      const nWord = base[1] as number;
      const LK = c.constants.LK as number;
      return product(op.m, op.b, (live) => [lanesWorkgroups(live, nWord, LK), 1, plan[2]]);
    }
    case 'matmul_splitk':
    case 'matmul_splitk_sum': {
      if (op.kind !== 'matmul' || !rowMatmul) return planned;
      const m0 = op.m;
      // dB = op(A)ᵀ·dC (scratch splitKdB): K = live rows, ⌈live / SPLITK_CHUNK⌉ chunks. C and dA:
      // live output rows.
      const sum = c.kernel === 'matmul_splitk_sum';
      const r = c.refs[sum ? 0 : 2];
      // After matmul_splitk_tiled (u[3] = its chunk), the sum reads ⌈live / chunk⌉ chunks as k.
      const chunk = sum ? (base[3] as number) : 1;
      const intoK = r?.t === 'temp' && r.slot === 'splitKdB';
      return (L, u, at) => {
        own(u, at);
        const live = L[id] as number;
        if (live === m0) return [plan[0], plan[1], plan[2]];
        if (intoK) u[at + 2] = chunk > 1 ? Math.ceil(live / chunk) * SPLITK_CHUNK : live;
        else u[at] = live;
        const [m, nn, k] = [u[at] as number, u[at + 1] as number, u[at + 2] as number];
        if (sum) return grid(m * nn, 256);
        return [plan[0], Math.max(1, Math.ceil(m / 32)), Math.max(1, Math.ceil(k / SPLITK_CHUNK))];
      };
    }
    case 'matmul_splitk_tiled': {
      if (op.kind !== 'matmul' || !rowMatmul) return planned;
      const m0 = op.m;
      const r = c.refs[2];
      const intoK = r?.t === 'temp' && r.slot === 'splitKdB';
      const chunk = base[3] as number;
      return (L, u, at) => {
        own(u, at);
        const live = L[id] as number;
        if (live === m0) return [plan[0], plan[1], plan[2]];
        if (intoK) u[at + 2] = live;
        else u[at] = live;
        const [m, k] = [u[at] as number, u[at + 2] as number];
        return [plan[0], Math.max(1, Math.ceil(m / MATMUL_TILE)), Math.max(1, Math.ceil(k / chunk))];
      };
    }
    default:
      return planned;
  }
}
