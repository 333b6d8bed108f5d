/**
 * The backward kernel calls of one graph op (plan.ts replays them in reverse recording order, the
 * tape); each case reads against its forward case in plan-forward.ts and its CPU kernel in
 * cpu/ops.ts.
 */
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
  colSumCalls,
  scatterCalls,
  UN,
  val,
  grad,
  WIDE_ROW_COLS,
  type Call,
  type Ref,
} from './plan-calls.ts';
import { attentionBackward } from './plan-attention.ts';

export function backwardCalls(graph: Graph, n: Node, lanes = false, wide = false): Call[] {
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
      // A weight gradient (thin output, K = rows) runs split-K or, with `lanes`, on matmul_lanes.wgsl
      // (plan-calls.ts matmulCalls).
      const mm = (
        a: Ref,
        b: Ref,
        c: Ref,
        m: number,
        nn: number,
        k: number,
        ta: boolean,
        tb: boolean,
        of: 'dA' | 'dB',
      ): Call[] => matmulCalls([a, b, c], m, nn, k, op.batch, ta, tb, true, n.id, of, lanes);
      if (needs(op.a)) {
        out.push(
          ...(op.transA
            ? mm(val(op.b), gy, grad(op.a), op.k, op.m, op.n, op.transB, true, 'dA')
            : mm(gy, val(op.b), grad(op.a), op.m, op.k, op.n, false, !op.transB, 'dA')),
        );
      }
      if (needs(op.b)) {
        out.push(
          ...(op.transB
            ? mm(gy, val(op.a), grad(op.b), op.n, op.k, op.m, true, op.transA, 'dB')
            : mm(val(op.a), gy, grad(op.b), op.k, op.n, op.m, !op.transA, false, 'dB')),
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
        out.push(...colSumCalls(dz, grad(op.bias), len / c, c, n.id, 0));
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
      const count = size(graph.node(op.idx).shape);
      return scatterCalls(
        gy,
        op.idx,
        count,
        t[0] as number,
        grad(op.table),
        size(t),
        cols(n.shape),
        true,
        n.id,
      );
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
      const w = wide && c >= WIDE_ROW_COLS;
      const out: Call[] = [
        {
          kernel: w ? 'layer_norm_grad_wide' : 'layer_norm_grad',
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
          wg: w ? grid(r * LAYER_NORM_WIDE_WG, LAYER_NORM_WIDE_WG) : grid(r, 64),
        },
      ];
      if (needs(op.gamma)) {
        out.push(...colSumCalls(gxh, grad(op.gamma), r, c, n.id, 0));
      }
      if (needs(op.beta)) {
        out.push(...colSumCalls(gy, grad(op.beta), r, c, n.id, 1));
      }
      return out;
    }
    case 'causalAttention':
      return attentionBackward(n, op, needs);
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
    case 'ppoClip': {
      if (!needs(op.logp)) return [];
      const r = size(graph.node(op.logp).shape);
      return [
        {
          kernel: 'ppo_clip_grad',
          constants: {},
          uniform: [r],
          refs: [{ t: 'temp', id: n.id, slot: 'coef', floats: r }, gy, grad(op.logp)],
          wg: grid(r, 256),
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
