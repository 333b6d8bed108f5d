/** Adam / AdamW with bias correction and global-norm gradient clipping, shared by both backends. */

export interface AdamConfig {
  /** Learning rate α. */
  lr: number;
  /** Decay of the first-moment average m (default 0.9). */
  beta1?: number;
  /** Decay of the second-moment average v (default 0.999). */
  beta2?: number;
  /** Added to sqrt(v̂) in the denominator (default 1e-8). */
  eps?: number;
  /** Decoupled weight decay λ of AdamW: p −= α·λ·p each step (default 0, plain Adam). */
  weightDecay?: number;
  /** Clip the global L2 norm of all parameter gradients to this value; 0 or absent = no clipping. */
  clipNorm?: number;
}

export type ResolvedAdam = Required<AdamConfig>;

export function resolveAdam(c: AdamConfig): ResolvedAdam {
  return { beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0, clipNorm: 0, ...c };
}

/** Factor the gradients are multiplied by: min(1, clipNorm / (‖g‖₂ + 1e-6)), or 1 without clipping. */
export function clipScale(norm: number, clipNorm: number): number {
  return clipNorm > 0 ? Math.min(1, clipNorm / (norm + 1e-6)) : 1;
}

/** The host-side training state: flat parameter arena, Adam moments and the step count t. */
export interface TrainState {
  params: Float32Array;
  m: Float32Array;
  v: Float32Array;
  /** Number of optimizer updates applied so far. */
  t: number;
}

/**
 * One Adam(W) update, in place, at step t (1-based):
 * g' = g·s (s = clip scale); m = β₁m + (1−β₁)g'; v = β₂v + (1−β₂)g'²;
 * p −= α·( (m/(1−β₁ᵗ)) / (sqrt(v/(1−β₂ᵗ)) + ε) + λ·p ). Returns the unclipped global norm ‖g‖₂.
 */
export function adamStep(
  p: Float32Array,
  g: Float32Array,
  m: Float32Array,
  v: Float32Array,
  t: number,
  c: ResolvedAdam,
): number {
  let sq = 0;
  for (let i = 0; i < g.length; i++) sq += (g[i] as number) * (g[i] as number);
  const norm = Math.sqrt(sq);
  const s = clipScale(norm, c.clipNorm);
  const bc1 = 1 - Math.pow(c.beta1, t);
  const bc2 = 1 - Math.pow(c.beta2, t);
  for (let i = 0; i < p.length; i++) {
    const gi = (g[i] as number) * s;
    const mi = c.beta1 * (m[i] as number) + (1 - c.beta1) * gi;
    const vi = c.beta2 * (v[i] as number) + (1 - c.beta2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    const pi = p[i] as number;
    p[i] = pi - c.lr * (mi / bc1 / (Math.sqrt(vi / bc2) + c.eps) + c.weightDecay * pi);
  }
  return norm;
}
