/**
 * C[b] (+)= op(A[b])·op(B[b]), op(A) [m,k], op(B) [k,n], C [m,n], all f32, row-major, byte pointers.
 *
 * Cache tiling in the GotoBLAS order: for each NC-wide column block and KC-deep slice of op(B),
 * pack it into NR-wide panels (k contiguous, NR floats per step); for each MC-high row block of op(A),
 * pack it into MR-high panels; then an MR×NR register block of C is accumulated in eight f32x4
 * registers per micro-kernel call. Packing absorbs both transposes, so all four forms run the same
 * inner loop. Partial edge blocks are packed with zeros and their valid part added from a buffer.
 *
 * `transB` is 0 (B as stored), 1 (B transposed) or PACKED: then B points at op(B) already packed
 * whole by `packBAll` (every NC×KC block in the loop order below, one after the other), and the
 * product skips packing B — what the host does for a weight between two optimizer steps.
 */

const MR = 4;
const NR = 8;
const MC = 64;
const KC = 256;
const NC = 512;
/** `transB` value meaning "B is op(B) packed by packBAll". */
const PACKED = 2;

/** Bytes of workspace `matmul` needs: packed A block, packed B block, an edge tile. */
export function matmulWorkBytes(): i32 {
  return (MC * KC + KC * NC + MR * NR) * 4;
}

function f32At(base: usize, index: i32): f32 {
  return load<f32>(base + ((<usize>index) << 2));
}

function packA(A: usize, ap: usize, m: i32, k: i32, transA: bool, i0: i32, mc: i32, p0: i32, kc: i32): void {
  for (let ir = 0; ir < mc; ir += MR) {
    const rows = min(MR, mc - ir);
    if (rows == MR) {
      // A whole panel: op(A)'s MR rows at each step are MR consecutive floats of Aᵀ's row, or one
      // float from each of MR rows of A.
      const i = i0 + ir;
      if (transA) {
        let src = A + ((<usize>(p0 * m + i)) << 2);
        const stride = (<usize>m) << 2;
        for (let p = 0; p < kc; p++) {
          v128.store(ap, v128.load(src));
          src += stride;
          ap += MR * 4;
        }
      } else {
        const stride = (<usize>k) << 2;
        let r0 = A + ((<usize>(i * k + p0)) << 2);
        for (let p = 0; p < kc; p++) {
          store<f32>(ap, load<f32>(r0));
          store<f32>(ap, load<f32>(r0 + stride), 4);
          store<f32>(ap, load<f32>(r0 + 2 * stride), 8);
          store<f32>(ap, load<f32>(r0 + 3 * stride), 12);
          r0 += 4;
          ap += MR * 4;
        }
      }
      continue;
    }
    for (let p = 0; p < kc; p++) {
      for (let t = 0; t < MR; t++) {
        let v: f32 = 0;
        if (t < rows) {
          const i = i0 + ir + t;
          v = transA ? f32At(A, (p0 + p) * m + i) : f32At(A, i * k + p0 + p);
        }
        store<f32>(ap, v);
        ap += 4;
      }
    }
  }
}

function packB(B: usize, bp: usize, n: i32, k: i32, transB: i32, j0: i32, nc: i32, p0: i32, kc: i32): void {
  for (let jr = 0; jr < nc; jr += NR) {
    const colsN = min(NR, nc - jr);
    if (transB == 0 && colsN == NR) {
      for (let p = 0; p < kc; p++) {
        const src = B + ((<usize>((p0 + p) * n + j0 + jr)) << 2);
        v128.store(bp, v128.load(src));
        v128.store(bp, v128.load(src, 16), 16);
        bp += NR * 4;
      }
      continue;
    }
    for (let p = 0; p < kc; p++) {
      for (let t = 0; t < NR; t++) {
        let v: f32 = 0;
        if (t < colsN) {
          const j = j0 + jr + t;
          v = transB != 0 ? f32At(B, j * k + p0 + p) : f32At(B, (p0 + p) * n + j);
        }
        store<f32>(bp, v);
        bp += 4;
      }
    }
  }
}

/** Floats of op(B) [k, n] packed whole: k steps of every NR-wide panel, the last padded with zeros. */
export function packedBFloats(n: i32, k: i32): i32 {
  return k * (((n + NR - 1) / NR) * NR);
}

/** Packs op(B) [k, n] (`transB` 0 or 1) whole into `dst` in the order `matmulRows` reads it with PACKED. */
export function packBAll(B: usize, dst: usize, n: i32, k: i32, transB: i32): void {
  for (let jc = 0; jc < n; jc += NC) {
    const nc = min(NC, n - jc);
    for (let pc = 0; pc < k; pc += KC) {
      const kc = min(KC, k - pc);
      packB(B, dst, n, k, transB, jc, nc, pc, kc);
      dst += <usize>(((nc + NR - 1) / NR) * NR * kc * 4);
    }
  }
}

/** C tile (+)= Ap panel · Bp panel over kc steps; `ldc` is C's row stride in bytes. */
function micro(ap: usize, bp: usize, kc: i32, c: usize, ldc: usize, rows: i32, colsN: i32, tmp: usize): void {
  let c00 = f32x4.splat(0);
  let c01 = f32x4.splat(0);
  let c10 = f32x4.splat(0);
  let c11 = f32x4.splat(0);
  let c20 = f32x4.splat(0);
  let c21 = f32x4.splat(0);
  let c30 = f32x4.splat(0);
  let c31 = f32x4.splat(0);
  for (let p = 0; p < kc; p++) {
    const b0 = v128.load(bp);
    const b1 = v128.load(bp, 16);
    let a = v128.load32_splat(ap);
    c00 = f32x4.add(c00, f32x4.mul(a, b0));
    c01 = f32x4.add(c01, f32x4.mul(a, b1));
    a = v128.load32_splat(ap, 4);
    c10 = f32x4.add(c10, f32x4.mul(a, b0));
    c11 = f32x4.add(c11, f32x4.mul(a, b1));
    a = v128.load32_splat(ap, 8);
    c20 = f32x4.add(c20, f32x4.mul(a, b0));
    c21 = f32x4.add(c21, f32x4.mul(a, b1));
    a = v128.load32_splat(ap, 12);
    c30 = f32x4.add(c30, f32x4.mul(a, b0));
    c31 = f32x4.add(c31, f32x4.mul(a, b1));
    ap += MR * 4;
    bp += NR * 4;
  }
  if (rows == MR && colsN == NR) {
    v128.store(c, f32x4.add(v128.load(c), c00));
    v128.store(c, f32x4.add(v128.load(c, 16), c01), 16);
    c += ldc;
    v128.store(c, f32x4.add(v128.load(c), c10));
    v128.store(c, f32x4.add(v128.load(c, 16), c11), 16);
    c += ldc;
    v128.store(c, f32x4.add(v128.load(c), c20));
    v128.store(c, f32x4.add(v128.load(c, 16), c21), 16);
    c += ldc;
    v128.store(c, f32x4.add(v128.load(c), c30));
    v128.store(c, f32x4.add(v128.load(c, 16), c31), 16);
    return;
  }
  v128.store(tmp, c00);
  v128.store(tmp, c01, 16);
  v128.store(tmp, c10, 32);
  v128.store(tmp, c11, 48);
  v128.store(tmp, c20, 64);
  v128.store(tmp, c21, 80);
  v128.store(tmp, c30, 96);
  v128.store(tmp, c31, 112);
  for (let i = 0; i < rows; i++) {
    const row = c + <usize>i * ldc;
    for (let j = 0; j < colsN; j++) {
      const q = row + ((<usize>j) << 2);
      store<f32>(q, load<f32>(q) + load<f32>(tmp + ((<usize>(i * NR + j)) << 2)));
    }
  }
}

export function matmul(
  A: usize,
  B: usize,
  C: usize,
  batch: i32,
  m: i32,
  n: i32,
  k: i32,
  transA: bool,
  transB: i32,
  accumulate: bool,
  work: usize,
): void {
  matmulRows(A, B, C, batch, m, n, k, transA, transB, accumulate, work, 0, m);
}

/**
 * Rows r0..r1 of every C[b] (the rest untouched): what one thread computes when the rows are split.
 * Each element sums its k products in the same order (KC slices, then p within a slice) whatever
 * the row range, so a split product is bit-identical to the whole one.
 */
export function matmulRows(
  A: usize,
  B: usize,
  C: usize,
  batch: i32,
  m: i32,
  n: i32,
  k: i32,
  transA: bool,
  transB: i32,
  accumulate: bool,
  work: usize,
  r0: i32,
  r1: i32,
): void {
  const ap = work;
  const bwork = work + <usize>(MC * KC * 4);
  const tmp = bwork + <usize>(KC * NC * 4);
  for (let bi = 0; bi < batch; bi++) {
    const Ab = A + <usize>bi * <usize>m * <usize>k * 4;
    const Bb = B + <usize>bi * <usize>k * <usize>n * 4;
    const Cb = C + <usize>bi * <usize>m * <usize>n * 4;
    if (!accumulate) memory.fill(Cb + <usize>r0 * <usize>n * 4, 0, <usize>(r1 - r0) * <usize>n * 4);
    let packed = B + <usize>bi * <usize>packedBFloats(n, k) * 4;
    for (let jc = 0; jc < n; jc += NC) {
      const nc = min(NC, n - jc);
      for (let pc = 0; pc < k; pc += KC) {
        const kc = min(KC, k - pc);
        let bp = bwork;
        if (transB == PACKED) {
          bp = packed;
          packed += <usize>(((nc + NR - 1) / NR) * NR * kc * 4);
        } else packB(Bb, bp, n, k, transB, jc, nc, pc, kc);
        for (let ic = r0; ic < r1; ic += MC) {
          const mc = min(MC, r1 - ic);
          packA(Ab, ap, m, k, transA, ic, mc, pc, kc);
          for (let jr = 0; jr < nc; jr += NR) {
            const bpanel = bp + <usize>(jr * kc * 4);
            for (let ir = 0; ir < mc; ir += MR) {
              const c = Cb + ((<usize>((ic + ir) * n + jc + jr)) << 2);
              micro(
                ap + <usize>(ir * kc * 4),
                bpanel,
                kc,
                c,
                (<usize>n) << 2,
                min(MR, mc - ir),
                min(NR, nc - jr),
                tmp,
              );
            }
          }
        }
      }
    }
  }
}
