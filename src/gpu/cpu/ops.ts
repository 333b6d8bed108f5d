/**
 * Plain TypeScript kernels on Float32Array: the CPU backend and the reference every WGSL kernel is
 * tested against. Backward functions accumulate (g += ...) so that a tensor read by several ops sums
 * its gradient contributions; the caller zeroes gradients once per step.
 *
 * Kernels that run row by row or element by element take an optional count (rows, elements or
 * indices; default: all of them): the CPU backend passes the live rows of tensors whose inputs
 * end in padding rows (`Model.setInput`'s `rows`) and leaves the rest untouched.
 *
 * Long because there are many small kernels, each beside its backward (as the .wgsl files sit one
 * per kernel), not because any one of them is long.
 */
import type { Activation, BinaryOp, ReduceOp, UnaryOp } from '../graph.ts';
import { MASKED_LOG_PROB } from '../graph.ts';

type F32 = Float32Array;
type Idx = Uint32Array;

/** sqrt(2/π), the constant of the tanh approximation of GELU. */
const GELU_C = Math.sqrt(2 / Math.PI);

/**
 * C[b] (+)= op(A[b])·op(B[b]) with op(A) [m,k], op(B) [k,n], C [m,n]. The loop forms keep the
 * innermost loop on contiguous memory: when B's rows run along n (no transB), C's row i gathers
 * a·B[p, :] four rows p at a time (one pass over C per 4 values of p); when B is transposed, each
 * C[i, j] is a dot product of A's row i (copied contiguous first) with B's row j, four j at a time.
 *
 * Four values of A that are all exactly 0 are skipped (the policy's features are mostly one-hot
 * and flags): with finite B they would add exact zeros, and a running sum that starts at +0 and
 * only ever has values added is never −0, so the result is the same bit for bit.
 */
export function matmul(
  A: F32,
  B: F32,
  C: F32,
  batch: number,
  m: number,
  n: number,
  k: number,
  transA: boolean,
  transB: boolean,
  accumulate: boolean,
): void {
  if (!accumulate) C.fill(0, 0, batch * m * n);
  // op(A)[i, p] = A[ao + i·sai + p·sap]
  const sai = transA ? 1 : k;
  const sap = transA ? m : 1;
  const arow = new Float32Array(k);
  for (let bi = 0; bi < batch; bi++) {
    const ao = bi * m * k;
    const bo = bi * k * n;
    const co = bi * m * n;
    if (transA && !transB) {
      // op(A)ᵀ·B with A stored [k, m] (weight gradients xᵀ·dy, k = batch): p outermost so A's rows
      // and four rows of B are read contiguously and C (the small [m, n] gradient) stays in cache;
      // the i-outer order would stream all of B (k·n floats) once per row of C.
      let p = 0;
      for (; p + 3 < k; p += 4) {
        const a0r = ao + p * m;
        const b0 = bo + p * n;
        const b1 = b0 + n;
        const b2 = b1 + n;
        const b3 = b2 + n;
        for (let i = 0; i < m; i++) {
          const a0 = A[a0r + i] as number;
          const a1 = A[a0r + m + i] as number;
          const a2 = A[a0r + 2 * m + i] as number;
          const a3 = A[a0r + 3 * m + i] as number;
          if (a0 === 0 && a1 === 0 && a2 === 0 && a3 === 0) continue;
          const crow = co + i * n;
          for (let j = 0; j < n; j++) {
            C[crow + j] =
              (C[crow + j] as number) +
              a0 * (B[b0 + j] as number) +
              a1 * (B[b1 + j] as number) +
              a2 * (B[b2 + j] as number) +
              a3 * (B[b3 + j] as number);
          }
        }
      }
      for (; p < k; p++) {
        const b0 = bo + p * n;
        for (let i = 0; i < m; i++) {
          const a = A[ao + p * m + i] as number;
          const crow = co + i * n;
          for (let j = 0; j < n; j++) C[crow + j] = (C[crow + j] as number) + a * (B[b0 + j] as number);
        }
      }
      continue;
    }
    for (let i = 0; i < m; i++) {
      const crow = co + i * n;
      const ai = ao + i * sai;
      if (!transB) {
        let p = 0;
        for (; p + 3 < k; p += 4) {
          const a0 = A[ai + p * sap] as number;
          const a1 = A[ai + (p + 1) * sap] as number;
          const a2 = A[ai + (p + 2) * sap] as number;
          const a3 = A[ai + (p + 3) * sap] as number;
          if (a0 === 0 && a1 === 0 && a2 === 0 && a3 === 0) continue;
          const b0 = bo + p * n;
          const b1 = b0 + n;
          const b2 = b1 + n;
          const b3 = b2 + n;
          for (let j = 0; j < n; j++) {
            C[crow + j] =
              (C[crow + j] as number) +
              a0 * (B[b0 + j] as number) +
              a1 * (B[b1 + j] as number) +
              a2 * (B[b2 + j] as number) +
              a3 * (B[b3 + j] as number);
          }
        }
        for (; p < k; p++) {
          const a = A[ai + p * sap] as number;
          const b0 = bo + p * n;
          for (let j = 0; j < n; j++) C[crow + j] = (C[crow + j] as number) + a * (B[b0 + j] as number);
        }
      } else {
        for (let p = 0; p < k; p++) arow[p] = A[ai + p * sap] as number;
        let j = 0;
        for (; j + 3 < n; j += 4) {
          const r0 = bo + j * k;
          const r1 = r0 + k;
          const r2 = r1 + k;
          const r3 = r2 + k;
          let s0 = 0;
          let s1 = 0;
          let s2 = 0;
          let s3 = 0;
          for (let p = 0; p < k; p++) {
            const a = arow[p] as number;
            s0 += a * (B[r0 + p] as number);
            s1 += a * (B[r1 + p] as number);
            s2 += a * (B[r2 + p] as number);
            s3 += a * (B[r3 + p] as number);
          }
          C[crow + j] = (C[crow + j] as number) + s0;
          C[crow + j + 1] = (C[crow + j + 1] as number) + s1;
          C[crow + j + 2] = (C[crow + j + 2] as number) + s2;
          C[crow + j + 3] = (C[crow + j + 3] as number) + s3;
        }
        for (; j < n; j++) {
          const r0 = bo + j * k;
          let s = 0;
          for (let p = 0; p < k; p++) s += (arow[p] as number) * (B[r0 + p] as number);
          C[crow + j] = (C[crow + j] as number) + s;
        }
      }
    }
  }
}

/** Partial sums of `matmulSharedPrefix` kept between calls: prefix bits → the row's sum over them. */
export interface PrefixCache {
  /** Hash of a prefix → entries with that hash. */
  byHash: Map<number, { prefix: Uint32Array; partial: Float32Array }[]>;
  size: number;
}

export const prefixCache = (): PrefixCache => ({ byHash: new Map(), size: 0 });

/**
 * C = A·B (one batch, neither operand transposed) for `m` rows, where rows of A often share their
 * first `d` columns (d a multiple of 4): the sum over those columns is computed once per distinct
 * prefix (found by hashing its bits and comparing them) and kept in `cache` for later calls with
 * the same B (the caller empties it when B changes). Bit for bit `matmul`: that kernel stores each
 * row's running sum in f32 after every 4 columns, so the sum after the first d columns is one f32
 * row whatever follows, and the rest of the row continues from it in the same order.
 */
export function matmulSharedPrefix(
  A: F32,
  B: F32,
  C: F32,
  m: number,
  n: number,
  k: number,
  d: number,
  cache: PrefixCache,
): void {
  const bits = new Uint32Array(A.buffer, A.byteOffset, A.length);
  const row = new Float32Array(n);
  for (let i = 0; i < m; i++) {
    const ao = i * k;
    let h = 0x811c9dc5;
    for (let p = 0; p < d; p++) h = Math.imul(h ^ (bits[ao + p] as number), 0x01000193);
    let list = cache.byHash.get(h);
    let hit: Float32Array | null = null;
    if (list) {
      for (const e of list) {
        let same = true;
        for (let p = 0; p < d; p++) {
          if (e.prefix[p] !== bits[ao + p]) {
            same = false;
            break;
          }
        }
        if (same) {
          hit = e.partial;
          break;
        }
      }
    }
    if (!hit) {
      row.fill(0);
      for (let p = 0; p < d; p += 4) {
        const a0 = A[ao + p] as number;
        const a1 = A[ao + p + 1] as number;
        const a2 = A[ao + p + 2] as number;
        const a3 = A[ao + p + 3] as number;
        const b0 = p * n;
        const b1 = b0 + n;
        const b2 = b1 + n;
        const b3 = b2 + n;
        for (let j = 0; j < n; j++) {
          row[j] =
            (row[j] as number) +
            a0 * (B[b0 + j] as number) +
            a1 * (B[b1 + j] as number) +
            a2 * (B[b2 + j] as number) +
            a3 * (B[b3 + j] as number);
        }
      }
      hit = Float32Array.from(row);
      if (!list) {
        list = [];
        cache.byHash.set(h, list);
      }
      list.push({ prefix: bits.slice(ao, ao + d), partial: hit });
      cache.size++;
    }
    const crow = i * n;
    C.set(hit, crow);
    let p = d;
    for (; p + 3 < k; p += 4) {
      const a0 = A[ao + p] as number;
      const a1 = A[ao + p + 1] as number;
      const a2 = A[ao + p + 2] as number;
      const a3 = A[ao + p + 3] as number;
      if (a0 === 0 && a1 === 0 && a2 === 0 && a3 === 0) continue;
      const b0 = p * n;
      const b1 = b0 + n;
      const b2 = b1 + n;
      const b3 = b2 + n;
      for (let j = 0; j < n; j++) {
        C[crow + j] =
          (C[crow + j] as number) +
          a0 * (B[b0 + j] as number) +
          a1 * (B[b1 + j] as number) +
          a2 * (B[b2 + j] as number) +
          a3 * (B[b3 + j] as number);
      }
    }
    for (; p < k; p++) {
      const a = A[ao + p] as number;
      const b0 = p * n;
      for (let j = 0; j < n; j++) C[crow + j] = (C[crow + j] as number) + a * (B[b0 + j] as number);
    }
  }
}

export function activate(z: number, act: Activation): number {
  switch (act) {
    case 'none':
      return z;
    case 'relu':
      return z > 0 ? z : 0;
    case 'tanh':
      return Math.tanh(z);
    case 'gelu':
      return 0.5 * z * (1 + Math.tanh(GELU_C * (z + 0.044715 * z * z * z)));
    case 'sigmoid':
      return 1 / (1 + Math.exp(-z));
  }
}

/** d act(z) / dz. */
export function activateGrad(z: number, act: Activation): number {
  switch (act) {
    case 'none':
      return 1;
    case 'relu':
      return z > 0 ? 1 : 0;
    case 'tanh': {
      const t = Math.tanh(z);
      return 1 - t * t;
    }
    case 'gelu': {
      const u = GELU_C * (z + 0.044715 * z * z * z);
      const t = Math.tanh(u);
      return 0.5 * (1 + t) + 0.5 * z * (1 - t * t) * GELU_C * (1 + 3 * 0.044715 * z * z);
    }
    case 'sigmoid': {
      const s = 1 / (1 + Math.exp(-z));
      return s * (1 - s);
    }
  }
}

export function biasAct(
  x: F32,
  bias: F32 | null,
  y: F32,
  cols: number,
  act: Activation,
  count = x.length,
): void {
  for (let i = 0; i < count; i++) {
    const z = (x[i] as number) + (bias ? (bias[i % cols] as number) : 0);
    y[i] = activate(z, act);
  }
}

/** gx += gy·act'(x + b); gb[c] += Σ_r gy·act'(x + b). */
export function biasActGrad(
  x: F32,
  bias: F32 | null,
  gy: F32,
  gx: F32 | null,
  gb: F32 | null,
  cols: number,
  act: Activation,
  count = x.length,
): void {
  for (let i = 0; i < count; i++) {
    const c = i % cols;
    const z = (x[i] as number) + (bias ? (bias[c] as number) : 0);
    const dz = (gy[i] as number) * activateGrad(z, act);
    if (gx) gx[i] = (gx[i] as number) + dz;
    if (gb) gb[c] = (gb[c] as number) + dz;
  }
}

export function softmax(
  x: F32,
  mask: F32 | null,
  maskRows: number,
  y: F32,
  cols: number,
  log: boolean,
  rowsN = x.length / cols,
): void {
  for (let r = 0; r < rowsN; r++) {
    const o = r * cols;
    const mo = (r % maskRows) * cols;
    let mx = -Infinity;
    for (let c = 0; c < cols; c++) {
      if (mask === null || (mask[mo + c] as number) > 0.5) mx = Math.max(mx, x[o + c] as number);
    }
    let s = 0;
    for (let c = 0; c < cols; c++) {
      if (mask === null || (mask[mo + c] as number) > 0.5) s += Math.exp((x[o + c] as number) - mx);
    }
    const lse = Math.log(s);
    for (let c = 0; c < cols; c++) {
      if (mask !== null && (mask[mo + c] as number) <= 0.5) y[o + c] = log ? MASKED_LOG_PROB : 0;
      else y[o + c] = log ? (x[o + c] as number) - mx - lse : Math.exp((x[o + c] as number) - mx) / s;
    }
  }
}

/**
 * log-softmax: gx_i += gy_i − p_i·Σ_j gy_j; softmax: gx_i += y_i·(gy_i − Σ_j gy_j·y_j); sums over
 * allowed entries, masked entries get no gradient.
 */
export function softmaxGrad(
  y: F32,
  gy: F32,
  mask: F32 | null,
  maskRows: number,
  gx: F32,
  cols: number,
  log: boolean,
  rowsN = y.length / cols,
): void {
  for (let r = 0; r < rowsN; r++) {
    const o = r * cols;
    const mo = (r % maskRows) * cols;
    let s = 0;
    for (let c = 0; c < cols; c++) {
      if (mask !== null && (mask[mo + c] as number) <= 0.5) continue;
      s += log ? (gy[o + c] as number) : (gy[o + c] as number) * (y[o + c] as number);
    }
    for (let c = 0; c < cols; c++) {
      if (mask !== null && (mask[mo + c] as number) <= 0.5) continue;
      const yc = y[o + c] as number;
      const g = gy[o + c] as number;
      gx[o + c] = (gx[o + c] as number) + (log ? g - Math.exp(yc) * s : yc * (g - s));
    }
  }
}

export function pick(x: F32, idx: Idx, out: F32, cols: number, count = out.length): void {
  for (let r = 0; r < count; r++) out[r] = x[r * cols + (idx[r] as number)] as number;
}

export function pickGrad(gy: F32, idx: Idx, gx: F32, cols: number, count = gy.length): void {
  for (let r = 0; r < count; r++) {
    const i = r * cols + (idx[r] as number);
    gx[i] = (gx[i] as number) + (gy[r] as number);
  }
}

export function binary(op: BinaryOp, a: F32, b: F32, y: F32, count = y.length): void {
  for (let i = 0; i < count; i++) {
    const u = a[i] as number;
    const v = b[i] as number;
    y[i] = op === 'add' ? u + v : op === 'sub' ? u - v : u * v;
  }
}

/** Gradient of a binary op with respect to operand `which` (0 = a, 1 = b). */
export function binaryGrad(
  op: BinaryOp,
  which: 0 | 1,
  a: F32,
  b: F32,
  gy: F32,
  g: F32,
  count = gy.length,
): void {
  for (let i = 0; i < count; i++) {
    const d =
      op === 'add'
        ? 1
        : op === 'sub'
          ? which === 0
            ? 1
            : -1
          : which === 0
            ? (b[i] as number)
            : (a[i] as number);
    g[i] = (g[i] as number) + d * (gy[i] as number);
  }
}

export function unaryValue(op: UnaryOp, x: number, alpha: number): number {
  switch (op) {
    case 'scale':
      return alpha * x;
    case 'exp':
      return Math.exp(x);
    case 'log':
      return Math.log(x);
    case 'sigmoid':
      return 1 / (1 + Math.exp(-x));
    case 'tanh':
      return Math.tanh(x);
  }
}

export function unary(op: UnaryOp, x: F32, y: F32, alpha: number, count = x.length): void {
  for (let i = 0; i < count; i++) y[i] = unaryValue(op, x[i] as number, alpha);
}

/** gx += gy·f'(x), written with y = f(x) where that is cheaper. */
export function unaryGrad(
  op: UnaryOp,
  x: F32,
  y: F32,
  gy: F32,
  gx: F32,
  alpha: number,
  count = x.length,
): void {
  for (let i = 0; i < count; i++) {
    const xi = x[i] as number;
    const yi = y[i] as number;
    const d =
      op === 'scale'
        ? alpha
        : op === 'exp'
          ? yi
          : op === 'log'
            ? 1 / xi
            : op === 'sigmoid'
              ? yi * (1 - yi)
              : 1 - yi * yi;
    gx[i] = (gx[i] as number) + d * (gy[i] as number);
  }
}

/** softplus(x) = log(1 + e^x), computed without overflow as max(x, 0) + log1p(e^−|x|). */
export function softplus(x: number): number {
  return Math.max(x, 0) + Math.log1p(Math.exp(-Math.abs(x)));
}

export function bernoulliLogProb(x: F32, t: F32, y: F32, count = x.length): void {
  for (let i = 0; i < count; i++) y[i] = (t[i] as number) * (x[i] as number) - softplus(x[i] as number);
}

/** d/dx [t·x − softplus(x)] = t − σ(x); d/dt = x (targets are usually data, but the graph allows it). */
export function bernoulliLogProbGrad(
  x: F32,
  t: F32,
  gy: F32,
  gx: F32 | null,
  gt: F32 | null,
  count = x.length,
): void {
  for (let i = 0; i < count; i++) {
    const xi = x[i] as number;
    const g = gy[i] as number;
    if (gx) gx[i] = (gx[i] as number) + g * ((t[i] as number) - 1 / (1 + Math.exp(-xi)));
    if (gt) gt[i] = (gt[i] as number) + g * xi;
  }
}

/** out[i, :] (+)= table[idx[i], :]. */
export function gatherRows(
  table: F32,
  idx: Idx,
  out: F32,
  cols: number,
  accumulate: boolean,
  count = idx.length,
): void {
  for (let i = 0; i < count; i++) {
    const src = (idx[i] as number) * cols;
    for (let c = 0; c < cols; c++) {
      const v = table[src + c] as number;
      out[i * cols + c] = accumulate ? (out[i * cols + c] as number) + v : v;
    }
  }
}

/** out[r, :] (+)= Σ_{i: idx[i] = r} src[i, :]. */
export function scatterAddRows(
  src: F32,
  idx: Idx,
  out: F32,
  cols: number,
  accumulate: boolean,
  count = idx.length,
): void {
  if (!accumulate) out.fill(0);
  for (let i = 0; i < count; i++) {
    const dst = (idx[i] as number) * cols;
    for (let c = 0; c < cols; c++) out[dst + c] = (out[dst + c] as number) + (src[i * cols + c] as number);
  }
}

/** Writes y and the per-row statistics stats[2r] = mean, stats[2r+1] = 1/sqrt(var + eps). */
export function layerNorm(
  x: F32,
  gamma: F32,
  beta: F32,
  y: F32,
  stats: F32,
  cols: number,
  eps: number,
  rowsN = x.length / cols,
): void {
  for (let r = 0; r < rowsN; r++) {
    const o = r * cols;
    let mean = 0;
    for (let c = 0; c < cols; c++) mean += x[o + c] as number;
    mean /= cols;
    let v = 0;
    for (let c = 0; c < cols; c++) v += ((x[o + c] as number) - mean) ** 2;
    const rstd = 1 / Math.sqrt(v / cols + eps);
    stats[2 * r] = mean;
    stats[2 * r + 1] = rstd;
    for (let c = 0; c < cols; c++) {
      y[o + c] = ((x[o + c] as number) - mean) * rstd * (gamma[c] as number) + (beta[c] as number);
    }
  }
}

/**
 * With x̂ = (x − mean)·rstd and d = gy·gamma: gx += rstd·(d − mean(d) − x̂·mean(d·x̂));
 * ggamma += Σ_r gy·x̂; gbeta += Σ_r gy.
 */
export function layerNormGrad(
  x: F32,
  gamma: F32,
  stats: F32,
  gy: F32,
  gx: F32 | null,
  gGamma: F32 | null,
  gBeta: F32 | null,
  cols: number,
  rowsN = x.length / cols,
): void {
  for (let r = 0; r < rowsN; r++) {
    const o = r * cols;
    const mean = stats[2 * r] as number;
    const rstd = stats[2 * r + 1] as number;
    let md = 0;
    let mdx = 0;
    for (let c = 0; c < cols; c++) {
      const xh = ((x[o + c] as number) - mean) * rstd;
      const d = (gy[o + c] as number) * (gamma[c] as number);
      md += d;
      mdx += d * xh;
      if (gGamma) gGamma[c] = (gGamma[c] as number) + (gy[o + c] as number) * xh;
      if (gBeta) gBeta[c] = (gBeta[c] as number) + (gy[o + c] as number);
    }
    md /= cols;
    mdx /= cols;
    if (!gx) continue;
    for (let c = 0; c < cols; c++) {
      const xh = ((x[o + c] as number) - mean) * rstd;
      const d = (gy[o + c] as number) * (gamma[c] as number);
      gx[o + c] = (gx[o + c] as number) + rstd * (d - md - xh * mdx);
    }
  }
}

/** Rows r < `rowsN` of y; each reads its first `used` columns (the mean still divides by `cols`). */
export function reduce(op: ReduceOp, x: F32, y: F32, cols: number, rowsN = y.length, used = cols): void {
  for (let r = 0; r < rowsN; r++) {
    let acc = op === 'max' ? -Infinity : 0;
    for (let c = 0; c < used; c++) {
      const v = x[r * cols + c] as number;
      acc = op === 'max' ? Math.max(acc, v) : acc + v;
    }
    y[r] = op === 'mean' ? acc / cols : acc;
  }
}

/** sum: gx += gy; mean: gx += gy/C; max: gx += gy where x equals the row maximum (ties all receive it). */
export function reduceGrad(
  op: ReduceOp,
  x: F32,
  y: F32,
  gy: F32,
  gx: F32,
  cols: number,
  rowsN = y.length,
  used = cols,
): void {
  for (let r = 0; r < rowsN; r++) {
    const g = gy[r] as number;
    for (let c = 0; c < used; c++) {
      const i = r * cols + c;
      const d = op === 'sum' ? 1 : op === 'mean' ? 1 / cols : x[i] === y[r] ? 1 : 0;
      gx[i] = (gx[i] as number) + d * g;
    }
  }
}

/**
 * Multi-head causal self-attention. q, k, v, out are [batch·seq, d]; head h owns columns
 * [h·hd, (h+1)·hd) with hd = d/heads. Writes out and the attention probabilities
 * probs[((b·heads + h)·seq + i)·seq + j] (0 above the diagonal and, with segments, between rows of
 * different segments), which the backward reads: a probability of 0 passes no gradient, so the
 * backward needs no segments.
 */
export function causalAttention(
  q: F32,
  k: F32,
  v: F32,
  out: F32,
  probs: F32,
  batch: number,
  seq: number,
  heads: number,
  segments: Idx | null = null,
): void {
  const d = q.length / (batch * seq);
  const hd = d / heads;
  const scale = 1 / Math.sqrt(hd);
  out.fill(0);
  probs.fill(0);
  for (let b = 0; b < batch; b++) {
    const base = b * seq * d;
    for (let h = 0; h < heads; h++) {
      const ho = h * hd;
      for (let i = 0; i < seq; i++) {
        const po = ((b * heads + h) * seq + i) * seq;
        const qo = base + i * d + ho;
        let mx = -Infinity;
        // With segments, keys of another segment stay at probability 0 (j = i always qualifies).
        const si = segments === null ? 0 : (segments[b * seq + i] as number);
        const sees = (j: number): boolean => segments === null || segments[b * seq + j] === si;
        for (let j = 0; j <= i; j++) {
          if (!sees(j)) continue;
          const ko = base + j * d + ho;
          let s = 0;
          for (let c = 0; c < hd; c++) s += (q[qo + c] as number) * (k[ko + c] as number);
          s *= scale;
          probs[po + j] = s;
          if (s > mx) mx = s;
        }
        let total = 0;
        for (let j = 0; j <= i; j++) {
          if (!sees(j)) continue;
          const e = Math.exp((probs[po + j] as number) - mx);
          probs[po + j] = e;
          total += e;
        }
        for (let j = 0; j <= i; j++) {
          if (!sees(j)) continue;
          const p = (probs[po + j] as number) / total;
          probs[po + j] = p;
          const vo = base + j * d + ho;
          for (let c = 0; c < hd; c++) out[qo + c] = (out[qo + c] as number) + p * (v[vo + c] as number);
        }
      }
    }
  }
}

/**
 * Backward of causalAttention. With P the probabilities, dO the output gradient and
 * D_i = Σ_c dO[i, c]·out[i, c] (= Σ_j P_ij·dO_i·v_j): dS_ij = P_ij·(dO_i·v_j − D_i);
 * gq_i += scale·Σ_j dS_ij·k_j; gk_j += scale·Σ_i dS_ij·q_i; gv_j += Σ_i P_ij·dO_i (per head).
 */
export function causalAttentionGrad(
  q: F32,
  k: F32,
  v: F32,
  out: F32,
  probs: F32,
  gOut: F32,
  gq: F32 | null,
  gk: F32 | null,
  gv: F32 | null,
  batch: number,
  seq: number,
  heads: number,
): void {
  const d = q.length / (batch * seq);
  const hd = d / heads;
  const scale = 1 / Math.sqrt(hd);
  for (let b = 0; b < batch; b++) {
    const base = b * seq * d;
    for (let h = 0; h < heads; h++) {
      const ho = h * hd;
      for (let i = 0; i < seq; i++) {
        const po = ((b * heads + h) * seq + i) * seq;
        const io = base + i * d + ho;
        let D = 0;
        for (let c = 0; c < hd; c++) D += (gOut[io + c] as number) * (out[io + c] as number);
        for (let j = 0; j <= i; j++) {
          const p = probs[po + j] as number;
          if (p === 0) continue; // another segment (or an underflow): no gradient either way
          const jo = base + j * d + ho;
          let dp = 0;
          for (let c = 0; c < hd; c++) dp += (gOut[io + c] as number) * (v[jo + c] as number);
          const ds = p * (dp - D) * scale;
          if (gq)
            for (let c = 0; c < hd; c++) gq[io + c] = (gq[io + c] as number) + ds * (k[jo + c] as number);
          if (gk)
            for (let c = 0; c < hd; c++) gk[jo + c] = (gk[jo + c] as number) + ds * (q[io + c] as number);
          if (gv)
            for (let c = 0; c < hd; c++) gv[jo + c] = (gv[jo + c] as number) + p * (gOut[io + c] as number);
        }
      }
    }
  }
}

/**
 * Σ_r w_r·(lse_r − x[r, t_r]) over the rows of logits [N, V], with lse_r = m_r + log Σ_c exp(x[r, c] − m_r)
 * and m_r the row maximum. Writes stats[2r] = m_r, stats[2r + 1] = log Σ_c exp(x[r, c] − m_r) for the
 * backward (kept apart: m_r + log(…) rounded to f32 would lose the small term when |m_r| is large);
 * returns the sum.
 */
export function crossEntropy(x: F32, targets: Idx, weights: F32, stats: F32, cols: number): number {
  let total = 0;
  for (let r = 0; r < targets.length; r++) {
    const o = r * cols;
    const t = targets[r] as number;
    if (t >= cols) throw new Error(`crossEntropy: target ${t} of row ${r} is outside [0, ${cols})`);
    let mx = -Infinity;
    for (let c = 0; c < cols; c++) mx = Math.max(mx, x[o + c] as number);
    let s = 0;
    for (let c = 0; c < cols; c++) s += Math.exp((x[o + c] as number) - mx);
    const ls = Math.log(s);
    stats[2 * r] = mx;
    stats[2 * r + 1] = ls;
    const w = weights[r] as number;
    if (w !== 0) total += w * (mx - (x[o + t] as number) + ls);
  }
  return total;
}

/** gx[r, c] += gy·w_r·(softmax(x_r)[c] − [c = t_r]). */
export function crossEntropyGrad(
  x: F32,
  targets: Idx,
  weights: F32,
  stats: F32,
  gy: number,
  gx: F32,
  cols: number,
): void {
  for (let r = 0; r < targets.length; r++) {
    const g = gy * (weights[r] as number);
    if (g === 0) continue;
    const o = r * cols;
    const mx = stats[2 * r] as number;
    const ls = stats[2 * r + 1] as number;
    for (let c = 0; c < cols; c++)
      gx[o + c] = (gx[o + c] as number) + g * Math.exp((x[o + c] as number) - mx - ls);
    const t = o + (targets[r] as number);
    gx[t] = (gx[t] as number) - g;
  }
}
