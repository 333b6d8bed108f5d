/**
 * Exponential moving average of a chart series, as W&B's "smoothing" slider draws it: with weight
 * w, s_t = w·s_{t−1} + (1 − w)·x_t from s_0 = 0, divided by 1 − w^n (n = values seen so far) so the
 * first points are not pulled towards zero (debiased). Gaps (null) stay gaps and do not count.
 * w = 0 gives the values back; w is clamped to [0, 0.999].
 */
export const MAX_SMOOTHING = 0.999;

export function ema(values: readonly (number | null)[], weight: number): (number | null)[] {
  const w = Number.isFinite(weight) ? Math.min(MAX_SMOOTHING, Math.max(0, weight)) : 0;
  const out = new Array<number | null>(values.length);
  let acc = 0;
  let n = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || v === undefined || !Number.isFinite(v)) {
      out[i] = null;
      continue;
    }
    acc = w * acc + (1 - w) * v;
    n += 1;
    out[i] = w === 0 ? v : acc / (1 - w ** n);
  }
  return out;
}
