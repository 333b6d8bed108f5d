/**
 * Chart geometry for the Evaluate page, pure: linear scales with "nice" ticks, and the points of
 * the accuracy–cost scatter and the axis curves. The components only draw what these return.
 */
import type { EvalDocument, MethodSummary } from '../../store/slices/eval.ts';

export interface Scale {
  (v: number): number;
  ticks: number[];
}

/** Maps [lo, hi] to [a, b] (pixels), with about `count` round ticks. */
export function linearScale(lo: number, hi: number, a: number, b: number, count = 5): Scale {
  const span = hi - lo || 1;
  const step0 = span / count;
  const mag = 10 ** Math.floor(Math.log10(step0));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= step0) ?? 10 * mag;
  const ticks: number[] = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step)
    ticks.push(Number(t.toPrecision(12)));
  const f = ((v: number) => a + ((v - lo) / span) * (b - a)) as Scale;
  f.ticks = ticks;
  return f;
}

export interface ScatterPoint {
  method: string;
  label: string;
  accuracy: number;
  ci: [number, number];
  cost: number;
  onFront: boolean;
}

/** One point per method that ran: accuracy against mean cost per task (USD, or tokens). */
export function scatterPoints(doc: EvalDocument): ScatterPoint[] {
  const usd = doc.summary.costMetric === 'usd';
  const front = new Set(doc.summary.pareto);
  return doc.summary.methods
    .filter((m) => m.available && m.overall.n > 0)
    .map((m) => ({
      method: m.method,
      label: m.label,
      accuracy: m.overall.accuracy,
      ci: m.overall.ci95,
      cost: usd ? m.overall.meanCostUsd : m.overall.meanTokens,
      onFront: front.has(m.method),
    }));
}

/** Per axis: the values evaluated, and per method its accuracy (and interval) at each. */
export function axisCurves(doc: EvalDocument): {
  axis: string;
  values: number[];
  lines: { method: MethodSummary; points: { value: number; accuracy: number; ci: [number, number] }[] }[];
}[] {
  const axes = new Map<string, Set<number>>();
  for (const m of doc.summary.methods)
    for (const p of m.perValue) {
      const s = axes.get(p.axis) ?? new Set<number>();
      s.add(p.value);
      axes.set(p.axis, s);
    }
  return [...axes.entries()].map(([axis, vs]) => ({
    axis,
    values: [...vs].sort((a, b) => a - b),
    lines: doc.summary.methods
      .filter((m) => m.available)
      .map((m) => ({
        method: m,
        points: m.perValue
          .filter((p) => p.axis === axis)
          .sort((a, b) => a.value - b.value)
          .map((p) => ({ value: p.value, accuracy: p.accuracy, ci: p.ci95 })),
      })),
  }));
}

/** A colour per method, stable by position. */
export const METHOD_COLOURS = [
  '#2563eb',
  '#dc2626',
  '#16a34a',
  '#9333ea',
  '#ea580c',
  '#0891b2',
  '#be185d',
  '#4d7c0f',
];

/**
 * Where a point's label goes so it stays inside the plot: right of the point, or left of it
 * (anchored at its end) when the point is in the right third; never above the top margin.
 */
export function pointLabel(
  px: number,
  py: number,
  right: number,
  top: number,
): { x: number; y: number; textAnchor: 'start' | 'end' } {
  const leftSide = px > right - Math.max(140, right / 3);
  return {
    x: leftSide ? px - 9 : px + 9,
    y: Math.max(top + 10, py - 6),
    textAnchor: leftSide ? 'end' : 'start',
  };
}
