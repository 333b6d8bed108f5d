/**
 * Interval estimates shared by the trainer's held-out scoring (src/train/evaluate.ts) and the
 * evaluation harness (src/eval): one implementation, so both report the same interval.
 */

/**
 * 95% Wilson score interval of k successes in n trials ([0, 1] when n = 0). With p̂ = k/n:
 *   centre = (p̂ + z²/2n)/(1 + z²/n),  half-width = z·sqrt(p̂(1 − p̂)/n + z²/4n²)/(1 + z²/n).
 */
export function wilson(k: number, n: number, z = 1.96): [number, number] {
  if (n === 0) return [0, 1];
  const p = k / n;
  const d = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / d;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d;
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}
