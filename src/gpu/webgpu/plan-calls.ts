/**
 * What the plan is made of (plan.ts): the kernel call and its bindings, and the helpers the forward
 * (plan-forward.ts) and backward (plan-backward.ts) cases share: uniform bit patterns, workgroup
 * grids, the kernels' op codes, the scatter call.
 */
import type { Graph } from '../graph.ts';
import { size } from '../graph.ts';
import type { KernelName } from './kernels.ts';
import { maxChunks } from './csr.ts';

/** A kernel's name without its subgroup twin's suffix (kernels.ts SUBGROUP_TWINS): the same uniforms and workgroups. */
export function baseKernel(kernel: KernelName): KernelName {
  return kernel.endsWith('_sg') ? (kernel.slice(0, -3) as KernelName) : kernel;
}

/** Where a kernel binding points. Byte layouts are documented in model.ts where the buffers are made. */

export type Ref =
  | { t: 'value'; id: number }
  | { t: 'grad'; id: number }
  /**
   * Per-node scratch that is fully rewritten before it is read (dz, gy·x̂, layer-norm stats or
   * cross-entropy lse, attention probabilities and score gradients, cross-entropy and PPO row losses, PPO per-row gradients,
   * split-K chunk products); id −1: the gradient norm's block sums.
   */
  | {
      t: 'temp';
      id: number;
      slot:
        | 'dz'
        | 'gxh'
        | 'stats'
        | 'probs'
        | 'dscores'
        | 'rowLoss'
        | 'coef'
        | 'partial'
        | 'colPartial0'
        | 'colPartial1'
        | 'splitKC'
        | 'splitKdA'
        | 'splitKdB'
        | 'normPartial';
      floats: number;
    }
  /**
   * The rows of the u32 input `idx` grouped by value, for `rows` destination rows (CSR, built on
   * the host whenever the input is set): `offsets` u32[rows + 1], `sources` u32[max(1, count)],
   * `chunks` u32[rows + 1] and `chunkRow` u32[maxChunks(count, rows)] (csr.ts).
   */
  | { t: 'csr'; idx: number; rows: number; part: 'offsets' | 'sources' | 'chunks' | 'chunkRow' }
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
  /** The graph node whose forward or backward this call is (live.ts sizes it by its live rows). */
  node?: number;
  /**
   * A fused call (plan-fuse.ts): the calls it replaces, in order, and the uniform word that holds
   * each one's length (elements, or rows for row kernels); live.ts sizes every part as if it ran
   * alone, writes its length there and dispatches `per` invocations per workgroup.
   */
  fused?: { parts: Call[]; words: number[]; per: number };
  /**
   * Dispatched only while the longest source list of the CSR lists of (idx, rows) is `short` (at
   * most SCATTER_SHORT_CHUNKS chunks, live.ts) or not: the one-pass and the two-pass scatter.
   */
  when?: { idx: number; rows: number; short: boolean };
}

/** The same binding: the same tensor (not merely the same buffer: parameters share an arena). */
export const sameRef = (a: Ref | undefined, b: Ref | undefined): boolean =>
  a !== undefined && b !== undefined && JSON.stringify(a) === JSON.stringify(b);

const F = new Float32Array(1);
const U = new Uint32Array(F.buffer);
export function f32Bits(x: number): number {
  F[0] = x;
  return U[0] as number;
}

/** Workgroups at most along one dimension of a dispatch (WebGPU's default limit). */
export const MAX_WG = 65535;
/** Columns at least for which `wideRows` gives layer norm a workgroup per row (layer_norm_wide.wgsl). */
export const WIDE_ROW_COLS = 128;
/** Invocations per workgroup (and per row) of layer_norm_wide.wgsl and layer_norm_grad_wide.wgsl. */
export const LAYER_NORM_WIDE_WG = 64;
/** Invocations per workgroup (and per row) of reduce_wide.wgsl. */
export const REDUCE_WIDE_WG = 256;

/** Workgroups for n invocations at `per` invocations per workgroup, folded into y past 65535. */
export function grid(n: number, per: number): [number, number, number] {
  const groups = Math.max(1, Math.ceil(n / per));
  const x = Math.min(groups, MAX_WG);
  return [x, Math.ceil(groups / x), 1];
}

export const ACT = { none: 0, relu: 1, tanh: 2, gelu: 3, sigmoid: 4 } as const;
export const BIN = { add: 0, sub: 1, mul: 2 } as const;
export const UN = { scale: 0, exp: 1, log: 2, sigmoid: 3, tanh: 4 } as const;
export const RED = { sum: 0, mean: 1, max: 2 } as const;

export const val = (id: number): Ref => ({ t: 'value', id });
export const grad = (id: number): Ref => ({ t: 'grad', id });

export function maskRows(graph: Graph, maskId: number | null, c: number): number {
  return maskId === null ? 1 : size(graph.node(maskId).shape) / c;
}

/**
 * out (+)= the rows of `src` summed per destination row of the u32 input `idx`, through its CSR
 * lists: in one pass (scatter_rows.wgsl) while every list is short, otherwise in two
 * (scatter_partial.wgsl per chunk of at most CHUNK sources, then scatter_add_rows.wgsl per output
 * float), with the same bits; the model dispatches one form or the other as the lists change
 * (`when`, live.ts). `len` = outRows·cols, `id` the node whose scratch holds the partial sums.
 */
export function scatterCalls(
  src: Ref,
  idx: number,
  count: number,
  outRows: number,
  out: Ref,
  len: number,
  c: number,
  accumulate: boolean,
  id: number,
): Call[] {
  const csr = (part: 'offsets' | 'sources' | 'chunks' | 'chunkRow'): Ref => ({
    t: 'csr',
    idx,
    rows: outRows,
    part,
  });
  const chunks = maxChunks(count, outRows);
  const partial: Ref = { t: 'temp', id, slot: 'partial', floats: chunks * c };
  const long = { idx, rows: outRows, short: false };
  return [
    {
      kernel: 'scatter_rows',
      constants: { ACCUMULATE: accumulate ? 1 : 0 },
      uniform: [len, c],
      refs: [src, csr('offsets'), csr('sources'), csr('chunks'), out],
      // Off until live.ts has seen the lists.
      wg: [0, 0, 0],
      when: { ...long, short: true },
    },
    {
      kernel: 'scatter_partial',
      constants: {},
      uniform: [chunks * c, c, outRows],
      refs: [src, csr('offsets'), csr('sources'), csr('chunks'), csr('chunkRow'), partial],
      wg: grid(chunks * c, 256),
      when: long,
    },
    {
      kernel: 'scatter_add_rows',
      constants: { ACCUMULATE: accumulate ? 1 : 0 },
      uniform: [len, c],
      refs: [partial, csr('chunks'), out],
      wg: grid(len, 256),
      when: long,
    },
  ];
}

/**
 * A matrix product C[b] (+)= op(A[b])·op(B[b]) of op(A) [m, k] and op(B) [k, n] (matmul.wgsl's
 * layouts). The rule: matmul_wide.wgsl (128x128 tiles, an 8x8 block per invocation) when the
 * output fills at least MATMUL_WIDE_MIN_TILES of its tiles, enough to keep a large GPU's
 * multiprocessors busy; else matmul_tiled.wgsl (64x64 tiles through workgroup memory) when the
 * output fills at least one whole tile (m ≥ 64 and n ≥ 64); otherwise matmul.wgsl (32x32 per
 * workgroup, no workgroup memory), which wastes fewer invocations on thin products such as a
 * policy network's 32-column layers. All three sum in the same order and give the same bits.
 */
export function matmulCall(
  refs: [Ref, Ref, Ref],
  m: number,
  n: number,
  k: number,
  batch: number,
  transA: boolean,
  transB: boolean,
  accumulate: boolean,
): Call {
  const kernel = matmulKernel(m, n, batch);
  const tile = MATMUL_TILES[kernel];
  return {
    kernel,
    constants: { TRANS_A: transA ? 1 : 0, TRANS_B: transB ? 1 : 0, ACCUMULATE: accumulate ? 1 : 0 },
    uniform: [m, n, k, batch],
    refs,
    wg: [Math.ceil(n / tile), Math.ceil(m / tile), batch],
  };
}

/** Which matmul kernel an output of m × n (× batch) runs on (matmulCall's rule). */
export function matmulKernel(m: number, n: number, batch: number): MatmulKernel {
  const W = MATMUL_TILES.matmul_wide;
  if (m >= W && n >= W && Math.ceil(m / W) * Math.ceil(n / W) * batch >= MATMUL_WIDE_MIN_TILES)
    return 'matmul_wide';
  return m >= MATMUL_TILE && n >= MATMUL_TILE ? 'matmul_tiled' : 'matmul';
}

export type MatmulKernel = 'matmul' | 'matmul_tiled' | 'matmul_wide';

/** Consecutive k per chunk of a split-K product (matmul_splitk_sum.wgsl hard-codes it; the first pass gets it as its 4th uniform word). */
export const SPLITK_CHUNK = 64;
/** Split-K only for K of at least this (shorter products keep matmul.wgsl's exact bits). */
export const SPLITK_MIN_K = 257;
/** Split-K only for outputs of at most this many 32x32 tiles (matmul.wgsl's workgroups)… */
export const SPLITK_MAX_TILES = 32;
/** …and with a chunk buffer of at most this many floats (16 MiB). */
export const SPLITK_MAX_FLOATS = 1 << 22;

/**
 * A matrix product as matmulCall, except for a thin output and a long K (a weight gradient
 * op(A)ᵀ·dC summed over thousands of rows): batch 1, K ≥ SPLITK_MIN_K and an output of at most
 * SPLITK_MAX_TILES tiles of 32x32 run split-K, in two calls: `matmul_splitk` (matmul.wgsl with
 * SPLIT_K = 1) writes one partial product per chunk of SPLITK_CHUNK k into a scratch of node `id`
 * ([chunks][m][n], sized for the planned K; one per product `of` the node: its value C or a
 * gradient dA, dB), then matmul_splitk_sum.wgsl sums the chunks in order into C. live.ts
 * dispatches ⌈live K / SPLITK_CHUNK⌉ chunks when K is the live rows. The summation order differs
 * from matmulCall's from the second chunk on (tolerance in matmul.wgsl). Larger outputs with few
 * 64x64 workgroups split on those tiles instead (splitKTiled).
 */
export function matmulCalls(
  refs: [Ref, Ref, Ref],
  m: number,
  n: number,
  k: number,
  batch: number,
  transA: boolean,
  transB: boolean,
  accumulate: boolean,
  id: number,
  of: 'C' | 'dA' | 'dB',
  lanes = false,
): Call[] {
  if (lanes && lanesFit(m, n, k, batch)) return [lanesCall(refs, m, n, k, batch, transA, transB, accumulate)];
  const chunks = Math.ceil(k / SPLITK_CHUNK);
  const tiles = Math.ceil(m / 32) * Math.ceil(n / 32);
  if (batch !== 1 || k < SPLITK_MIN_K || tiles > SPLITK_MAX_TILES || chunks * m * n > SPLITK_MAX_FLOATS) {
    const chunk = splitKTiled(m, n, k, batch);
    if (chunk) return splitKTiledCalls(refs, m, n, k, transA, transB, accumulate, id, of, chunk);
    return [matmulCall(refs, m, n, k, batch, transA, transB, accumulate)];
  }
  const partial: Ref = { t: 'temp', id, slot: `splitK${of}`, floats: chunks * m * n };
  return [
    {
      kernel: 'matmul_splitk',
      constants: { SPLIT_K: 1, TRANS_A: transA ? 1 : 0, TRANS_B: transB ? 1 : 0 },
      uniform: [m, n, k, SPLITK_CHUNK],
      refs: [refs[0], refs[1], partial],
      wg: [Math.ceil(n / 32), Math.ceil(m / 32), chunks],
    },
    {
      kernel: 'matmul_splitk_sum',
      constants: { ACCUMULATE: accumulate ? 1 : 0 },
      uniform: [m, n, k, 1],
      refs: [partial, refs[2]],
      wg: grid(m * n, 256),
    },
  ];
}

/** Lanes products only for K of at least this (shorter sums are a few loads per invocation)… */
export const LANES_MIN_K = 16;
/** …and at most this many k per lane (longer K splits into chunks: split-K)… */
export const LANES_MAX_K_PER_LANE = 16;
/** …where the kernel matmulCall picks would run fewer invocations than this (a fraction of a large GPU). */
export const LANES_MAX_INVOCATIONS = 32768;
/** Each lane of a lanes product sums about this many k (lanesOf). */
export const LANES_K_PER_LANE = 4;

/** Lanes per 4x4 block (matmul_lanes.wgsl's LK): the fewest, from 4 to 64, giving each ≤ LANES_K_PER_LANE k. */
export function lanesOf(k: number): number {
  let lk = 4;
  while (lk < 64 && lk * LANES_K_PER_LANE < k) lk *= 2;
  return lk;
}

/**
 * Whether a product runs on matmul_lanes.wgsl when the plan allows it (GpuModelOptions.lanes): K of
 * LANES_MIN_K to 64·LANES_MAX_K_PER_LANE, and an output so small that matmulCall's kernel would run
 * fewer than LANES_MAX_INVOCATIONS invocations, each walking all of K.
 */
export function lanesFit(m: number, n: number, k: number, batch: number): boolean {
  if (k < LANES_MIN_K || k > 64 * LANES_MAX_K_PER_LANE) return false;
  const kernel = matmulKernel(m, n, batch);
  const tile = MATMUL_TILES[kernel];
  const perWg = kernel === 'matmul' ? 64 : 256;
  const wgs = Math.ceil(m / tile) * Math.ceil(n / tile) * batch;
  const blocks = Math.ceil(m / 4) * Math.ceil(n / 4);
  return wgs * perWg < LANES_MAX_INVOCATIONS && Math.ceil(blocks / (64 / lanesOf(k))) <= 65535;
}

/**
 * matmul_lanes.wgsl: lanesOf(k) invocations share each 4x4 block of C and split its K, then add
 * their partial blocks in a fixed tree. The order differs from matmulCall's (tolerance in the kernel).
 */
export function lanesCall(
  refs: [Ref, Ref, Ref],
  m: number,
  n: number,
  k: number,
  batch: number,
  transA: boolean,
  transB: boolean,
  accumulate: boolean,
): Call {
  const LK = lanesOf(k);
  return {
    kernel: 'matmul_lanes',
    constants: { TRANS_A: transA ? 1 : 0, TRANS_B: transB ? 1 : 0, ACCUMULATE: accumulate ? 1 : 0, LK },
    uniform: [m, n, k, batch],
    refs,
    wg: [lanesWorkgroups(m, n, LK), 1, batch],
  };
}

/** Workgroups of matmul_lanes.wgsl for an m × n output with LK lanes per block (at least 1). */
export function lanesWorkgroups(m: number, n: number, LK: number): number {
  return Math.max(1, Math.ceil((Math.ceil(m / 4) * Math.ceil(n / 4)) / (64 / LK)));
}

/** Split-K on 64x64 tiles only below this many of them (too few workgroups for a large GPU)… */
export const SPLITK_TILED_MAX_WGS = 96;
/** …for K of at least this… */
export const SPLITK_TILED_MIN_K = 1024;
/** …into about this many workgroups in all. */
export const SPLITK_TILED_TARGET_WGS = 256;

/**
 * The chunk (a multiple of SPLITK_CHUNK) of a split-K product on 64x64 tiles, or 0: batch 1, an
 * output of 64x64 tiles that matmulCall would run on matmul_tiled.wgsl with fewer than
 * SPLITK_TILED_MAX_WGS workgroups, and K ≥ SPLITK_TILED_MIN_K; chunks enough for about
 * SPLITK_TILED_TARGET_WGS workgroups, at least 2, scratch within SPLITK_MAX_FLOATS.
 */
export function splitKTiled(m: number, n: number, k: number, batch: number): number {
  if (batch !== 1 || k < SPLITK_TILED_MIN_K || matmulKernel(m, n, 1) !== 'matmul_tiled') return 0;
  const wgs = Math.ceil(m / MATMUL_TILE) * Math.ceil(n / MATMUL_TILE);
  if (wgs >= SPLITK_TILED_MAX_WGS) return 0;
  const want = Math.min(Math.ceil(SPLITK_TILED_TARGET_WGS / wgs), Math.floor(SPLITK_MAX_FLOATS / (m * n)));
  const chunk = Math.ceil(k / Math.max(1, want) / SPLITK_CHUNK) * SPLITK_CHUNK;
  return Math.ceil(k / chunk) >= 2 ? chunk : 0;
}

/**
 * matmul_tiled.wgsl with SPLIT_K = 1 (chunk z of K into partial[z]) then matmul_splitk_sum.wgsl, which reads
 * its chunk count from k = chunks·SPLITK_CHUNK; the chunk rides in the sum call's 4th uniform word
 * so that live.ts can recount chunks from live K.
 */
function splitKTiledCalls(
  refs: [Ref, Ref, Ref],
  m: number,
  n: number,
  k: number,
  transA: boolean,
  transB: boolean,
  accumulate: boolean,
  id: number,
  of: 'C' | 'dA' | 'dB',
  chunk: number,
): Call[] {
  const chunks = Math.ceil(k / chunk);
  const partial: Ref = { t: 'temp', id, slot: `splitK${of}`, floats: chunks * m * n };
  return [
    {
      kernel: 'matmul_splitk_tiled',
      constants: { SPLIT_K: 1, TRANS_A: transA ? 1 : 0, TRANS_B: transB ? 1 : 0 },
      uniform: [m, n, k, chunk],
      refs: [refs[0], refs[1], partial],
      wg: [Math.ceil(n / MATMUL_TILE), Math.ceil(m / MATMUL_TILE), chunks],
    },
    {
      kernel: 'matmul_splitk_sum',
      constants: { ACCUMULATE: accumulate ? 1 : 0 },
      uniform: [m, n, chunks * SPLITK_CHUNK, chunk],
      refs: [partial, refs[2]],
      wg: grid(m * n, 256),
    },
  ];
}

/** Output rows and columns per workgroup of matmul_tiled.wgsl (it hard-codes them); matmul.wgsl: 32. */
export const MATMUL_TILE = 64;

/** Output rows and columns per workgroup of each matmul kernel (the kernels hard-code them). */
export const MATMUL_TILES: Record<MatmulKernel, number> = {
  matmul: 32,
  matmul_tiled: MATMUL_TILE,
  matmul_wide: 128,
};

/** Fewest 128x128 output tiles for matmul_wide.wgsl: below this, 64x64 tiles spread wider. */
export const MATMUL_WIDE_MIN_TILES = 128;

/** Rows per block of the two-level column sum (col_partial.wgsl and col_sum.wgsl hard-code it). */
export const COL_BLOCK = 64;

/**
 * out[c] += Σ_r x[r, c] over `r` rows of `c` columns in two levels (col_partial.wgsl per block of
 * COL_BLOCK rows, then col_sum.wgsl per column); `slot` tells a node's two column sums apart.
 */
export function colSumCalls(x: Ref, out: Ref, r: number, c: number, id: number, slot: 0 | 1): Call[] {
  const blocks = Math.max(1, Math.ceil(r / COL_BLOCK));
  const partial: Ref = {
    t: 'temp',
    id,
    slot: slot === 0 ? 'colPartial0' : 'colPartial1',
    floats: blocks * c,
  };
  return [
    { kernel: 'col_partial', constants: {}, uniform: [r, c], refs: [x, partial], wg: grid(blocks * c, 256) },
    {
      kernel: 'col_sum',
      constants: { ACCUMULATE: 1 },
      uniform: [r, c],
      refs: [partial, out],
      wg: grid(c, 64),
    },
  ];
}
