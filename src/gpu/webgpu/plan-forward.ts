/** The forward kernel calls of one graph op (plan.ts records them in the graph's order). */
import type { Graph, Node } from '../graph.ts';
import { cols, rows, size } from '../graph.ts';
import {
  ACT,
  BIN,
  f32Bits,
  grid,
  LAYER_NORM_WIDE_WG,
  maskRows,
  matmulCalls,
  RED,
  REDUCE_WIDE_WG,
  scatterCalls,
  UN,
  val,
  WIDE_ROW_COLS,
  type Call,
  type Ref,
} from './plan-calls.ts';
import { attentionForward } from './plan-attention.ts';

/** Rows at most, and columns at least, for which a reduction takes reduce_wide.wgsl. */
export const REDUCE_WIDE_ROWS = 16;
export const REDUCE_WIDE_COLS = 512;

/**
 * `rows` row reductions of `cols` floats each: one invocation per row (reduce.wgsl), or for a few
 * long rows one workgroup per row (reduce_wide.wgsl), so that no invocation walks thousands alone.
 * With `wide` (GpuModelOptions.wideRows, a hardware adapter), any number of long rows take a
 * workgroup each: one invocation per row leaves a GPU mostly idle and reads a float per row.
 */
export function reduceCall(x: Ref, y: Ref, rows: number, cols: number, op: number, wide = false): Call {
  if (cols >= REDUCE_WIDE_COLS && (rows <= REDUCE_WIDE_ROWS || wide))
    return {
      kernel: 'reduce_wide',
      constants: { OP: op },
      uniform: [rows, cols],
      refs: [x, y],
      wg: grid(rows * REDUCE_WIDE_WG, REDUCE_WIDE_WG),
    };
  return { kernel: 'reduce', constants: { OP: op }, uniform: [rows, cols], refs: [x, y], wg: grid(rows, 64) };
}

export function forwardCalls(graph: Graph, n: Node, lanes = false, wide = false): Call[] {
  const op = n.op;
  const len = size(n.shape);
  const y = val(n.id);
  switch (op.kind) {
    case 'input':
    case 'param':
      return [];
    case 'matmul':
      return matmulCalls(
        [val(op.a), val(op.b), y],
        op.m,
        op.n,
        op.k,
        op.batch,
        op.transA,
        op.transB,
        false,
        n.id,
        'C',
        lanes,
      );
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
      return scatterCalls(
        val(op.src),
        op.idx,
        size(graph.node(op.idx).shape),
        op.rows,
        y,
        len,
        cols(n.shape),
        false,
        n.id,
      );
    case 'layerNorm': {
      const r = rows(n.shape);
      const w = wide && cols(n.shape) >= WIDE_ROW_COLS;
      return [
        {
          kernel: w ? 'layer_norm_wide' : 'layer_norm',
          constants: {},
          uniform: [r, cols(n.shape), f32Bits(op.eps)],
          refs: [
            val(op.x),
            val(op.gamma),
            val(op.beta),
            y,
            { t: 'temp', id: n.id, slot: 'stats', floats: 2 * r },
          ],
          wg: w ? grid(r * LAYER_NORM_WIDE_WG, LAYER_NORM_WIDE_WG) : grid(r, 64),
        },
      ];
    }
    case 'causalAttention':
      return attentionForward(n, op);
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
        reduceCall(rowLoss, y, 1, r, RED.sum),
      ];
    }
    case 'ppoClip': {
      const r = size(graph.node(op.logp).shape);
      const rowLoss: Ref = { t: 'temp', id: n.id, slot: 'rowLoss', floats: r };
      return [
        {
          kernel: 'ppo_clip',
          constants: { KL: op.ref === null ? 0 : 1 },
          uniform: [r, f32Bits(op.clipEps), f32Bits(op.klCoef)],
          // Without a reference the kernel never reads binding 5; any buffer serves.
          refs: [
            val(op.logp),
            val(op.old),
            val(op.advantages),
            val(op.weights),
            op.ref === null ? { t: 'zeros', floats: 1 } : val(op.ref),
            rowLoss,
            { t: 'temp', id: n.id, slot: 'coef', floats: r },
          ],
          wg: grid(r, 64),
        },
        reduceCall(rowLoss, y, 1, r, RED.sum),
      ];
    }
    case 'reduce': {
      const xs = graph.node(op.x).shape;
      return [reduceCall(val(op.x), y, rows(xs), cols(xs), RED[op.op], wide)];
    }
  }
}
