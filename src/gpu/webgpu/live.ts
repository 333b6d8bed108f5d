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
  MATMUL_TILE,
  MATMUL_TILES,
  SPLITK_CHUNK,
  type Call,
  type MatmulKernel,
  lanesWorkgroups,
} from './plan-calls.ts';

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
    this.calls.forEach((c, i) => {
      const deps = this.deps[i] as Int32Array;
      if (prev && deps.every((d) => L[d] === prev[d])) return;
      const sized = liveCall(this.graph, c, L, short);
      (wgs[i] as { wg: [number, number, number] }).wg = sized.wg;
      words.set(sized.uniform, i * slot);
      const op = c.node === undefined ? null : this.graph.node(c.node).op;
      if (op?.kind === 'scatterAddRows' && (L[op.src] as number) < (L[op.idx] as number))
        throw new Error(`scatterAddRows: fewer live source rows than live indices (node ${op.src})`);
    });
  }
}

/** The encoded calls that are dispatched (a scatter form that is off has no workgroups), and their calls. */
export function dispatched<E extends { wg: [number, number, number] }>(es: E[], cs: Call[]): [E[], Call[]] {
  return [es.filter((e) => e.wg[0] > 0), cs.filter((_, i) => (es[i]?.wg[0] ?? 0) > 0)];
}

function sizeCall(graph: Graph, c: Call, L: Int32Array): { uniform: number[]; wg: [number, number, number] } {
  const u = c.uniform.slice();
  let wg = c.wg;
  if (c.fused) {
    // A fused call (plan-fuse.ts): each part's live length, as if it ran alone, in its own word.
    let most = 0;
    c.fused.parts.forEach((part, j) => {
      const n = sizeCall(graph, part, L).uniform[0] as number;
      u[c.fused?.words[j] as number] = n;
      most = Math.max(most, n);
    });
    return { uniform: u, wg: grid(most, c.fused.per) };
  }
  if (c.node === undefined) return { uniform: u, wg };
  const n = graph.node(c.node);
  const op = n.op;
  const live = L[n.id] as number;
  const inner = (id: number): number =>
    size(graph.node(id).shape) / Math.max(1, graph.node(id).shape[0] ?? 1);
  /** Live rows in the kernels' sense (last axis = columns) of node `id`. */
  const rowsOf = (id: number): number => ((L[id] as number) * inner(id)) / cols(graph.node(id).shape);
  const flat = (len: number, per: number): void => {
    u[0] = len;
    wg = grid(len, per);
  };
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
      flat(live * inner(n.id), 256);
      break;
    case 'gather_rows':
      // Forward: one output row per live index; backward of scatterAddRows: its live sources.
      if (op.kind === 'scatterAddRows')
        flat(Math.min(L[op.src] as number, L[op.idx] as number) * cols(n.shape), 256);
      else flat(live * cols(n.shape), 256);
      break;
    case 'scatter_partial': {
      // Chunks of the live positions of the index over the live destination rows.
      if (op.kind !== 'gatherRows' && op.kind !== 'scatterAddRows') break;
      const dest = op.kind === 'gatherRows' ? rowsOf(op.table) : op.rows;
      flat(maxChunks(L[op.idx] as number, dest) * cols(n.shape), 256);
      break;
    }
    case 'scatter_add_rows':
    case 'scatter_rows':
      // The table gradient of a gather: its live table rows (a scatter's own output keeps all rows).
      if (op.kind === 'gatherRows') flat(rowsOf(op.table) * cols(n.shape), 256);
      else if (c.kernel === 'scatter_rows') wg = grid(u[0] as number, 256);
      break;
    case 'softmax':
    case 'softmax_grad':
    case 'layer_norm':
    case 'layer_norm_grad':
      flat(rowsOf(n.id), 64);
      break;
    case 'pick':
      flat(live * inner(n.id), 256);
      break;
    case 'pick_grad':
      if (op.kind === 'pick') flat((L[op.x] as number) * inner(op.x), 256);
      break;
    case 'col_sum':
    case 'col_rows':
      u[0] = rowsOf(n.id);
      break;
    case 'col_partial':
      u[0] = rowsOf(n.id);
      wg = grid(Math.max(1, Math.ceil(u[0] / COL_BLOCK)) * (u[1] as number), 256);
      break;
    case 'reduce':
      if (op.kind !== 'reduce') break;
      if (graph.node(op.x).shape.length < 2) u[1] = L[op.x] as number;
      else flat(rowsOf(op.x), 64);
      break;
    case 'reduce_wide':
      // One workgroup per row (at most REDUCE_WIDE_ROWS); a vector's live length is its columns.
      if (op.kind !== 'reduce') break;
      if (graph.node(op.x).shape.length < 2) u[1] = L[op.x] as number;
      else {
        u[0] = rowsOf(op.x);
        wg = [Math.max(1, u[0]), 1, 1];
      }
      break;
    case 'reduce_grad':
      if (op.kind !== 'reduce') break;
      if (graph.node(op.x).shape.length < 2) {
        u[1] = L[op.x] as number;
        flat(L[op.x] as number, 256);
      } else flat((L[op.x] as number) * inner(op.x), 256);
      break;
    case 'matmul':
    case 'matmul_tiled':
    case 'matmul_wide': {
      if (op.kind !== 'matmul' || op.transA || op.batch !== 1 || live === op.m) break;
      const r = c.refs[2];
      const intoB = r?.t === 'grad' && r.id === op.b;
      // C and dA: rows of op(A) are live rows; dB = op(A)ᵀ·dC sums over them (K = live rows).
      if (intoB) u[2] = live;
      else {
        u[0] = live;
        wg = [wg[0], Math.max(1, Math.ceil(live / MATMUL_TILES[c.kernel as MatmulKernel])), wg[2]];
      }
      break;
    }
    case 'matmul_lanes': {
      if (op.kind !== 'matmul' || op.transA || op.batch !== 1 || live === op.m) break;
      const r = c.refs[2];
      // As matmul: dB sums over the live rows (K); C and dA have live output rows.
      if (r?.t === 'grad' && r.id === op.b) u[2] = live;
      else {
        u[0] = live;
        wg = [lanesWorkgroups(live, u[1] as number, c.constants.LK as number), 1, wg[2]];
      }
      break;
    }
    case 'matmul_splitk':
    case 'matmul_splitk_sum': {
      if (op.kind !== 'matmul' || op.transA || op.batch !== 1 || live === op.m) break;
      // dB = op(A)ᵀ·dC (scratch splitKdB): K = live rows, ⌈live / SPLITK_CHUNK⌉ chunks. C and dA:
      // live output rows.
      const r = c.refs[c.kernel === 'matmul_splitk' ? 2 : 0];
      // After matmul_splitk_tiled (u[3] = its chunk), the sum reads ⌈live / chunk⌉ chunks as k.
      const chunk = c.kernel === 'matmul_splitk_sum' ? (u[3] as number) : 1;
      if (r?.t === 'temp' && r.slot === 'splitKdB')
        u[2] = chunk > 1 ? Math.ceil(live / chunk) * SPLITK_CHUNK : live;
      else u[0] = live;
      const [m, nn, k] = u as [number, number, number];
      if (c.kernel === 'matmul_splitk_sum') wg = grid(m * nn, 256);
      else wg = [wg[0], Math.max(1, Math.ceil(m / 32)), Math.max(1, Math.ceil(k / SPLITK_CHUNK))];
      break;
    }
    case 'matmul_splitk_tiled': {
      if (op.kind !== 'matmul' || op.transA || op.batch !== 1 || live === op.m) break;
      const r = c.refs[2];
      if (r?.t === 'temp' && r.slot === 'splitKdB') u[2] = live;
      else u[0] = live;
      const [m, , k, chunk] = u as [number, number, number, number];
      wg = [wg[0], Math.max(1, Math.ceil(m / MATMUL_TILE)), Math.max(1, Math.ceil(k / chunk))];
      break;
    }
    default:
      break;
  }
  return { uniform: u, wg };
}
