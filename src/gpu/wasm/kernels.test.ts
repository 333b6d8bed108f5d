import { beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../../core/rng.ts';
import * as ops from '../cpu/ops.ts';
import type { Kernels } from '../cpu/model.ts';
import { adamStep, resolveAdam } from '../optimizer.ts';
import { worstError } from '../testing/cases.ts';
import { WasmArena, wasmKernels } from './kernels.ts';

// Kernel by kernel against the TypeScript reference, on arrays in the module's memory. Forward
// values: |Δ| ≤ 1e-5 + 1e-4·|ref| (f32 per op, sums in another order); accumulated gradients and
// long dot products (K up to 600): ≤ 1e-4 + 1e-3·|ref|.
const FWD = [1e-5, 1e-4] as const;
const GRAD = [1e-4, 1e-3] as const;

let arena: WasmArena;
let k: Kernels;
const rng = createRng(77);

beforeAll(async () => {
  arena = await WasmArena.create(8_000_000);
  k = wasmKernels(arena);
});

/** A copy of `src` in the arena (values drawn in [−scale, scale) when src is a length). */
function inArena(src: number | Float32Array, scale = 1): Float32Array {
  const a = arena.f32(typeof src === 'number' ? src : src.length);
  if (typeof src === 'number') for (let i = 0; i < src; i++) a[i] = (rng.next() * 2 - 1) * scale;
  else a.set(src);
  return a;
}
function idxInArena(n: number, below: number): Uint32Array {
  const a = arena.u32(n);
  for (let i = 0; i < n; i++) a[i] = rng.int(below);
  return a;
}
const copy = (a: Float32Array): Float32Array => Float32Array.from(a);
function close(got: Float32Array, want: Float32Array, tol: readonly [number, number], what = ''): void {
  expect(worstError(got, want, tol[0], tol[1]), what).toBeLessThanOrEqual(1);
}
function ranInWasm(name: string, before: number): void {
  expect(arena.calls.get(name) ?? 0, `${name} ran in the module`).toBeGreaterThan(before);
}
const callsOf = (name: string): number => arena.calls.get(name) ?? 0;

describe('wasm matmul', () => {
  // Shapes straddle the 4×8 register block, the 64-row, 256-deep and 512-wide cache blocks; one
  // has zero rows, one a zero depth.
  const shapes: [number, number, number, number][] = [
    [1, 1, 1, 1],
    [1, 5, 7, 3],
    [2, 17, 33, 19],
    [1, 67, 515, 259],
    [1, 130, 9, 600],
    [3, 0, 5, 4],
    [1, 6, 5, 0],
  ];
  for (const [batch, m, n, kk] of shapes) {
    for (const [ta, tb] of [
      [false, false],
      [false, true],
      [true, false],
      [true, true],
    ] as const) {
      it(`${batch}×[${m}×${kk}]·[${kk}×${n}] ${ta ? 'T' : 'N'}${tb ? 'T' : 'N'}, then accumulated`, () => {
        const A = inArena(batch * m * kk);
        const B = inArena(batch * kk * n);
        const C = inArena(batch * m * n, 1);
        const want = copy(C);
        const before = callsOf('matmul');
        ops.matmul(copy(A), copy(B), want, batch, m, n, kk, ta, tb, true);
        k.matmul(A, B, C, batch, m, n, kk, ta, tb, true);
        close(C, want, GRAD);
        ops.matmul(copy(A), copy(B), want, batch, m, n, kk, ta, tb, false);
        k.matmul(A, B, C, batch, m, n, kk, ta, tb, false);
        close(C, want, GRAD);
        if (m * n > 0) ranInWasm('matmul', before);
      });
    }
  }

  // One or two columns, or a depth of one or two: the row kernel instead of 8-column panels.
  for (const [m, n, kk] of [
    [37, 1, 64],
    [37, 2, 18],
    [41, 32, 1],
    [6, 9, 2],
    [0, 1, 3],
  ] as const) {
    it(`small product [${m}×${kk}]·[${kk}×${n}] with zeros in A, then accumulated`, () => {
      const A = inArena(m * kk);
      for (let i = 0; i < A.length; i += 3) A[i] = 0;
      const B = inArena(kk * n);
      const C = inArena(m * n, 1);
      const want = copy(C);
      const before = callsOf('matmulSmall');
      ops.matmul(copy(A), copy(B), want, 1, m, n, kk, false, false, true);
      k.matmul(A, B, C, 1, m, n, kk, false, false, true);
      close(C, want, GRAD);
      ops.matmul(copy(A), copy(B), want, 1, m, n, kk, false, false, false);
      k.matmul(A, B, C, 1, m, n, kk, false, false, false);
      close(C, want, FWD);
      expect(callsOf('matmulSmall')).toBe(before + 2);
    });
  }

  it('large values stay finite and match (|x| ~ 1e15: products near f32 max)', () => {
    const [m, n, kk] = [9, 11, 13];
    const A = inArena(m * kk, 1e15);
    const B = inArena(kk * n, 1e15);
    const C = inArena(m * n);
    const want = new Float32Array(m * n);
    ops.matmul(copy(A), copy(B), want, 1, m, n, kk, false, false, false);
    k.matmul(A, B, C, 1, m, n, kk, false, false, false);
    expect(C.every(Number.isFinite)).toBe(true);
    close(C, want, [1e-5, 1e-4]);
  });

  it('arrays outside the module memory run the TypeScript kernel, bit for bit', () => {
    const A = Float32Array.from({ length: 12 }, (_, i) => i - 5);
    const B = Float32Array.from({ length: 12 }, (_, i) => 0.5 * i);
    const C = new Float32Array(9);
    const want = new Float32Array(9);
    const before = callsOf('matmul');
    k.matmul(A, B, C, 1, 3, 3, 4, false, false, false);
    ops.matmul(A, B, want, 1, 3, 3, 4, false, false, false);
    expect([...C]).toEqual([...want]);
    expect(callsOf('matmul')).toBe(before);
  });
});

describe('wasm matmul with B packed once (weights)', () => {
  const bits = (x: Float32Array): number[] => [...new Uint32Array(x.buffer, x.byteOffset, x.length)];

  it('a product reading a weight packs it once per weights version, bit-identical to packing per call', async () => {
    const own = await WasmArena.create(2_000_000);
    const kk = wasmKernels(own);
    const plain = await WasmArena.create(2_000_000);
    const kp = wasmKernels(plain);
    // Straddles the 8-wide panels, the 256-deep and 512-wide blocks.
    for (const [m, n, depth] of [
      [5, 7, 3],
      [9, 515, 259],
      [3, 33, 600],
    ] as const)
      for (const tb of [false, true]) {
        const W = own.f32(n * depth);
        const A = own.f32(m * depth);
        for (let i = 0; i < W.length; i++) W[i] = rng.next() * 2 - 1;
        for (let i = 0; i < A.length; i++) A[i] = rng.next() * 2 - 1;
        own.setWeights(W);
        const [A2, W2, C2] = [plain.f32(A.length), plain.f32(W.length), plain.f32(m * n)];
        A2.set(A);
        W2.set(W);
        const C = own.f32(m * n);
        const packs0 = own.calls.get('packB') ?? 0;
        for (let r = 0; r < 3; r++) kk.matmul(A, W, C, 1, m, n, depth, false, tb, false);
        expect(own.calls.get('packB'), 'one pack for three products').toBe(packs0 + 1);
        kp.matmul(A2, W2, C2, 1, m, n, depth, false, tb, false);
        expect(plain.calls.get('matmulPacked') ?? 0, 'no weights, no pack').toBe(0);
        expect(bits(C)).toEqual(bits(C2));
        // The weights change: the next product repacks and sees the new values.
        W[0] = (W[0] as number) + 1;
        W2[0] = (W2[0] as number) + 1;
        own.weightsChanged();
        kk.matmul(A, W, C, 1, m, n, depth, false, tb, false);
        kp.matmul(A2, W2, C2, 1, m, n, depth, false, tb, false);
        expect(own.calls.get('packB')).toBe(packs0 + 2);
        expect(bits(C)).toEqual(bits(C2));
      }
  });
});

describe('wasm row and element-wise kernels', () => {
  for (const act of ['none', 'relu', 'tanh', 'gelu', 'sigmoid'] as const) {
    it(`bias + ${act} and its gradient (13 rows × 7, 3 live; 0 live)`, () => {
      for (const live of [13, 3, 0]) {
        const [rows, cols] = [13, 7];
        const x = inArena(rows * cols, 3);
        const b = inArena(cols);
        const y = inArena(rows * cols);
        const want = copy(y);
        const before = callsOf('biasAct');
        ops.biasAct(copy(x), copy(b), want, cols, act, live * cols);
        k.biasAct(x, b, y, cols, act, live * cols);
        close(y, want, FWD, 'forward');
        const gy = inArena(rows * cols);
        const gx = inArena(rows * cols);
        const gb = inArena(cols);
        const [wx, wb] = [copy(gx), copy(gb)];
        ops.biasActGrad(copy(x), copy(b), copy(gy), wx, wb, cols, act, live * cols);
        k.biasActGrad(x, b, gy, gx, gb, cols, act, live * cols);
        close(gx, wx, GRAD, 'gx');
        close(gb, wb, GRAD, 'gb');
        ranInWasm('biasAct', before);
      }
    });
  }

  // The f32 approximations (assembly/activation.ts) across their branch points (|x| = 0.625 for
  // tanh, the exp clamps), tiny and huge inputs, and a tail of 3 lanes; relu and identity stay exact.
  const EDGES = [
    0, -0, 1e-7, -1e-7, 0.01, 0.3, 0.6249, 0.625, 0.6251, -0.6249, -0.6251, 1, -1, 2.5, -3, 4.5, 8.99, 9.01,
    -9.01, 17, -17, 44, -44, 87.5, -87.5, 100, -100, 1e6, -1e6,
  ];
  for (const act of ['none', 'relu', 'tanh', 'gelu', 'sigmoid'] as const) {
    it(`${act} and its gradient at branch points and extremes`, () => {
      const cols = 31; // 7 chunks of 4 and a tail of 3
      const rows = Math.ceil(EDGES.length / cols) + 1;
      const xs = new Float32Array(rows * cols);
      for (let i = 0; i < xs.length; i++) xs[i] = EDGES[i % EDGES.length]! * (i < cols ? 1 : 0.37);
      const x = inArena(xs);
      const b = inArena(new Float32Array(cols)); // zero bias: z is x exactly
      const y = inArena(rows * cols);
      const want = new Float32Array(rows * cols);
      ops.biasAct(copy(x), copy(b), want, cols, act, rows * cols);
      k.biasAct(x, b, y, cols, act, rows * cols);
      for (const v of y) expect(Number.isFinite(v)).toBe(true);
      if (act === 'none' || act === 'relu') expect([...y]).toEqual([...want]);
      else close(y, want, [2e-7, 2e-6], 'forward');
      const gy = inArena(rows * cols, 1);
      const gx = inArena(rows * cols);
      const gb = inArena(cols);
      const [wx, wb] = [copy(gx), copy(gb)];
      ops.biasActGrad(copy(x), copy(b), copy(gy), wx, wb, cols, act, rows * cols);
      k.biasActGrad(x, b, gy, gx, gb, cols, act, rows * cols);
      if (act === 'none' || act === 'relu') {
        expect([...gx]).toEqual([...wx]);
        expect([...gb]).toEqual([...wb]);
      } else {
        close(gx, wx, [1e-6, 1e-5], 'gx');
        close(gb, wb, [1e-6, 1e-5], 'gb');
      }
    });
  }

  for (const op of ['add', 'sub', 'mul'] as const) {
    it(`binary ${op} and its gradients (odd length, live prefix, 0 live)`, () => {
      for (const count of [37, 13, 0]) {
        const [a, b] = [inArena(37, 1e3), inArena(37, 1e-2)];
        const y = inArena(37);
        const want = copy(y);
        const before = callsOf('binary');
        ops.binary(op, copy(a), copy(b), want, count);
        k.binary(op, a, b, y, count);
        // One f32 operation per element: the reference's bits, and the tail past `count` untouched.
        expect([...y]).toEqual([...want]);
        ranInWasm('binary', before);
        for (const which of [0, 1] as const) {
          const gy = inArena(37, 3);
          const g = inArena(37);
          const wg = copy(g);
          ops.binaryGrad(op, which, copy(a), copy(b), copy(gy), wg, count);
          k.binaryGrad(op, which, a, b, gy, g, count);
          if (op === 'mul') close(g, wg, [1e-6, 1e-6], `grad ${which}`);
          else expect([...g]).toEqual([...wg]);
        }
      }
    });
  }

  for (const op of ['scale', 'exp', 'sigmoid', 'tanh', 'log'] as const) {
    it(`unary ${op} and its gradient (odd length, a live prefix)`, () => {
      for (const count of [23, 6]) {
        const x = inArena(23, 4);
        if (op === 'log') for (let i = 0; i < x.length; i++) x[i] = Math.abs(x[i]!) + 0.01;
        const y = inArena(23);
        const want = copy(y);
        const alpha = 1 / 0.7; // not an f32: scaling rounds once, as the reference does
        const [before, beforeGrad] = [callsOf('unary'), callsOf('unaryGrad')];
        ops.unary(op, copy(x), want, alpha, count);
        k.unary(op, x, y, alpha, count);
        if (op === 'scale' || op === 'log') expect([...y]).toEqual([...want]);
        else close(y, want, [2e-7, 2e-6], 'forward');
        // The gradient reads y = f(x): give both the reference's y, so only the gradient differs.
        y.set(want);
        const gy = inArena(23, 2);
        const gx = inArena(23);
        const wx = copy(gx);
        ops.unaryGrad(op, copy(x), copy(y), copy(gy), wx, alpha, count);
        k.unaryGrad(op, x, y, gy, gx, alpha, count);
        // f64 in the reference's order: its bits.
        expect([...gx]).toEqual([...wx]);
        if (op === 'log') {
          expect(callsOf('unary'), 'log runs the TypeScript kernel').toBe(before);
          expect(callsOf('unaryGrad')).toBe(beforeGrad);
        } else {
          ranInWasm('unary', before);
          ranInWasm('unaryGrad', beforeGrad);
        }
      }
    });
  }

  it('bias-free relu over a length that is not a multiple of 4', () => {
    const x = inArena(23, 2);
    const y = inArena(23);
    const want = new Float32Array(23);
    ops.biasAct(copy(x), null, want, 23, 'relu');
    k.biasAct(x, null, y, 23, 'relu');
    expect([...y]).toEqual([...want]);
  });

  for (const log of [false, true]) {
    it(`${log ? 'log-' : ''}softmax with a broadcast mask, large logits, and its gradient`, () => {
      const [rows, cols, maskRows] = [11, 9, 3];
      const x = inArena(rows * cols, 50);
      x[4] = 1e4;
      const mask = inArena(maskRows * cols);
      for (let i = 0; i < mask.length; i++) mask[i] = rng.next() < 0.6 || i % cols === 0 ? 1 : 0;
      const y = inArena(rows * cols);
      const want = new Float32Array(rows * cols);
      ops.softmax(copy(x), copy(mask), maskRows, want, cols, log, rows);
      k.softmax(x, mask, maskRows, y, cols, log, rows);
      close(y, want, FWD);
      const gy = inArena(rows * cols);
      const gx = inArena(rows * cols);
      const wx = copy(gx);
      ops.softmaxGrad(copy(y), copy(gy), copy(mask), maskRows, wx, cols, log, rows);
      k.softmaxGrad(y, gy, mask, maskRows, gx, cols, log, rows);
      close(gx, wx, GRAD);
    });
  }

  it('gather and scatter of rows (repeated, unordered, live counts; zero rows)', () => {
    for (const cols of [1, 4, 7]) {
      const table = inArena(10 * cols);
      const idx = idxInArena(15, 10);
      const out = inArena(15 * cols);
      const want = copy(out);
      ops.gatherRows(copy(table), idx.slice(), want, cols, true, 12);
      k.gatherRows(table, idx, out, cols, true, 12);
      expect([...out]).toEqual([...want]);
      ops.gatherRows(copy(table), idx.slice(), want, cols, false, 15);
      k.gatherRows(table, idx, out, cols, false, 15);
      expect([...out]).toEqual([...want]);
      const dst = inArena(10 * cols);
      const wantDst = copy(dst);
      ops.scatterAddRows(copy(out), idx.slice(), wantDst, cols, true, 13);
      k.scatterAddRows(out, idx, dst, cols, true, 13);
      close(dst, wantDst, FWD);
      ops.scatterAddRows(copy(out), idx.slice(), wantDst, cols, false, 0);
      k.scatterAddRows(out, idx, dst, cols, false, 0);
      expect([...dst]).toEqual([...wantDst]);
    }
  });

  it('layer norm and its gradient (odd width, rows of large values, 0 rows)', () => {
    const [rows, cols] = [9, 13];
    const x = inArena(rows * cols, 1e3);
    const gamma = inArena(cols);
    const beta = inArena(cols);
    for (const live of [rows, 0]) {
      const y = inArena(rows * cols);
      const stats = inArena(2 * rows);
      const [wy, ws] = [copy(y), copy(stats)];
      ops.layerNorm(copy(x), copy(gamma), copy(beta), wy, ws, cols, 1e-5, live);
      k.layerNorm(x, gamma, beta, y, stats, cols, 1e-5, live);
      close(y, wy, FWD);
      close(stats, ws, FWD);
      const gy = inArena(rows * cols);
      const [gx, gg, gb] = [inArena(rows * cols), inArena(cols), inArena(cols)];
      const [wx, wg, wb] = [copy(gx), copy(gg), copy(gb)];
      ops.layerNormGrad(copy(x), copy(gamma), ws, copy(gy), wx, wg, wb, cols, live);
      k.layerNormGrad(x, gamma, stats, gy, gx, gg, gb, cols, live);
      close(gx, wx, GRAD);
      close(gg, wg, GRAD);
      close(gb, wb, GRAD);
    }
  });

  it('cross-entropy with zero weights and logits of 1000, and its gradient', () => {
    const [rows, cols] = [7, 11];
    const x = inArena(rows * cols, 5);
    x[3] = 1000;
    const t = idxInArena(rows, cols);
    const w = inArena(rows);
    w[2] = 0;
    const stats = inArena(2 * rows);
    const ws = new Float32Array(2 * rows);
    const want = ops.crossEntropy(copy(x), t.slice(), copy(w), ws, cols);
    const got = k.crossEntropy(x, t, w, stats, cols);
    expect(Math.abs(got - want)).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(want)));
    close(stats, ws, FWD);
    const gx = inArena(rows * cols);
    const wx = copy(gx);
    ops.crossEntropyGrad(copy(x), t.slice(), copy(w), ws, 0.7, wx, cols);
    k.crossEntropyGrad(x, t, w, stats, 0.7, gx, cols);
    close(gx, wx, GRAD);
  });

  it('cross-entropy with a target out of range throws the reference error', () => {
    const x = inArena(6);
    const t = arena.u32(2);
    t.set([1, 3]);
    expect(() => k.crossEntropy(x, t, inArena(2), inArena(4), 3)).toThrow(/outside \[0, 3\)/);
  });

  for (const [batch, seq, heads, d, segmented] of [
    [2, 5, 2, 8, false],
    [1, 7, 3, 9, false],
    [2, 6, 1, 4, true],
  ] as const) {
    it(`causal attention ${batch}×${seq}, ${heads} heads of ${d / heads}${segmented ? ', segments' : ''}, and its backward`, () => {
      const n = batch * seq * d;
      const [q, kk, v] = [inArena(n), inArena(n), inArena(n)];
      const segments = segmented ? arena.u32(batch * seq) : null;
      if (segments) segments.set([0, 0, 1, 1, 1, 2, 0, 1, 1, 1, 1, 1]);
      const out = inArena(n);
      const probs = inArena(batch * heads * seq * seq);
      const [wo, wp] = [new Float32Array(n), new Float32Array(probs.length)];
      ops.causalAttention(copy(q), copy(kk), copy(v), wo, wp, batch, seq, heads, segments?.slice() ?? null);
      k.causalAttention(q, kk, v, out, probs, batch, seq, heads, segments);
      close(out, wo, FWD);
      close(probs, wp, FWD);
      const gOut = inArena(n);
      const [gq, gk, gv] = [inArena(n), inArena(n), inArena(n)];
      const [wq, wk, wv] = [copy(gq), copy(gk), copy(gv)];
      ops.causalAttentionGrad(copy(q), copy(kk), copy(v), wo, wp, copy(gOut), wq, wk, wv, batch, seq, heads);
      k.causalAttentionGrad(q, kk, v, out, probs, gOut, gq, gk, gv, batch, seq, heads);
      close(gq, wq, GRAD, 'gq');
      close(gk, wk, GRAD, 'gk');
      close(gv, wv, GRAD, 'gv');
    });
  }

  it('Adam(W) with clipping equals the reference update (odd length)', () => {
    const len = 101;
    const [p, g, m, v] = [inArena(len), inArena(len, 10), inArena(len, 0.1), inArena(len)];
    for (let i = 0; i < len; i++) v[i] = Math.abs(v[i] as number);
    const [wp, wg, wm, wv] = [copy(p), copy(g), copy(m), copy(v)];
    const c = resolveAdam({ lr: 0.01, clipNorm: 1, weightDecay: 0.1 });
    const before = callsOf('adam');
    const want = adamStep(wp, wg, wm, wv, 3, c);
    const got = k.adamStep(p, g, m, v, 3, c);
    ranInWasm('adam', before);
    expect(Math.abs(got - want)).toBeLessThanOrEqual(1e-9 * want);
    // f64 arithmetic in the same order as the reference: the same bits.
    expect([...p]).toEqual([...wp]);
    expect([...m]).toEqual([...wm]);
    expect([...v]).toEqual([...wv]);
  });
});
