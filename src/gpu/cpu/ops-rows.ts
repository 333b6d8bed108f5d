/**
 * The CPU backend's row kernels (part of cpu/ops.ts's kernels), each beside its backward: gather and
 * scatter of rows, layer norm, reductions, causal attention, cross-entropy. Backward functions
 * accumulate (g += ...).
 */
import type { ReduceOp } from '../graph.ts';

type F32 = Float32Array;
type Idx = Uint32Array;

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

/**
 * The PPO-clipped surrogate (graph.ts, `ppoClip`) over the first `n` rows: returns Σ_i w_i·L_i and
 * writes coef[i] = ∂/∂logp_i, in f64 rounded once to f32 (the order of src/train/objective.ts).
 */
export function ppoClip(
  logp: F32,
  old: F32,
  ref: F32 | null,
  adv: F32,
  w: F32,
  clipEps: number,
  klCoef: number,
  coef: F32,
  n = logp.length,
): number {
  const lo = 1 - clipEps;
  const hi = 1 + clipEps;
  let total = 0;
  coef.fill(0);
  for (let i = 0; i < n; i++) {
    const wi = w[i] as number;
    if (wi === 0) continue;
    const lp = logp[i] as number;
    const r = Math.exp(lp - (old[i] as number));
    const a = adv[i] as number;
    const clipped = (a > 0 && r > hi) || (a < 0 && r < lo);
    let li = -(clipped ? Math.min(Math.max(r, lo), hi) : r) * a;
    let gi = clipped ? 0 : -r * a;
    if (ref && klCoef !== 0) {
      const d = (ref[i] as number) - lp;
      li += klCoef * (Math.exp(d) - d - 1);
      gi += klCoef * (1 - Math.exp(d));
    }
    total += wi * li;
    coef[i] = wi * gi;
  }
  return total;
}

/** gx[i] += gy·coef[i] over the first `n` rows: the backward of ppoClip. */
export function ppoClipGrad(coef: F32, gy: number, gx: F32, n = coef.length): void {
  for (let i = 0; i < n; i++) gx[i] = (gx[i] as number) + gy * (coef[i] as number);
}
