/**
 * The kernel calls of causal attention (plan-forward.ts and plan-backward.ts hand this op here).
 * Forward: scores q_i·k_j·scale in 64x64 tiles of each head's lower triangle (attention.wgsl), a
 * softmax per row (attention_rows.wgsl), then out = P·V (attention_mix.wgsl, 64x64 output tiles
 * per head). Backward: the score gradient dS in the same triangle tiles (attention_dscores.wgsl),
 * then dq = dS·K, dk = dSᵀ·Q, dv = Pᵀ·dO (attention_mix.wgsl).
 * Each sum keeps the order of the CPU-shaped one-row-per-invocation kernels, so the bits are
 * those of the sequential reference on one device.
 */
import type { Node } from '../graph.ts';
import { cols, size } from '../graph.ts';
import { f32Bits, grad, grid, val, type Call, type Ref } from './plan-calls.ts';

/** Score tiles are 64x64 (attention.wgsl, attention_dscores.wgsl). */
export const ATTENTION_TILE = 64;
const MAX_WG = 65535;

/**
 * Workgroups of a tiled score kernel: x = the tile's index in the lower triangle of one head's
 * [seq, seq] matrix (tiles on or below the diagonal only), y = b·heads + h.
 */
export function attentionTiles(batch: number, heads: number, seq: number): [number, number, number] {
  const nt = Math.ceil(seq / ATTENTION_TILE);
  const tri = (nt * (nt + 1)) / 2;
  if (batch * heads > MAX_WG || tri > MAX_WG)
    throw new Error(`causalAttention: batch·heads ${batch * heads} or seq ${seq} exceeds the dispatch grid`);
  return [tri, batch * heads, 1];
}

/** Output columns per invocation of attention_mix.wgsl (COLS): its tiles are 16·COLS wide. */
export function mixCols(hd: number): 1 | 2 | 4 {
  return hd <= 16 ? 1 : hd <= 32 ? 2 : 4;
}

/** Workgroups of attention_mix.wgsl: 64 x 16·COLS tiles of each head's [seq, hd] output, z = b·heads + h. */
export function mixTiles(batch: number, heads: number, seq: number, hd: number): [number, number, number] {
  return [Math.ceil(seq / ATTENTION_TILE), Math.ceil(hd / (16 * mixCols(hd))), batch * heads];
}

type Attention = Extract<Node['op'], { kind: 'causalAttention' }>;

function temps(n: Node, op: Attention): { probs: Ref; dscores: Ref } {
  const floats = op.batch * op.heads * op.seq * op.seq;
  return {
    probs: { t: 'temp', id: n.id, slot: 'probs', floats },
    dscores: { t: 'temp', id: n.id, slot: 'dscores', floats },
  };
}

export function attentionForward(n: Node, op: Attention): Call[] {
  const d = cols(n.shape);
  const { probs } = temps(n, op);
  const segments = op.segments === null ? 0 : 1;
  const uniform = [op.batch, op.seq, d, op.heads, f32Bits(1 / Math.sqrt(d / op.heads))];
  // Without segments neither kernel reads the segment binding; any small buffer serves.
  const seg: Ref = op.segments === null ? { t: 'zeros', floats: 1 } : val(op.segments);
  return [
    {
      kernel: 'attention',
      constants: { SEGMENTS: segments },
      uniform,
      refs: [val(op.q), val(op.k), seg, probs],
      wg: attentionTiles(op.batch, op.heads, op.seq),
    },
    {
      kernel: 'attention_rows',
      constants: { SEGMENTS: segments },
      uniform,
      refs: [seg, probs],
      wg: grid(op.batch * op.heads * op.seq, 64),
    },
    {
      kernel: 'attention_mix',
      constants: { TRANSPOSE: 0, ACCUMULATE: 0, COLS: mixCols(d / op.heads) },
      uniform: [size(n.shape), op.seq, d, op.heads, f32Bits(1)],
      refs: [probs, val(op.v), val(n.id)],
      wg: mixTiles(op.batch, op.heads, op.seq, d / op.heads),
    },
  ];
}

export function attentionBackward(n: Node, op: Attention, needs: (id: number) => boolean): Call[] {
  const d = cols(n.shape);
  const len = size(n.shape);
  const gy = grad(n.id);
  const scale = 1 / Math.sqrt(d / op.heads);
  const { probs, dscores } = temps(n, op);
  const mix = (transpose: number, alpha: number, w: Ref, x: Ref, out: Ref): Call => ({
    kernel: 'attention_mix',
    constants: { TRANSPOSE: transpose, ACCUMULATE: 1, COLS: mixCols(d / op.heads) },
    uniform: [len, op.seq, d, op.heads, f32Bits(alpha)],
    refs: [w, x, out],
    wg: mixTiles(op.batch, op.heads, op.seq, d / op.heads),
  });
  const out: Call[] = [];
  if (needs(op.q) || needs(op.k)) {
    out.push({
      kernel: 'attention_dscores',
      constants: {},
      uniform: [op.batch, op.seq, d, op.heads],
      refs: [probs, gy, val(op.v), val(n.id), dscores],
      wg: attentionTiles(op.batch, op.heads, op.seq),
    });
  }
  if (needs(op.q)) out.push(mix(0, scale, dscores, val(op.k), grad(op.q)));
  if (needs(op.k)) out.push(mix(1, scale, dscores, val(op.q), grad(op.k)));
  if (needs(op.v)) out.push(mix(1, 1, probs, gy, grad(op.v)));
  return out;
}
