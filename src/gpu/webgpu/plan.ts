/**
 * Turns a Graph into a device-independent list of kernel calls: forward in recording order, backward
 * in reverse (the tape), then grad_norm + adam. The list is materialised on a device by model.ts,
 * and again on a fresh device after a loss.
 *
 * Long because it has one forward and one backward case per graph op; a case per op reads against
 * cpu/ops.ts more easily than a split by op family would.
 */
import type { Graph, Node } from '../graph.ts';
import { cols, rows, size } from '../graph.ts';
import type { ParamLayout } from '../layout.ts';
import type { KernelName } from './kernels.ts';

/** Where a kernel binding points. Byte layouts are documented in model.ts where the buffers are made. */
export type Ref =
  | { t: 'value'; id: number }
  | { t: 'grad'; id: number }
  /**
   * Per-node scratch that is fully rewritten before it is read (dz, gy·x̂, layer-norm stats or
   * cross-entropy lse, attention probabilities and score gradients, cross-entropy row losses).
   */
  | {
      t: 'temp';
      id: number;
      slot: 'dz' | 'gxh' | 'stats' | 'probs' | 'dscores' | 'rowLoss';
      floats: number;
    }
  /**
   * The rows of the u32 input `idx` grouped by value, for `rows` destination rows (CSR, built on
   * the host whenever the input is set): `offsets` u32[rows + 1], `sources` u32[max(1, count)].
   */
  | { t: 'csr'; idx: number; rows: number; part: 'offsets' | 'sources' }
  | { t: 'arena'; which: 'params' | 'grads' | 'm' | 'v' }
  /** [‖g‖₂, clip scale], written by grad_norm.wgsl. */
  | { t: 'norm' }
  /** Constant buffers: a mask of ones, a zero bias; `floats` long. */
  | { t: 'ones' | 'zeros'; floats: number }
  /** A write-only sink for kernel outputs that are switched off by an override. */
  | { t: 'sink' };

export interface Call {
  kernel: KernelName;
  constants: Record<string, number>;
  /** Uniform words (u32 bit patterns; f32 fields go through f32Bits). At most 16 words. */
  uniform: number[];
  refs: Ref[];
  wg: [number, number, number];
}

const F = new Float32Array(1);
const U = new Uint32Array(F.buffer);
export function f32Bits(x: number): number {
  F[0] = x;
  return U[0] as number;
}

const MAX_WG = 65535;
/** Workgroups for n invocations at `per` invocations per workgroup, folded into y past 65535. */
export function grid(n: number, per: number): [number, number, number] {
  const groups = Math.max(1, Math.ceil(n / per));
  const x = Math.min(groups, MAX_WG);
  return [x, Math.ceil(groups / x), 1];
}

const ACT = { none: 0, relu: 1, tanh: 2, gelu: 3, sigmoid: 4 } as const;
const BIN = { add: 0, sub: 1, mul: 2 } as const;
const UN = { scale: 0, exp: 1, log: 2, sigmoid: 3, tanh: 4 } as const;
const RED = { sum: 0, mean: 1, max: 2 } as const;

export interface Plan {
  forward: Call[];
  backward: Call[];
  /** grad_norm (+ adam when an optimizer is set). */
  update: Call[];
}

export function buildPlan(graph: Graph, layout: ParamLayout, backwardIds: number[], clipNorm: number): Plan {
  const forward: Call[] = [];
  for (const n of graph.nodes) forward.push(...forwardCalls(graph, n));
  const backward: Call[] = [];
  for (const id of backwardIds) backward.push(...backwardCalls(graph, graph.node(id)));
  const update: Call[] = [
    {
      kernel: 'grad_norm',
      constants: {},
      uniform: [layout.total, f32Bits(clipNorm)],
      refs: [{ t: 'arena', which: 'grads' }, { t: 'norm' }],
      wg: [1, 1, 1],
    },
  ];
  return { forward, backward, update };
}

/** The adam call; its uniform (bias corrections) is rewritten every step by the model. */
export function adamCall(total: number): Call {
  return {
    kernel: 'adam',
    constants: {},
    uniform: [total, 0, 0, 0, 0, 0, 0, 0],
    refs: [
      { t: 'arena', which: 'params' },
      { t: 'arena', which: 'grads' },
      { t: 'arena', which: 'm' },
      { t: 'arena', which: 'v' },
      { t: 'norm' },
    ],
    wg: grid(total, 256),
  };
}

const val = (id: number): Ref => ({ t: 'value', id });
const grad = (id: number): Ref => ({ t: 'grad', id });

function maskRows(graph: Graph, maskId: number | null, c: number): number {
  return maskId === null ? 1 : size(graph.node(maskId).shape) / c;
}

/**
 * out (+)= the rows of `src` summed per destination row of the u32 input `idx`, through its CSR
 * lists (see scatter_add_rows.wgsl); `len` = outRows·cols.
 */
function scatterCall(
  src: Ref,
  idx: number,
  outRows: number,
  out: Ref,
  len: number,
  c: number,
  accumulate: boolean,
): Call {
  return {
    kernel: 'scatter_add_rows',
    constants: { ACCUMULATE: accumulate ? 1 : 0 },
    uniform: [len, c],
    refs: [
      src,
      { t: 'csr', idx, rows: outRows, part: 'offsets' },
      { t: 'csr', idx, rows: outRows, part: 'sources' },
      out,
    ],
    wg: grid(len, 256),
  };
}

function forwardCalls(graph: Graph, n: Node): Call[] {
  const op = n.op;
  const len = size(n.shape);
  const y = val(n.id);
  switch (op.kind) {
    case 'input':
    case 'param':
      return [];
    case 'matmul':
      return [
        {
          kernel: 'matmul',
          constants: { TRANS_A: op.transA ? 1 : 0, TRANS_B: op.transB ? 1 : 0, ACCUMULATE: 0 },
          uniform: [op.m, op.n, op.k, op.batch],
          refs: [val(op.a), val(op.b), y],
          wg: [Math.ceil(op.n / 32), Math.ceil(op.m / 32), op.batch],
        },
      ];
    case 'biasAct': {
      const c = cols(n.shape);
      const bias: Ref = op.bias === null ? { t: 'zeros', floats: c } : val(op.bias);
      return [
        {
          kernel: 'bias_act',
          constants: { ACT: ACT[op.act] },
          uniform: [len, c],
          refs: [val(op.x), bias, y],
          wg: grid(len, 256),
        },
      ];
    }
    case 'softmax': {
      const c = cols(n.shape);
      const r = rows(n.shape);
      const mask: Ref = op.mask === null ? { t: 'ones', floats: c } : val(op.mask);
      return [
        {
          kernel: 'softmax',
          constants: { LOG: op.log ? 1 : 0 },
          uniform: [r, c, maskRows(graph, op.mask, c)],
          refs: [val(op.x), mask, y],
          wg: grid(r, 64),
        },
      ];
    }
    case 'pick':
      return [
        {
          kernel: 'pick',
          constants: {},
          uniform: [len, cols(graph.node(op.x).shape)],
          refs: [val(op.x), val(op.idx), y],
          wg: grid(len, 256),
        },
      ];
    case 'binary':
      return [
        {
          kernel: 'binary',
          constants: { OP: BIN[op.op] },
          uniform: [len],
          refs: [val(op.a), val(op.b), y],
          wg: grid(len, 256),
        },
      ];
    case 'unary':
      return [
        {
          kernel: 'unary',
          constants: { OP: UN[op.op] },
          uniform: [len, f32Bits(op.alpha)],
          refs: [val(op.x), y],
          wg: grid(len, 256),
        },
      ];
    case 'bernoulliLogProb':
      return [
        {
          kernel: 'bernoulli',
          constants: {},
          uniform: [len],
          refs: [val(op.logits), val(op.target), y],
          wg: grid(len, 256),
        },
      ];
    case 'gatherRows':
      return [
        {
          kernel: 'gather_rows',
          constants: { ACCUMULATE: 0 },
          uniform: [len, cols(n.shape), graph.node(op.table).shape[0] as number],
          refs: [val(op.table), val(op.idx), y],
          wg: grid(len, 256),
        },
      ];
    case 'scatterAddRows':
      return [scatterCall(val(op.src), op.idx, op.rows, y, len, cols(n.shape), false)];
    case 'layerNorm': {
      const r = rows(n.shape);
      return [
        {
          kernel: 'layer_norm',
          constants: {},
          uniform: [r, cols(n.shape), f32Bits(op.eps)],
          refs: [
            val(op.x),
            val(op.gamma),
            val(op.beta),
            y,
            { t: 'temp', id: n.id, slot: 'stats', floats: 2 * r },
          ],
          wg: grid(r, 64),
        },
      ];
    }
    case 'causalAttention': {
      const d = cols(n.shape);
      const hd = d / op.heads;
      const probs: Ref = {
        t: 'temp',
        id: n.id,
        slot: 'probs',
        floats: op.batch * op.heads * op.seq * op.seq,
      };
      return [
        {
          kernel: 'attention',
          constants: { SEGMENTS: op.segments === null ? 0 : 1 },
          uniform: [op.batch, op.seq, d, op.heads, f32Bits(1 / Math.sqrt(hd))],
          // Without segments the kernel never reads binding 3; any small buffer serves.
          refs: [
            val(op.q),
            val(op.k),
            op.segments === null ? { t: 'zeros', floats: 1 } : val(op.segments),
            probs,
          ],
          wg: grid(op.batch * op.heads * op.seq, 64),
        },
        {
          kernel: 'attention_mix',
          constants: { TRANSPOSE: 0, ACCUMULATE: 0 },
          uniform: [len, op.seq, d, op.heads, f32Bits(1)],
          refs: [probs, val(op.v), y],
          wg: grid(len, 256),
        },
      ];
    }
    case 'crossEntropy': {
      const xs = graph.node(op.logits).shape;
      const r = rows(xs);
      const rowLoss: Ref = { t: 'temp', id: n.id, slot: 'rowLoss', floats: r };
      return [
        {
          kernel: 'cross_entropy',
          constants: {},
          uniform: [r, cols(xs)],
          refs: [
            val(op.logits),
            val(op.targets),
            val(op.weights),
            { t: 'temp', id: n.id, slot: 'stats', floats: 2 * r },
            rowLoss,
          ],
          wg: grid(r, 64),
        },
        { kernel: 'reduce', constants: { OP: RED.sum }, uniform: [1, r], refs: [rowLoss, y], wg: [1, 1, 1] },
      ];
    }
    case 'reduce': {
      const xs = graph.node(op.x).shape;
      return [
        {
          kernel: 'reduce',
          constants: { OP: RED[op.op] },
          uniform: [rows(xs), cols(xs)],
          refs: [val(op.x), y],
          wg: grid(rows(xs), 64),
        },
      ];
    }
  }
}

function backwardCalls(graph: Graph, n: Node): Call[] {
  const op = n.op;
  const len = size(n.shape);
  const gy = grad(n.id);
  const needs = (id: number): boolean => graph.node(id).requiresGrad;
  switch (op.kind) {
    case 'input':
    case 'param':
      return [];
    case 'matmul': {
      // Same identities as the CPU backend: dA = dC·op(B)ᵀ, dB = op(A)ᵀ·dC, each written in the
      // stored (possibly transposed) layout of the operand, accumulated into its gradient.
      const out: Call[] = [];
      const mm = (
        a: Ref,
        b: Ref,
        c: Ref,
        m: number,
        nn: number,
        k: number,
        ta: boolean,
        tb: boolean,
      ): Call => ({
        kernel: 'matmul',
        constants: { TRANS_A: ta ? 1 : 0, TRANS_B: tb ? 1 : 0, ACCUMULATE: 1 },
        uniform: [m, nn, k, op.batch],
        refs: [a, b, c],
        wg: [Math.ceil(nn / 32), Math.ceil(m / 32), op.batch],
      });
      if (needs(op.a)) {
        out.push(
          op.transA
            ? mm(val(op.b), gy, grad(op.a), op.k, op.m, op.n, op.transB, true)
            : mm(gy, val(op.b), grad(op.a), op.m, op.k, op.n, false, !op.transB),
        );
      }
      if (needs(op.b)) {
        out.push(
          op.transB
            ? mm(gy, val(op.a), grad(op.b), op.n, op.k, op.m, true, op.transA)
            : mm(val(op.a), gy, grad(op.b), op.k, op.n, op.m, !op.transA, false),
        );
      }
      return out;
    }
    case 'biasAct': {
      const c = cols(n.shape);
      const dz: Ref = { t: 'temp', id: n.id, slot: 'dz', floats: len };
      const bias: Ref = op.bias === null ? { t: 'zeros', floats: c } : val(op.bias);
      const writeGx = needs(op.x);
      const out: Call[] = [
        {
          kernel: 'bias_act_grad',
          constants: { ACT: ACT[op.act], WRITE_GX: writeGx ? 1 : 0 },
          uniform: [len, c],
          refs: [val(op.x), bias, gy, dz, writeGx ? grad(op.x) : { t: 'sink' }],
          wg: grid(len, 256),
        },
      ];
      if (op.bias !== null && needs(op.bias)) {
        out.push({
          kernel: 'col_sum',
          constants: { ACCUMULATE: 1 },
          uniform: [len / c, c],
          refs: [dz, grad(op.bias)],
          wg: grid(c, 64),
        });
      }
      return out;
    }
    case 'softmax': {
      if (!needs(op.x)) return [];
      const c = cols(n.shape);
      const r = rows(n.shape);
      const mask: Ref = op.mask === null ? { t: 'ones', floats: c } : val(op.mask);
      return [
        {
          kernel: 'softmax_grad',
          constants: { LOG: op.log ? 1 : 0 },
          uniform: [r, c, maskRows(graph, op.mask, c)],
          refs: [val(n.id), gy, mask, grad(op.x)],
          wg: grid(r, 64),
        },
      ];
    }
    case 'pick': {
      if (!needs(op.x)) return [];
      const xl = size(graph.node(op.x).shape);
      return [
        {
          kernel: 'pick_grad',
          constants: {},
          uniform: [xl, cols(graph.node(op.x).shape)],
          refs: [gy, val(op.idx), grad(op.x)],
          wg: grid(xl, 256),
        },
      ];
    }
    case 'binary': {
      const out: Call[] = [];
      ([op.a, op.b] as const).forEach((id, which) => {
        if (!needs(id)) return;
        out.push({
          kernel: 'binary_grad',
          constants: { OP: BIN[op.op], WHICH: which },
          uniform: [len],
          refs: [val(op.a), val(op.b), gy, grad(id)],
          wg: grid(len, 256),
        });
      });
      return out;
    }
    case 'unary':
      if (!needs(op.x)) return [];
      return [
        {
          kernel: 'unary_grad',
          constants: { OP: UN[op.op] },
          uniform: [len, f32Bits(op.alpha)],
          refs: [val(op.x), val(n.id), gy, grad(op.x)],
          wg: grid(len, 256),
        },
      ];
    case 'bernoulliLogProb': {
      const gx = needs(op.logits);
      const gt = needs(op.target);
      return [
        {
          kernel: 'bernoulli_grad',
          constants: { WRITE_GX: gx ? 1 : 0, WRITE_GT: gt ? 1 : 0 },
          uniform: [len],
          refs: [
            val(op.logits),
            val(op.target),
            gy,
            gx ? grad(op.logits) : { t: 'sink' },
            gt ? grad(op.target) : { t: 'sink' },
          ],
          wg: grid(len, 256),
        },
      ];
    }
    case 'gatherRows': {
      // The table gradient sums the output gradient rows per table row: the scatter kernel over
      // the index's per-row lists, O((tableRows + count)·cols), no index scans.
      if (!needs(op.table)) return [];
      const t = graph.node(op.table).shape;
      return [scatterCall(gy, op.idx, t[0] as number, grad(op.table), size(t), cols(n.shape), true)];
    }
    case 'scatterAddRows': {
      if (!needs(op.src)) return [];
      const sl = size(graph.node(op.src).shape);
      return [
        {
          kernel: 'gather_rows',
          constants: { ACCUMULATE: 1 },
          uniform: [sl, cols(n.shape), op.rows],
          refs: [gy, val(op.idx), grad(op.src)],
          wg: grid(sl, 256),
        },
      ];
    }
    case 'layerNorm': {
      const c = cols(n.shape);
      const r = rows(n.shape);
      const gxh: Ref = { t: 'temp', id: n.id, slot: 'gxh', floats: len };
      const writeGx = needs(op.x);
      const out: Call[] = [
        {
          kernel: 'layer_norm_grad',
          constants: { WRITE_GX: writeGx ? 1 : 0 },
          uniform: [r, c],
          refs: [
            val(op.x),
            val(op.gamma),
            { t: 'temp', id: n.id, slot: 'stats', floats: 2 * r },
            gy,
            gxh,
            writeGx ? grad(op.x) : { t: 'sink' },
          ],
          wg: grid(r, 64),
        },
      ];
      if (needs(op.gamma)) {
        out.push({
          kernel: 'col_sum',
          constants: { ACCUMULATE: 1 },
          uniform: [r, c],
          refs: [gxh, grad(op.gamma)],
          wg: grid(c, 64),
        });
      }
      if (needs(op.beta)) {
        out.push({
          kernel: 'col_sum',
          constants: { ACCUMULATE: 1 },
          uniform: [r, c],
          refs: [gy, grad(op.beta)],
          wg: grid(c, 64),
        });
      }
      return out;
    }
    case 'causalAttention': {
      const d = cols(n.shape);
      const scale = 1 / Math.sqrt(d / op.heads);
      const probs: Ref = {
        t: 'temp',
        id: n.id,
        slot: 'probs',
        floats: op.batch * op.heads * op.seq * op.seq,
      };
      const dscores: Ref = {
        t: 'temp',
        id: n.id,
        slot: 'dscores',
        floats: op.batch * op.heads * op.seq * op.seq,
      };
      const mix = (transpose: number, alpha: number, w: Ref, x: Ref, out: Ref): Call => ({
        kernel: 'attention_mix',
        constants: { TRANSPOSE: transpose, ACCUMULATE: 1 },
        uniform: [len, op.seq, d, op.heads, f32Bits(alpha)],
        refs: [w, x, out],
        wg: grid(len, 256),
      });
      const out: Call[] = [];
      if (needs(op.q) || needs(op.k)) {
        out.push({
          kernel: 'attention_dscores',
          constants: {},
          uniform: [op.batch, op.seq, d, op.heads],
          refs: [probs, gy, val(op.v), val(n.id), dscores],
          wg: grid(op.batch * op.heads * op.seq * op.seq, 256),
        });
      }
      if (needs(op.q)) out.push(mix(0, scale, dscores, val(op.k), grad(op.q)));
      if (needs(op.k)) out.push(mix(1, scale, dscores, val(op.q), grad(op.k)));
      if (needs(op.v)) out.push(mix(1, 1, probs, gy, grad(op.v)));
      return out;
    }
    case 'crossEntropy': {
      if (!needs(op.logits)) return [];
      const xs = graph.node(op.logits).shape;
      return [
        {
          kernel: 'cross_entropy_grad',
          constants: {},
          uniform: [size(xs), cols(xs)],
          refs: [
            val(op.logits),
            val(op.targets),
            val(op.weights),
            { t: 'temp', id: n.id, slot: 'stats', floats: 2 * rows(xs) },
            gy,
            grad(op.logits),
          ],
          wg: grid(size(xs), 256),
        },
      ];
    }
    case 'reduce': {
      if (!needs(op.x)) return [];
      const xs = graph.node(op.x).shape;
      return [
        {
          kernel: 'reduce_grad',
          constants: { OP: RED[op.op] },
          uniform: [size(xs), cols(xs)],
          refs: [val(op.x), val(n.id), gy, grad(op.x)],
          wg: grid(size(xs), 256),
        },
      ];
    }
  }
}
