/**
 * The kernel calls of causal attention (plan-forward.ts and plan-backward.ts hand this op here).
 * Forward: the scores q_i·k_j·scale, a softmax per row (attention_rows.wgsl), then out = P·V.
 * Backward: the score gradient dS, then dq = dS·K, dk = dSᵀ·Q, dv = Pᵀ·dO. Heads of 32 columns
 * and more take tiled kernels: scores and dS in 64x64 tiles of each head's lower triangle
 * (attention.wgsl, attention_dscores_tiled.wgsl), products in 64-row tiles of each head's output
 * (attention_mix_tiled.wgsl). Narrower heads take one invocation per entry (attention_pairs.wgsl,
 * attention_dscores.wgsl, attention_mix.wgsl). Every sum runs in the same order either way, so
 * both give the same bits.
 */
import type { Node } from '../graph.ts';
import { cols } from '../graph.ts';
import { f32Bits, grad, grid, val, type Call, type Ref } from './plan-calls.ts';

/** Tiles are 64 rows (attention.wgsl, attention_dscores_tiled.wgsl: 64x64; attention_mix_tiled.wgsl). */
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

/**
 * Heads of at least this many columns take the tiled kernels; narrower ones the one-entry-per-
 * invocation kernels (a tile would sit mostly idle, and software adapters pay per barrier). Both
 * give the same bits.
 */
export const TILED_MIN_HEAD = 32;

/** Output columns per invocation of attention_mix_tiled.wgsl (COLS): its tiles are 16·COLS wide. */
export function mixCols(hd: number): 2 | 4 {
  return hd <= 32 ? 2 : 4;
}

/** Workgroups of attention_mix_tiled.wgsl: 64 x 16·COLS tiles of each head's [seq, hd] output, z = b·heads + h. */
export function mixTiles(batch: number, heads: number, seq: number, hd: number): [number, number, number] {
  if (batch * heads > MAX_WG)
    throw new Error(`causalAttention: batch·heads ${batch * heads} exceeds the dispatch grid`);
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

/** out (+)= α·W·x per head (TRANSPOSE 0) or α·Wᵀ·x (TRANSPOSE 1); refs [w, x, out]. */
function mixCall(
  op: Attention,
  d: number,
  transpose: number,
  accumulate: number,
  alpha: number,
  refs: Ref[],
  tiled: boolean,
): Call {
  const hd = d / op.heads;
  const len = op.batch * op.seq * d;
  const uniform = [len, op.seq, d, op.heads, f32Bits(alpha)];
  if (!tiled)
    return {
      kernel: 'attention_mix',
      constants: { TRANSPOSE: transpose, ACCUMULATE: accumulate },
      uniform,
      refs,
      wg: grid(len, 256),
    };
  return {
    kernel: 'attention_mix_tiled',
    constants: { TRANSPOSE: transpose, ACCUMULATE: accumulate, COLS: mixCols(hd) },
    uniform,
    refs,
    wg: mixTiles(op.batch, op.heads, op.seq, hd),
  };
}

/** `minTiled`: the narrowest head that takes the tiled kernels (tests lower or raise it). */
export function attentionForward(n: Node, op: Attention, minTiled = TILED_MIN_HEAD): Call[] {
  const d = cols(n.shape);
  const { probs } = temps(n, op);
  const segments = op.segments === null ? 0 : 1;
  const uniform = [op.batch, op.seq, d, op.heads, f32Bits(1 / Math.sqrt(d / op.heads))];
  // Without segments neither kernel reads the segment binding; any small buffer serves.
  const seg: Ref = op.segments === null ? { t: 'zeros', floats: 1 } : val(op.segments);
  const hd = d / op.heads;
  const tiled = hd >= minTiled;
  const pairs = op.batch * op.heads * op.seq * op.seq;
  return [
    {
      kernel: tiled ? 'attention' : 'attention_pairs',
      constants: { SEGMENTS: segments },
      uniform,
      refs: [val(op.q), val(op.k), seg, probs],
      wg: tiled ? attentionTiles(op.batch, op.heads, op.seq) : grid(pairs, 256),
    },
    {
      kernel: 'attention_rows',
      constants: { SEGMENTS: segments },
      uniform,
      refs: [seg, probs],
      wg: grid(op.batch * op.heads * op.seq, 64),
    },
    mixCall(op, d, 0, 0, 1, [probs, val(op.v), val(n.id)], tiled),
  ];
}

export function attentionBackward(
  n: Node,
  op: Attention,
  needs: (id: number) => boolean,
  minTiled = TILED_MIN_HEAD,
): Call[] {
  const d = cols(n.shape);
  const gy = grad(n.id);
  const scale = 1 / Math.sqrt(d / op.heads);
  const { probs, dscores } = temps(n, op);
  const tiled = d / op.heads >= minTiled;
  const mix = (transpose: number, alpha: number, w: Ref, x: Ref, out: Ref): Call =>
    mixCall(op, d, transpose, 1, alpha, [w, x, out], tiled);
  const out: Call[] = [];
  if (needs(op.q) || needs(op.k)) {
    out.push({
      kernel: tiled ? 'attention_dscores_tiled' : 'attention_dscores',
      constants: {},
      uniform: [op.batch, op.seq, d, op.heads],
      refs: [probs, gy, val(op.v), val(n.id), dscores],
      wg: tiled
        ? attentionTiles(op.batch, op.heads, op.seq)
        : grid(op.batch * op.heads * op.seq * op.seq, 256),
    });
  }
  if (needs(op.q)) out.push(mix(0, scale, dscores, val(op.k), grad(op.q)));
  if (needs(op.k)) out.push(mix(1, scale, dscores, val(op.q), grad(op.k)));
  if (needs(op.v)) out.push(mix(1, 1, probs, gy, grad(op.v)));
  return out;
}
