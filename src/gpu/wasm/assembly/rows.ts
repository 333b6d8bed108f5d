/**
 * Row kernels: gather / scatter of rows, layer norm, cross-entropy and causal attention with their
 * gradients, ports of src/gpu/cpu/ops-rows.ts. Row statistics use f64 like the reference; the
 * attention's dot products and row updates run four lanes at a time when the head width is a
 * multiple of 4.
 */

import { exp4, expSum } from './activation';

function at(base: usize, i: i32): usize {
  return base + ((<usize>i) << 2);
}

function f(base: usize, i: i32): f64 {
  return <f64>load<f32>(at(base, i));
}

/** out[i, :] (+)= table[idx[i], :] for i < count. */
export function gatherRows(
  table: usize,
  idx: usize,
  out: usize,
  cols: i32,
  accumulate: bool,
  count: i32,
): void {
  for (let i = 0; i < count; i++) {
    const src = <i32>load<u32>(at(idx, i)) * cols;
    const dst = i * cols;
    let c = 0;
    for (; c + 3 < cols; c += 4) {
      let v = v128.load(at(table, src + c));
      if (accumulate) v = f32x4.add(v128.load(at(out, dst + c)), v);
      v128.store(at(out, dst + c), v);
    }
    for (; c < cols; c++) {
      const v = load<f32>(at(table, src + c));
      store<f32>(at(out, dst + c), accumulate ? load<f32>(at(out, dst + c)) + v : v);
    }
  }
}

/** out[r, :] (+)= Σ_{i < count: idx[i] = r} src[i, :]; without accumulate, out (outLen floats) is zeroed first. */
export function scatterAddRows(
  src: usize,
  idx: usize,
  out: usize,
  cols: i32,
  accumulate: bool,
  count: i32,
  outLen: i32,
): void {
  if (!accumulate) memory.fill(out, 0, (<usize>outLen) << 2);
  for (let i = 0; i < count; i++) {
    const dst = <i32>load<u32>(at(idx, i)) * cols;
    const so = i * cols;
    let c = 0;
    for (; c + 3 < cols; c += 4) {
      v128.store(at(out, dst + c), f32x4.add(v128.load(at(out, dst + c)), v128.load(at(src, so + c))));
    }
    for (; c < cols; c++)
      store<f32>(at(out, dst + c), load<f32>(at(out, dst + c)) + load<f32>(at(src, so + c)));
  }
}

export function layerNorm(
  x: usize,
  gamma: usize,
  beta: usize,
  y: usize,
  stats: usize,
  cols: i32,
  eps: f64,
  rowsN: i32,
): void {
  for (let r = 0; r < rowsN; r++) {
    const o = r * cols;
    let mean: f64 = 0;
    for (let c = 0; c < cols; c++) mean += f(x, o + c);
    mean /= cols;
    let v: f64 = 0;
    for (let c = 0; c < cols; c++) {
      const d = f(x, o + c) - mean;
      v += d * d;
    }
    const rstd = 1 / Math.sqrt(v / cols + eps);
    store<f32>(at(stats, 2 * r), <f32>mean);
    store<f32>(at(stats, 2 * r + 1), <f32>rstd);
    for (let c = 0; c < cols; c++) {
      store<f32>(at(y, o + c), <f32>((f(x, o + c) - mean) * rstd * f(gamma, c) + f(beta, c)));
    }
  }
}

export function layerNormGrad(
  x: usize,
  gamma: usize,
  stats: usize,
  gy: usize,
  gx: usize,
  gGamma: usize,
  gBeta: usize,
  cols: i32,
  rowsN: i32,
): void {
  for (let r = 0; r < rowsN; r++) {
    const o = r * cols;
    // The reference reads the statistics back from the f32 arena.
    const mean = f(stats, 2 * r);
    const rstd = f(stats, 2 * r + 1);
    let md: f64 = 0;
    let mdx: f64 = 0;
    for (let c = 0; c < cols; c++) {
      const xh = (f(x, o + c) - mean) * rstd;
      const g = f(gy, o + c);
      const d = g * f(gamma, c);
      md += d;
      mdx += d * xh;
      if (gGamma != 0) store<f32>(at(gGamma, c), <f32>(f(gGamma, c) + g * xh));
      if (gBeta != 0) store<f32>(at(gBeta, c), <f32>(f(gBeta, c) + g));
    }
    md /= cols;
    mdx /= cols;
    if (gx == 0) continue;
    for (let c = 0; c < cols; c++) {
      const xh = (f(x, o + c) - mean) * rstd;
      const d = f(gy, o + c) * f(gamma, c);
      store<f32>(at(gx, o + c), <f32>(f(gx, o + c) + rstd * (d - md - xh * mdx)));
    }
  }
}

/** Σ_r w_r·(max_r − x[r, t_r] + log Σ exp(x_r − max_r)); targets are checked by the caller. */
export function crossEntropy(
  x: usize,
  targets: usize,
  weights: usize,
  stats: usize,
  cols: i32,
  rowsN: i32,
): f64 {
  let total: f64 = 0;
  for (let r = 0; r < rowsN; r++) {
    const o = r * cols;
    const t = <i32>load<u32>(at(targets, r));
    let mx: f64 = -Infinity;
    for (let c = 0; c < cols; c++) mx = Math.max(mx, f(x, o + c));
    const s = expSum(at(x, o), 0, 0, <f32>mx, cols);
    const ls = Math.log(s);
    store<f32>(at(stats, 2 * r), <f32>mx);
    store<f32>(at(stats, 2 * r + 1), <f32>ls);
    const w = f(weights, r);
    if (w != 0) total += w * (mx - f(x, o + t) + ls);
  }
  return total;
}

export function crossEntropyGrad(
  x: usize,
  targets: usize,
  weights: usize,
  stats: usize,
  gy: f64,
  gx: usize,
  cols: i32,
  rowsN: i32,
): void {
  for (let r = 0; r < rowsN; r++) {
    const g = gy * f(weights, r);
    if (g == 0) continue;
    const o = r * cols;
    const mx = f(stats, 2 * r);
    const ls = f(stats, 2 * r + 1);
    // gx += g·e^{x − max − log Σ}, four lanes at a time in f32.
    const shift = f32x4.splat(<f32>(mx + ls));
    const gv = f32x4.splat(<f32>g);
    let c = 0;
    for (; c + 3 < cols; c += 4) {
      const e = exp4(f32x4.sub(v128.load(at(x, o + c)), shift));
      v128.store(at(gx, o + c), f32x4.add(v128.load(at(gx, o + c)), f32x4.mul(gv, e)));
    }
    for (; c < cols; c++) {
      const e = f32x4.extract_lane(exp4(f32x4.splat(load<f32>(at(x, o + c)) - <f32>(mx + ls))), 0);
      store<f32>(at(gx, o + c), load<f32>(at(gx, o + c)) + <f32>g * e);
    }
    const t = o + <i32>load<u32>(at(targets, r));
    store<f32>(at(gx, t), <f32>(f(gx, t) - g));
  }
}

/** Σ_c a[c]·b[c] over n floats. */
// @ts-ignore: decorator
@inline
function dot(a: usize, b: usize, n: i32): f64 {
  let c = 0;
  let s: f64 = 0;
  if ((n & 3) == 0) {
    let acc = f32x4.splat(0);
    for (; c < n; c += 4) acc = f32x4.add(acc, f32x4.mul(v128.load(at(a, c)), v128.load(at(b, c))));
    s =
      <f64>f32x4.extract_lane(acc, 0) +
      <f64>f32x4.extract_lane(acc, 1) +
      <f64>f32x4.extract_lane(acc, 2) +
      <f64>f32x4.extract_lane(acc, 3);
    return s;
  }
  for (; c < n; c++) s += f(a, c) * f(b, c);
  return s;
}

/** y[c] += alpha·x[c] over n floats. */
// @ts-ignore: decorator
@inline
function axpy(y: usize, alpha: f64, x: usize, n: i32): void {
  let c = 0;
  if ((n & 3) == 0) {
    const av = f32x4.splat(<f32>alpha);
    for (; c < n; c += 4)
      v128.store(at(y, c), f32x4.add(v128.load(at(y, c)), f32x4.mul(av, v128.load(at(x, c)))));
    return;
  }
  for (; c < n; c++) store<f32>(at(y, c), <f32>(f(y, c) + alpha * f(x, c)));
}

/** Multi-head causal self-attention; see causalAttention in src/gpu/cpu/ops-rows.ts. segments 0 = none. */
export function causalAttention(
  q: usize,
  k: usize,
  v: usize,
  out: usize,
  probs: usize,
  batch: i32,
  seq: i32,
  heads: i32,
  d: i32,
  segments: usize,
): void {
  const hd = d / heads;
  const scale = 1 / Math.sqrt(<f64>hd);
  memory.fill(out, 0, (<usize>batch * <usize>seq * <usize>d) << 2);
  memory.fill(probs, 0, (<usize>batch * <usize>heads * <usize>seq * <usize>seq) << 2);
  for (let b = 0; b < batch; b++) {
    const base = b * seq * d;
    for (let h = 0; h < heads; h++) {
      const ho = h * hd;
      for (let i = 0; i < seq; i++) {
        const po = ((b * heads + h) * seq + i) * seq;
        const qo = base + i * d + ho;
        const si = segments == 0 ? 0 : load<u32>(at(segments, b * seq + i));
        let mx: f64 = -Infinity;
        // The first position of i's segment: packed rows hold several designs one after another,
        // and every position before it has another segment (its score stays 0, its weight 0).
        let lo = -1;
        for (let j = 0; j <= i; j++) {
          if (segments != 0 && load<u32>(at(segments, b * seq + j)) != si) continue;
          if (lo < 0) lo = j;
          const s = dot(at(q, qo), at(k, base + j * d + ho), hd) * scale;
          store<f32>(at(probs, po + j), <f32>s);
          if (s > mx) mx = s;
        }
        // e^{s − max} four scores at a time (f32, activation.ts), from `lo`; another segment's
        // scores were never written and stay 0. The total adds the terms in order, in f64.
        let total: f64 = 0;
        const mxv = f32x4.splat(<f32>mx);
        let j = lo;
        for (; j + 3 <= i; j += 4) {
          let e = exp4(f32x4.sub(v128.load(at(probs, po + j)), mxv));
          if (segments != 0) {
            const same = i32x4.eq(v128.load(at(segments, b * seq + j)), i32x4.splat(si));
            e = v128.and(e, same);
          }
          v128.store(at(probs, po + j), e);
          total +=
            <f64>f32x4.extract_lane(e, 0) +
            <f64>f32x4.extract_lane(e, 1) +
            <f64>f32x4.extract_lane(e, 2) +
            <f64>f32x4.extract_lane(e, 3);
        }
        for (; j <= i; j++) {
          if (segments != 0 && load<u32>(at(segments, b * seq + j)) != si) continue;
          const e = f32x4.extract_lane(exp4(f32x4.splat(load<f32>(at(probs, po + j)) - <f32>mx)), 0);
          store<f32>(at(probs, po + j), e);
          total += <f64>e;
        }
        for (let j = lo; j <= i; j++) {
          if (segments != 0 && load<u32>(at(segments, b * seq + j)) != si) continue;
          const p = <f32>(f(probs, po + j) / total);
          store<f32>(at(probs, po + j), p);
          axpy(at(out, qo), <f64>p, at(v, base + j * d + ho), hd);
        }
      }
    }
  }
}

/** Backward of causalAttention (gq, gk, gv 0 = not wanted); see src/gpu/cpu/ops-rows.ts. */
export function causalAttentionGrad(
  q: usize,
  k: usize,
  v: usize,
  out: usize,
  probs: usize,
  gOut: usize,
  gq: usize,
  gk: usize,
  gv: usize,
  batch: i32,
  seq: i32,
  heads: i32,
  d: i32,
): void {
  const hd = d / heads;
  const scale = 1 / Math.sqrt(<f64>hd);
  for (let b = 0; b < batch; b++) {
    const base = b * seq * d;
    for (let h = 0; h < heads; h++) {
      const ho = h * hd;
      for (let i = 0; i < seq; i++) {
        const po = ((b * heads + h) * seq + i) * seq;
        const io = base + i * d + ho;
        const D = dot(at(gOut, io), at(out, io), hd);
        for (let j = 0; j <= i; j++) {
          const p = f(probs, po + j);
          if (p == 0) continue;
          const jo = base + j * d + ho;
          const dp = dot(at(gOut, io), at(v, jo), hd);
          const ds = p * (dp - D) * scale;
          if (gq != 0) axpy(at(gq, io), ds, at(k, jo), hd);
          if (gk != 0) axpy(at(gk, jo), ds, at(q, io), hd);
          if (gv != 0) axpy(at(gv, jo), p, at(gOut, io), hd);
        }
      }
    }
  }
}

/**
 * One query row against a sequence's cached keys and values at positions 0..t ([positions, d]
 * each): out[d] = Σ_j softmax_j(q·k_j/√hd)·v_j per head, written (not accumulated); `probs` is
 * scratch for t + 1 floats. The arithmetic of `causalAttention` for that row (its scores, f32
 * exp lanes, f64 total in order): what a decoder with a KV cache runs per new token.
 */
export function attendRow(
  q: usize,
  keys: usize,
  values: usize,
  out: usize,
  probs: usize,
  t: i32,
  d: i32,
  heads: i32,
): void {
  const hd = d / heads;
  const scale = 1 / Math.sqrt(<f64>hd);
  memory.fill(out, 0, (<usize>d) << 2);
  for (let h = 0; h < heads; h++) {
    const ho = h * hd;
    let mx: f64 = -Infinity;
    for (let j = 0; j <= t; j++) {
      const s = dot(at(q, ho), at(keys, j * d + ho), hd) * scale;
      store<f32>(at(probs, j), <f32>s);
      if (s > mx) mx = s;
    }
    let total: f64 = 0;
    const mxv = f32x4.splat(<f32>mx);
    let j = 0;
    for (; j + 3 <= t; j += 4) {
      const e = exp4(f32x4.sub(v128.load(at(probs, j)), mxv));
      v128.store(at(probs, j), e);
      total +=
        <f64>f32x4.extract_lane(e, 0) +
        <f64>f32x4.extract_lane(e, 1) +
        <f64>f32x4.extract_lane(e, 2) +
        <f64>f32x4.extract_lane(e, 3);
    }
    for (; j <= t; j++) {
      const e = f32x4.extract_lane(exp4(f32x4.splat(load<f32>(at(probs, j)) - <f32>mx)), 0);
      store<f32>(at(probs, j), e);
      total += <f64>e;
    }
    for (let j = 0; j <= t; j++) {
      const p = <f32>(f(probs, j) / total);
      axpy(at(out, ho), <f64>p, at(values, j * d + ho), hd);
    }
  }
}
