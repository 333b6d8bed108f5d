/**
 * The statistics of the training studies (ablations, baselines, before/after), in one pure place:
 *
 * - `tInterval`: a 95% Student-t interval of a mean over independent runs (one value per training
 *   seed): mean ± t_{0.975, n−1}·s/√n with s the sample standard deviation (n − 1 in the
 *   denominator). With 5 seeds t = 2.776, so the interval is wide on purpose: seeds are few.
 * - `pairedBootstrap`: a 95% percentile bootstrap interval of the mean difference b − a of paired
 *   0/1 (or real) outcomes on the same tasks: resample task indices with replacement `reps`
 *   times, take the 2.5th and 97.5th percentiles of the resampled mean differences. Seeded, so
 *   the interval is reproducible.
 */
import { createRng } from '../core/rng.ts';

/** t_{0.975, df} for df = 1..30; beyond 30 the normal 1.96 is within 2%. */
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131,
  2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
] as const;

/** The two-sided 95% Student-t quantile for `df` degrees of freedom (df ≥ 1). */
export function t975(df: number): number {
  if (df < 1) return Number.NaN;
  return df <= 30 ? (T975[df - 1] as number) : 1.96;
}

export const meanOf = (xs: readonly number[]): number =>
  xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;

/** Sample standard deviation (n − 1); 0 for fewer than two values. */
export function sampleStd(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const m = meanOf(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
}

export interface MeanInterval {
  n: number;
  mean: number;
  /** 95% interval; [mean, mean] for a single value (no spread to estimate). */
  interval: [number, number];
}

/** Mean with a 95% t-interval over independent runs. */
export function tInterval(xs: readonly number[]): MeanInterval {
  const m = meanOf(xs);
  if (xs.length < 2) return { n: xs.length, mean: m, interval: [m, m] };
  const half = (t975(xs.length - 1) * sampleStd(xs)) / Math.sqrt(xs.length);
  return { n: xs.length, mean: m, interval: [m - half, m + half] };
}

export interface PairedDifference {
  n: number;
  /** mean(b) − mean(a). */
  difference: number;
  /** 95% percentile bootstrap interval of the difference. */
  interval: [number, number];
  /** Tasks where only a was right / only b was right (0/1 outcomes; counted as x ≠ y otherwise). */
  onlyA: number;
  onlyB: number;
  reps: number;
}

/** Paired bootstrap of mean(b) − mean(a) over the same tasks; a and b must have the same length. */
export function pairedBootstrap(
  a: readonly number[],
  b: readonly number[],
  seed = 1,
  reps = 4000,
): PairedDifference {
  if (a.length !== b.length) throw new Error(`paired samples differ in length: ${a.length} vs ${b.length}`);
  const n = a.length;
  const d = a.map((x, i) => (b[i] as number) - x);
  const diff = meanOf(d);
  let onlyA = 0;
  let onlyB = 0;
  for (const x of d) {
    if (x < 0) onlyA++;
    else if (x > 0) onlyB++;
  }
  if (n === 0) return { n, difference: 0, interval: [0, 0], onlyA, onlyB, reps: 0 };
  const rng = createRng(seed);
  const means = new Float64Array(reps);
  for (let r = 0; r < reps; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += d[rng.int(n)] as number;
    means[r] = s / n;
  }
  means.sort();
  const at = (q: number): number => means[Math.min(reps - 1, Math.max(0, Math.floor(q * reps)))] as number;
  return { n, difference: diff, interval: [at(0.025), at(0.975)], onlyA, onlyB, reps };
}
