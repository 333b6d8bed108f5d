/**
 * The Train page's chart data: one row of numbers per finished iteration in a bounded ring buffer
 * (the oldest rows drop out past `capacity`), kept outside React state and mutated in place so a
 * push costs O(1) however long training runs; the slice bumps a version number on every push and
 * the charts read `columns()` at most once per animation frame.
 */
import type { IterationMetrics } from '../../train/index.ts';

/** The series every chart reads, per iteration. NaN = no value (drawn as a gap). */
export const SERIES = [
  'iteration',
  'reward',
  'rewardStd',
  'accuracy',
  /** Held-out greedy accuracy, only at iterations that were evaluated. */
  'heldout',
  'tokens',
  'agents',
  'edges',
  'depth',
  'nodeEntropy',
  'edgeEntropy',
  'kl',
  'clipFraction',
  'gradNorm',
  'loss',
  /** Constructions per second of the iteration, measured in the worker. */
  'eps',
] as const;
export type Series = (typeof SERIES)[number];

export interface MetricRing {
  capacity: number;
  /** Index of the oldest row in `rows`. */
  start: number;
  length: number;
  rows: Float64Array[];
  /** Role share per role name, aligned with `rows`. */
  roles: Record<string, number>[];
  /** Role names in the order first seen. */
  roleNames: string[];
}

export function createRing(capacity = 2000): MetricRing {
  if (!Number.isInteger(capacity) || capacity < 1)
    throw new Error('ring capacity must be a positive integer');
  return { capacity, start: 0, length: 0, rows: [], roles: [], roleNames: [] };
}

export function rowOf(m: IterationMetrics, eps: number): Float64Array {
  const u = m.update;
  const values: Record<Series, number> = {
    iteration: m.iteration,
    reward: m.meanReward,
    rewardStd: m.rewardStd,
    accuracy: m.accuracy,
    heldout: NaN,
    tokens: m.tokens,
    agents: m.agents,
    edges: m.edges,
    depth: m.depth,
    nodeEntropy: u.nodeEntropy,
    edgeEntropy: u.edgeEntropy,
    kl: u.kl,
    clipFraction: u.clipFraction,
    gradNorm: u.gradNorm,
    loss: u.loss,
    eps,
  };
  return Float64Array.from(SERIES.map((k) => values[k]));
}

/** Appends a row (dropping the oldest when full). */
export function pushRow(ring: MetricRing, row: Float64Array, roles: Record<string, number>): void {
  for (const name of Object.keys(roles)) if (!ring.roleNames.includes(name)) ring.roleNames.push(name);
  if (ring.length < ring.capacity) {
    ring.rows.push(row);
    ring.roles.push(roles);
    ring.length += 1;
    return;
  }
  ring.rows[ring.start] = row;
  ring.roles[ring.start] = roles;
  ring.start = (ring.start + 1) % ring.capacity;
}

const at = (ring: MetricRing, i: number): number => (ring.start + i) % ring.capacity;

/** Column arrays, oldest first; NaN becomes null (a gap in the chart). */
export function columns(ring: MetricRing): Record<Series, (number | null)[]> {
  const out = Object.fromEntries(SERIES.map((k) => [k, new Array<number | null>(ring.length)])) as Record<
    Series,
    (number | null)[]
  >;
  for (let i = 0; i < ring.length; i++) {
    const row = ring.rows[at(ring, i)] as Float64Array;
    SERIES.forEach((k, j) => {
      const v = row[j] as number;
      out[k][i] = Number.isFinite(v) ? v : null;
    });
  }
  return out;
}

/** Role shares per role, oldest first (0 where a role was not chosen). */
export function roleColumns(ring: MetricRing): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const name of ring.roleNames)
    out[name] = Array.from({ length: ring.length }, (_, i) => ring.roles[at(ring, i)]?.[name] ?? 0);
  return out;
}

/** Sets one series at a given iteration, when that iteration is still in the ring. */
export function setAt(ring: MetricRing, iteration: number, series: Series, value: number): boolean {
  const j = SERIES.indexOf(series);
  for (let i = ring.length - 1; i >= 0; i--) {
    const row = ring.rows[at(ring, i)] as Float64Array;
    if (row[0] === iteration) {
      row[j] = value;
      return true;
    }
  }
  return false;
}

/** The newest row's value of a series (NaN when empty). */
export function latest(ring: MetricRing, series: Series): number {
  if (ring.length === 0) return NaN;
  return (ring.rows[at(ring, ring.length - 1)] as Float64Array)[SERIES.indexOf(series)] as number;
}
