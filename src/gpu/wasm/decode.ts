/**
 * The wasm kernels as a decoder uses them outside a compiled graph: one arena of arrays the caller
 * lays out itself (weights, per-sequence key/value caches, scratch), the kernels of the wasm backend
 * on them, and `attendRow` (one new token's attention against a sequence's cache). What
 * src/train/orchestrator-decode-wasm.ts samples the orchestrator LM with.
 */
import type { Activation } from '../graph.ts';
import { WasmArena, wasmKernels } from './kernels.ts';

export interface DecodeKernels {
  /** A new array of `len` floats in the arena (fails when the arena is full: size it up front). */
  f32(len: number): Float32Array;
  /** C = A·op(B), A [m, k], op(B) [k, n]; transB: B is [n, k]. */
  matmul(
    A: Float32Array,
    B: Float32Array,
    C: Float32Array,
    m: number,
    n: number,
    k: number,
    transB: boolean,
  ): void;
  /** y = act(x + bias[i % cols]) for the first `count` values. */
  biasAct(
    x: Float32Array,
    bias: Float32Array,
    y: Float32Array,
    cols: number,
    act: Activation,
    count: number,
  ): void;
  /** y = layerNorm(x) row by row, `rows` rows of `cols`; stats: 2 floats per row. */
  layerNorm(
    x: Float32Array,
    gamma: Float32Array,
    beta: Float32Array,
    y: Float32Array,
    stats: Float32Array,
    cols: number,
    eps: number,
    rows: number,
  ): void;
  /** y = a + b for the first `count` values. */
  add(a: Float32Array, b: Float32Array, y: Float32Array, count: number): void;
  /** out = attention of the query row `q` [d] over keys/values [positions, d] at positions 0..t. */
  attendRow(
    q: Float32Array,
    keys: Float32Array,
    values: Float32Array,
    out: Float32Array,
    probs: Float32Array,
    t: number,
    heads: number,
  ): void;
}

/** Kernels on an arena with room for `floats` floats of arrays. */
export async function createDecodeKernels(floats: number): Promise<DecodeKernels> {
  const arena = await WasmArena.create(floats);
  const k = wasmKernels(arena);
  const ptr = (a: Float32Array): number => {
    const p = arena.ptr(a);
    if (p < 0) throw new Error('decode kernels: an array outside the arena');
    return p;
  };
  return {
    f32: (len) => arena.f32(len),
    matmul: (A, B, C, m, n, kk, transB) => k.matmul(A, B, C, 1, m, n, kk, false, transB, false),
    biasAct: (x, bias, y, cols, act, count) => k.biasAct(x, bias, y, cols, act, count),
    layerNorm: (x, gamma, beta, y, stats, cols, eps, rows) =>
      k.layerNorm(x, gamma, beta, y, stats, cols, eps, rows),
    add: (a, b, y, count) => k.binary('add', a, b, y, count),
    attendRow: (q, keys, values, out, probs, t, heads) =>
      arena.exports.attendRow(ptr(q), ptr(keys), ptr(values), ptr(out), ptr(probs), t, q.length, heads),
  };
}
