/**
 * Which training charts the page draws and from which ring-buffer series (src/store/slices/
 * train-ring.ts). Pure: the chart component turns these into uPlot options.
 */
import type { Series } from '../../store/slices/train-ring.ts';

export interface LineSpec<S extends string = Series> {
  series: S;
  label: string;
  color: string;
  /** Points only (values that arrive rarely, e.g. held-out accuracy). */
  points?: boolean;
}

export interface ChartSpec<S extends string = Series> {
  id: string;
  title: string;
  lines: LineSpec<S>[];
  /** Draws mean ± std of the first line as a band (series name of the std). */
  band?: S;
  digits: number;
  /** Fixed y range (shares and fractions); otherwise uPlot fits the data. */
  yRange?: [number, number];
}

export const CHARTS: readonly ChartSpec[] = [
  {
    id: 'reward',
    title: 'Reward R (mean ± std)',
    lines: [{ series: 'reward', label: 'mean R', color: '#2563eb' }],
    band: 'rewardStd',
    digits: 3,
  },
  {
    id: 'accuracy',
    title: 'Accuracy',
    lines: [
      { series: 'accuracy', label: 'train (sampled)', color: '#16a34a' },
      { series: 'heldout', label: 'held-out (greedy)', color: '#dc2626', points: true },
    ],
    digits: 3,
    yRange: [0, 1],
  },
  {
    id: 'tokens',
    title: 'Tokens per task',
    lines: [{ series: 'tokens', label: 'tokens', color: '#9333ea' }],
    digits: 0,
  },
  {
    id: 'structure',
    title: 'Agents and edges per design',
    lines: [
      { series: 'agents', label: 'agents', color: '#0891b2' },
      { series: 'edges', label: 'edges', color: '#ea580c' },
      { series: 'depth', label: 'depth', color: '#64748b' },
    ],
    digits: 2,
  },
  {
    id: 'entropy',
    title: 'Entropy (nats)',
    lines: [
      { series: 'nodeEntropy', label: 'node', color: '#7c3aed' },
      { series: 'edgeEntropy', label: 'edge', color: '#db2777' },
    ],
    digits: 3,
  },
  {
    id: 'kl',
    title: 'KL to the start (k3)',
    lines: [{ series: 'kl', label: 'KL', color: '#b45309' }],
    digits: 4,
  },
  {
    id: 'clip',
    title: 'Clip fraction',
    lines: [{ series: 'clipFraction', label: 'clipped', color: '#0f766e' }],
    digits: 3,
    yRange: [0, 1],
  },
  {
    id: 'grad',
    title: 'Gradient norm',
    lines: [{ series: 'gradNorm', label: '|g|', color: '#475569' }],
    digits: 3,
  },
  {
    id: 'eps',
    title: 'Episodes per second (worker)',
    lines: [{ series: 'eps', label: 'episodes/s', color: '#1d4ed8' }],
    digits: 1,
  },
];

const PALETTE = [
  '#2563eb',
  '#16a34a',
  '#dc2626',
  '#9333ea',
  '#ea580c',
  '#0891b2',
  '#ca8a04',
  '#db2777',
  '#475569',
  '#0f766e',
];

export const roleColor = (i: number): string => PALETTE[i % PALETTE.length] as string;

/** Cumulative sums per row, for a stacked area (first series at the bottom). */
export function stack(columns: readonly (readonly number[])[]): number[][] {
  const out: number[][] = [];
  let acc: number[] = [];
  for (const col of columns) {
    acc = col.map((v, i) => (acc[i] ?? 0) + v);
    out.push(acc);
  }
  return out;
}

/** Tick steps of the iteration axis: whole iterations only (1, 2, 5, 10, 20, 50, …). */
export const ITERATION_TICKS: readonly number[] = [1, 2, 5]
  .flatMap((m) => [1, 10, 100, 1_000, 10_000, 100_000].map((p) => m * p))
  .sort((a, b) => a - b);
