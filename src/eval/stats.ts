/**
 * The statistics of a comparison. Accuracy intervals are Wilson's (src/core/stats.ts). Two
 * methods on the same tasks are compared with McNemar's test: only discordant tasks count, b = A
 * right and B wrong, c = the reverse; under "no difference" b ~ Binomial(b + c, ½). The exact
 * two-sided p-value is min(1, 2·P(X ≤ min(b, c))); the mid-p value subtracts P(X = min(b, c))
 * once, which keeps the test's size closer to nominal (Fagerland, Lydersen & Laake 2013). The
 * Pareto front is the set of methods no other method beats on both accuracy and cost.
 */
export { wilson } from '../core/stats.ts';

/** log C(n, k), by summing logs (n is a task count, so at most a few hundred thousand terms). */
function logChoose(n: number, k: number): number {
  let s = 0;
  const kk = Math.min(k, n - k);
  for (let i = 1; i <= kk; i++) s += Math.log(n - kk + i) - Math.log(i);
  return s;
}

/** P(X = k) for X ~ Binomial(n, ½). */
function binomHalf(n: number, k: number): number {
  return Math.exp(logChoose(n, k) - n * Math.LN2);
}

/** McNemar's exact test and mid-p from the discordant counts b and c. */
export function mcnemar(b: number, c: number): { pExact: number; pMid: number } {
  const n = b + c;
  if (n === 0) return { pExact: 1, pMid: 1 };
  const m = Math.min(b, c);
  let tail = 0;
  for (let k = 0; k <= m; k++) tail += binomHalf(n, k);
  const pointMass = binomHalf(n, m);
  const pExact = Math.min(1, 2 * tail);
  const pMid = Math.min(1, Math.max(0, 2 * tail - pointMass));
  return { pExact, pMid };
}

export interface ParetoPoint {
  id: string;
  accuracy: number;
  cost: number;
}

/**
 * Ids on the accuracy–cost front, cheapest first: a point is dominated when another is at least
 * as accurate and at most as costly, and strictly better in one. Equal points both stay.
 */
export function paretoFront(points: readonly ParetoPoint[]): string[] {
  const front = points.filter(
    (p) =>
      !points.some(
        (q) =>
          q !== p &&
          q.accuracy >= p.accuracy &&
          q.cost <= p.cost &&
          (q.accuracy > p.accuracy || q.cost < p.cost),
      ),
  );
  return [...front].sort((a, b) => a.cost - b.cost || b.accuracy - a.accuracy).map((p) => p.id);
}
