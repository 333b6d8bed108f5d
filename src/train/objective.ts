/**
 * The PPO-clipped objective over the joint JPSS log-probability of a step (node + edges), in
 * plain TypeScript over per-step log-probabilities (docs/train.md, "Objective"). Per step i with
 * ratio r_i = exp(log π_θ − log π_old) and advantage A_i:
 *   L_i = −min(r_i·A_i, clip(r_i, 1 − ε, 1 + ε)·A_i) + β_KL·k3_i
 *   k3_i = exp(log π_ref − log π_θ) − (log π_ref − log π_θ) − 1   (≥ 0, 0 when θ = ref)
 *   L = (1/n)·Σ_i L_i  over the n real steps (weight 1; padding rows weight 0)
 * and its exact gradient with respect to each log π_θ:
 *   ∂L/∂log π_θ,i = (1/n)·(−[unclipped]·r_i·A_i + β_KL·(1 − exp(log π_ref − log π_θ)))
 * where "clipped" means the min picks the clipped term with the clip active: A > 0 and r > 1 + ε,
 * or A < 0 and r < 1 − ε (at exactly 1 ± ε the unclipped branch is taken: both are equal there).
 * The trainer feeds this gradient to the policy graph as the weight of each row's log π_θ, so the
 * compute core backpropagates exactly ∂L/∂θ = Σ_i ∂L/∂log π_θ,i · ∂log π_θ,i/∂θ.
 */

export interface ObjectiveInput {
  logp: ArrayLike<number>;
  oldLogp: ArrayLike<number>;
  /** Frozen reference policy's log-probabilities; null = no KL term. */
  refLogp: ArrayLike<number> | null;
  advantages: ArrayLike<number>;
  /** 1 for a real step, 0 for padding. */
  weights: ArrayLike<number>;
  clipEps: number;
  klCoef: number;
}

export interface ObjectiveStats {
  /** Mean k3 estimate of KL(π_θ ‖ π_ref) per step (nats); 0 without a reference. */
  kl: number;
  /** Share of steps whose gradient the clip zeroed. */
  clipFraction: number;
  ratioMean: number;
  ratioMin: number;
  ratioMax: number;
}

export interface ObjectiveResult extends ObjectiveStats {
  loss: number;
  /** ∂loss/∂log π_θ per row. */
  grad: Float64Array;
}

export function ppoObjective(o: ObjectiveInput): ObjectiveResult {
  const rows = o.logp.length;
  let n = 0;
  for (let i = 0; i < rows; i++) n += o.weights[i] ?? 0;
  const grad = new Float64Array(rows);
  if (n === 0) return { loss: 0, grad, kl: 0, clipFraction: 0, ratioMean: 1, ratioMin: 1, ratioMax: 1 };
  let loss = 0;
  let kl = 0;
  let clipped = 0;
  let rSum = 0;
  let rMin = Infinity;
  let rMax = -Infinity;
  const lo = 1 - o.clipEps;
  const hi = 1 + o.clipEps;
  for (let i = 0; i < rows; i++) {
    const w = o.weights[i] ?? 0;
    if (w === 0) continue;
    const lp = o.logp[i] as number;
    const r = Math.exp(lp - (o.oldLogp[i] as number));
    const a = o.advantages[i] as number;
    const isClipped = (a > 0 && r > hi) || (a < 0 && r < lo);
    const surrogate = isClipped ? Math.min(Math.max(r, lo), hi) * a : r * a;
    let li = -surrogate;
    let gi = isClipped ? 0 : -r * a;
    if (o.refLogp && o.klCoef > 0) {
      const d = (o.refLogp[i] as number) - lp;
      const k3 = Math.exp(d) - d - 1;
      kl += w * k3;
      li += o.klCoef * k3;
      gi += o.klCoef * (1 - Math.exp(d));
    } else if (o.refLogp) {
      const d = (o.refLogp[i] as number) - lp;
      kl += w * (Math.exp(d) - d - 1);
    }
    loss += (w * li) / n;
    grad[i] = (w * gi) / n;
    if (isClipped) clipped += w;
    rSum += w * r;
    rMin = Math.min(rMin, r);
    rMax = Math.max(rMax, r);
  }
  return {
    loss,
    grad,
    kl: kl / n,
    clipFraction: clipped / n,
    ratioMean: rSum / n,
    ratioMin: rMin,
    ratioMax: rMax,
  };
}
