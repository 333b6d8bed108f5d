/**
 * MAS-Orchestra's training findings, measured on the orchestrator LM's GRPO runs (docs/train.md,
 * "What training changes"): several seeds of GRPO from one SFT model, each evaluated on the same
 * held-out queries as the SFT model. Pure: held-out rows and curves in, numbers and text out.
 *
 * - Delegation in low DoM: the share of low-DoM queries the model delegates to one agent (rather
 *   than answering directly), held out before and after, and on the training curve early vs late.
 * - Structure in high DoM: agents, depth and parallel branches per axis and value band, before and
 *   after, and the slope of agents over the axis value (does a design grow with its task?).
 * - Accuracy and cost: held-out accuracy and tokens per task before and after.
 *
 * Each after-training number is a mean over seeds with its 95% t-interval (ablation-stats.ts); the
 * per-seed before/after differences also carry their paired bootstrap interval over the queries.
 */
import {
  meanOf,
  pairedBootstrap,
  tInterval,
  type MeanInterval,
  type PairedDifference,
} from './ablation-stats.ts';
import type { OrchestratorIterationMetrics } from './orchestrator-checkpoint.ts';
import type { HeldOutDesign } from './orchestrator-eval.ts';

export interface SeedRun {
  seed: number;
  curve: readonly OrchestratorIterationMetrics[];
  /** Held-out rows after training, the queries in the order of `before`. */
  after: readonly HeldOutDesign[];
}

export const VALUE_BANDS: readonly (readonly [label: string, lo: number, hi: number])[] = [
  ['2–4', 2, 4],
  ['5–8', 5, 8],
  ['9–12', 9, 12],
];

export interface Shape {
  n: number;
  agents: number;
  depth: number;
  width: number;
  /** The three most frequent roles with their share of the cell's agents. */
  roles: [string, number][];
}

export interface StructureCell {
  axis: string;
  band: string;
  before: Shape;
  /** Per seed, then the mean over seeds with its t-interval. */
  after: Shape[];
  agents: MeanInterval;
  depth: MeanInterval;
  width: MeanInterval;
}

export interface AxisTrend {
  axis: string;
  /** Least-squares slope of agents per design over the task's axis value (high DoM). */
  before: number;
  after: MeanInterval;
}

export interface SeedDifference {
  seed: number;
  accuracy: PairedDifference;
  tokens: PairedDifference;
}

export interface OrchestratorFindings {
  seeds: number[];
  queries: number;
  iterations: number[];
  delegation: {
    before: number | null;
    after: MeanInterval;
    /** Mean of the training curve's low-DoM delegated share over the first and last `window` iterations. */
    early: MeanInterval;
    late: MeanInterval;
    window: number;
  };
  accuracy: { before: number; after: MeanInterval; difference: MeanInterval };
  tokens: { before: number; after: MeanInterval; difference: MeanInterval };
  perSeed: SeedDifference[];
  structure: StructureCell[];
  trends: AxisTrend[];
}

function shape(rows: readonly HeldOutDesign[]): Shape {
  const roles = new Map<string, number>();
  for (const r of rows) for (const role of r.roles) roles.set(role, (roles.get(role) ?? 0) + 1);
  const total = [...roles.values()].reduce((a, b) => a + b, 0);
  return {
    n: rows.length,
    agents: meanOf(rows.map((r) => r.agents)),
    depth: meanOf(rows.map((r) => r.depth)),
    width: meanOf(rows.map((r) => r.width)),
    roles: [...roles]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, 3)
      .map(([role, k]) => [role, total === 0 ? 0 : k / total]),
  };
}

/** Least-squares slope of y over x; 0 when x does not vary. */
export function slope(xs: readonly number[], ys: readonly number[]): number {
  const mx = meanOf(xs);
  const my = meanOf(ys);
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < xs.length; i++) {
    const dx = (xs[i] as number) - mx;
    sxy += dx * ((ys[i] as number) - my);
    sxx += dx * dx;
  }
  return sxx === 0 ? 0 : sxy / sxx;
}

const delegated = (rows: readonly HeldOutDesign[]): number | null => {
  const low = rows.filter((r) => r.dom === 'low');
  return low.length === 0 ? null : meanOf(low.map((r) => (r.agents > 0 ? 1 : 0)));
};

const acc = (rows: readonly HeldOutDesign[]): number[] => rows.map((r) => (r.correct ? 1 : 0));

export function orchestratorFindings(
  before: readonly HeldOutDesign[],
  runs: readonly SeedRun[],
  window = 5,
): OrchestratorFindings {
  if (runs.length === 0) throw new Error('findings need at least one seed');
  for (const run of runs)
    if (
      run.after.length !== before.length ||
      run.after.some((r, i) => r.taskId !== before[i]?.taskId || r.dom !== before[i]?.dom)
    )
      throw new Error(`seed ${run.seed} was evaluated on other queries than the SFT model`);
  const curveMean = (c: readonly OrchestratorIterationMetrics[], from: number, to: number): number =>
    meanOf(
      c
        .slice(from, to)
        .map((m) => m.lowDomDelegated)
        .filter((x): x is number => x !== null),
    );
  const high = (rows: readonly HeldOutDesign[]): HeldOutDesign[] => rows.filter((r) => r.dom === 'high');
  const structure: StructureCell[] = [];
  const axes = [...new Set(before.map((r) => r.axis))];
  for (const axis of axes)
    for (const [band, lo, hi] of VALUE_BANDS) {
      const inCell = (r: HeldOutDesign): boolean => r.axis === axis && r.value >= lo && r.value <= hi;
      const b = high(before).filter(inCell);
      if (b.length === 0) continue;
      const after = runs.map((run) => shape(high(run.after).filter(inCell)));
      structure.push({
        axis,
        band,
        before: shape(b),
        after,
        agents: tInterval(after.map((s) => s.agents)),
        depth: tInterval(after.map((s) => s.depth)),
        width: tInterval(after.map((s) => s.width)),
      });
    }
  const trend = (rows: readonly HeldOutDesign[], axis: string): number => {
    const xs = high(rows).filter((r) => r.axis === axis);
    return slope(
      xs.map((r) => r.value),
      xs.map((r) => r.agents),
    );
  };
  const perSeed = runs.map((run) => ({
    seed: run.seed,
    accuracy: pairedBootstrap(acc(before), acc(run.after)),
    tokens: pairedBootstrap(
      before.map((r) => r.tokens),
      run.after.map((r) => r.tokens),
    ),
  }));
  const afterDelegated = runs.map((run) => delegated(run.after)).filter((x): x is number => x !== null);
  return {
    seeds: runs.map((r) => r.seed),
    queries: before.length,
    iterations: runs.map((r) => r.curve.length),
    delegation: {
      before: delegated(before),
      after: tInterval(afterDelegated),
      early: tInterval(runs.map((r) => curveMean(r.curve, 0, window))),
      late: tInterval(
        runs.map((r) => curveMean(r.curve, Math.max(0, r.curve.length - window), r.curve.length)),
      ),
      window,
    },
    accuracy: {
      before: meanOf(acc(before)),
      after: tInterval(runs.map((r) => meanOf(acc(r.after)))),
      difference: tInterval(perSeed.map((p) => p.accuracy.difference)),
    },
    tokens: {
      before: meanOf(before.map((r) => r.tokens)),
      after: tInterval(runs.map((r) => meanOf(r.after.map((x) => x.tokens)))),
      difference: tInterval(perSeed.map((p) => p.tokens.difference)),
    },
    perSeed,
    structure,
    trends: axes.map((axis) => ({
      axis,
      before: trend(before, axis),
      after: tInterval(runs.map((run) => trend(run.after, axis))),
    })),
  };
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
const mi = (m: MeanInterval, f: (x: number) => string): string =>
  `${f(m.mean)} [${f(m.interval[0])}, ${f(m.interval[1])}]`;
const pd = (p: PairedDifference, f: (x: number) => string): string =>
  `${f(p.difference)} [${f(p.interval[0])}, ${f(p.interval[1])}]`;
const pts = (x: number): string => `${(100 * x).toFixed(1)}`;
const roles = (s: Shape): string => s.roles.map(([r, k]) => `${r} ${Math.round(100 * k)}%`).join(', ') || '—';

/** The findings as markdown tables (docs/benchmarks.md). */
export function findingsMarkdown(f: OrchestratorFindings): string {
  const d = f.delegation;
  const seedsNote = `${f.seeds.length} seeds (${f.seeds.join(', ')}); mean [95% t-interval over seeds]`;
  const lines = [
    `**Accuracy and cost** (${f.queries} held-out queries; ${seedsNote}):`,
    '',
    '| measure | SFT | after GRPO | after − SFT |',
    '|---|---:|---:|---:|',
    `| accuracy | ${pct(f.accuracy.before)} | ${mi(f.accuracy.after, pct)} | ${mi(f.accuracy.difference, pts)} pts |`,
    `| tokens/task | ${f.tokens.before.toFixed(0)} | ${mi(f.tokens.after, (x) => x.toFixed(0))} | ${mi(f.tokens.difference, (x) => x.toFixed(0))} |`,
    `| low-DoM delegated (held out) | ${d.before === null ? '–' : pct(d.before)} | ${mi(d.after, pct)} | |`,
    '',
    `Per seed, after − SFT with the paired bootstrap 95% interval over the queries: ${f.perSeed
      .map(
        (p) =>
          `seed ${p.seed}: accuracy ${pd(p.accuracy, pts)} pts, tokens ${pd(p.tokens, (x) => x.toFixed(0))}`,
      )
      .join('; ')}.`,
    '',
    `**Delegation during training** (low-DoM samples of the training curve): first ${d.window} iterations ${mi(d.early, pct)}, last ${d.window} ${mi(d.late, pct)} (${f.iterations.join(', ')} iterations).`,
    '',
    '**Structure in high DoM** (held out; agents per design, depth = agents on the longest path, branches = most agents side by side; after GRPO: mean over seeds [95% t-interval]):',
    '',
    '| axis | values | n | SFT agents · depth · branches | GRPO agents | GRPO depth | GRPO branches | SFT top roles | GRPO top roles (first seed) |',
    '|---|---|---:|---|---|---|---|---|---|',
    ...f.structure.map(
      (c) =>
        `| ${c.axis} | ${c.band} | ${c.before.n} | ${c.before.agents.toFixed(2)} · ${c.before.depth.toFixed(2)} · ${c.before.width.toFixed(2)} | ${mi(c.agents, (x) => x.toFixed(2))} | ${mi(c.depth, (x) => x.toFixed(2))} | ${mi(c.width, (x) => x.toFixed(2))} | ${roles(c.before)} | ${c.after[0] ? roles(c.after[0]) : '—'} |`,
    ),
    '',
    '**Agents over the axis value** (high DoM, least-squares slope of agents per design per unit of the axis value):',
    '',
    '| axis | SFT | after GRPO |',
    '|---|---:|---:|',
    ...f.trends.map((t) => `| ${t.axis} | ${t.before.toFixed(3)} | ${mi(t.after, (x) => x.toFixed(3))} |`),
  ];
  return lines.join('\n');
}
