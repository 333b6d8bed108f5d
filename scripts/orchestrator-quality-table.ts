/**
 * The tables of `npm run bench:orchestrator-quality` (scripts/orchestrator-quality.ts): per method,
 * accuracy with its 95% Wilson interval, tokens, agents, validity, the share of forced tokens, the
 * paired bootstrap interval of the accuracy difference to a reference method, whether the method
 * is on the accuracy–tokens Pareto front; per axis, accuracy and tokens; and the structure table
 * (agents, depth, parallel branches, role frequencies) of chosen methods. Pure: rows in, text out.
 */
import { createRng } from '../src/core/rng.ts';
import { wilson } from '../src/core/stats.ts';
import { AXES, type MasBenchTask } from '../src/masbench/index.ts';

export interface QualityRow {
  method: string;
  task: MasBenchTask;
  correct: boolean;
  tokens: number;
  /** False when the decoded text did not read or validate (scored wrong, 0 tokens). */
  valid: boolean;
  agents: number;
  /** Agents on the longest path, and most agents side by side. */
  depth: number;
  width: number;
  roles: string[];
  /** `direct`, `delegate` or `mas` for orchestrator models. */
  branch?: string;
  /** Decoding steps and forced steps (one allowed token), for constrained models. */
  steps?: number;
  forced?: number;
}

export interface QualityCell {
  n: number;
  accuracy: number;
  interval: [number, number];
  tokens: number;
  valid: number;
  agents: number;
  /** Forced tokens / decoding steps, summed over the tasks (null without a constraint). */
  forcedShare: number | null;
}

const mean = (xs: readonly number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

export function cell(rows: readonly QualityRow[]): QualityCell {
  const k = rows.filter((r) => r.correct).length;
  const steps = rows.reduce((a, r) => a + (r.steps ?? 0), 0);
  return {
    n: rows.length,
    accuracy: rows.length ? k / rows.length : 0,
    interval: wilson(k, rows.length),
    tokens: mean(rows.map((r) => r.tokens)),
    valid: rows.length ? rows.filter((r) => r.valid).length / rows.length : 0,
    agents: mean(rows.map((r) => r.agents)),
    forcedShare: steps > 0 ? rows.reduce((a, r) => a + (r.forced ?? 0), 0) / steps : null,
  };
}

/** Methods in first-seen order. */
export const methodsOf = (rows: readonly QualityRow[]): string[] => [...new Set(rows.map((r) => r.method))];

/**
 * The 95% paired bootstrap interval of accuracy(a) − accuracy(b) over the tasks both ran (seeded,
 * `resamples` draws of the tasks with replacement).
 */
export function pairedDiff(
  rows: readonly QualityRow[],
  a: string,
  b: string,
  resamples = 2000,
  seed = 7,
): { diff: number; interval: [number, number] } | null {
  const byTask = new Map<string, { a?: number; b?: number }>();
  for (const r of rows) {
    if (r.method !== a && r.method !== b) continue;
    const e = byTask.get(r.task.id) ?? {};
    e[r.method === a ? 'a' : 'b'] = r.correct ? 1 : 0;
    byTask.set(r.task.id, e);
  }
  const d = [...byTask.values()]
    .filter((e) => e.a !== undefined && e.b !== undefined)
    .map((e) => (e.a as number) - (e.b as number));
  if (d.length === 0) return null;
  const rng = createRng(seed);
  const stats: number[] = [];
  for (let s = 0; s < resamples; s++) {
    let sum = 0;
    for (let i = 0; i < d.length; i++) sum += d[rng.int(d.length)] as number;
    stats.push(sum / d.length);
  }
  stats.sort((x, y) => x - y);
  return {
    diff: mean(d),
    interval: [
      stats[Math.floor(0.025 * resamples)] as number,
      stats[Math.floor(0.975 * resamples)] as number,
    ],
  };
}

/** Methods no other method beats on accuracy without costing more tokens (and strictly better on one). */
export function paretoFront(cells: ReadonlyMap<string, QualityCell>): Set<string> {
  const out = new Set<string>();
  for (const [m, c] of cells) {
    const dominated = [...cells].some(
      ([o, d]) =>
        o !== m &&
        d.accuracy >= c.accuracy &&
        d.tokens <= c.tokens &&
        (d.accuracy > c.accuracy || d.tokens < c.tokens),
    );
    if (!dominated) out.add(m);
  }
  return out;
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
const pct0 = (x: number): string => `${(100 * x).toFixed(0)}%`;
const signed = (x: number): string => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}`;

/** The main table: one line per method over all tasks. */
export function mainTable(
  rows: readonly QualityRow[],
  reference: string | null,
  notes: Record<string, string> = {},
): string {
  const cells = new Map(methodsOf(rows).map((m) => [m, cell(rows.filter((r) => r.method === m))]));
  const front = paretoFront(cells);
  const head = `| method | accuracy [95% CI] | tokens/task | agents | valid | forced tokens | Δ acc vs ${reference ?? '—'} [95% paired CI] | Pareto |`;
  const lines = [head, '|---|---|---|---|---|---|---|---|'];
  for (const [m, c] of cells) {
    const d = reference && m !== reference ? pairedDiff(rows, m, reference) : null;
    lines.push(
      `| ${m} | ${pct(c.accuracy)} [${pct(c.interval[0])}, ${pct(c.interval[1])}] | ${Math.round(c.tokens)} | ${c.agents.toFixed(2)} | ${pct0(c.valid)} | ${c.forcedShare === null ? '—' : pct0(c.forcedShare)} | ${d ? `${signed(d.diff)} [${signed(d.interval[0])}, ${signed(d.interval[1])}]` : '—'} | ${front.has(m) ? 'yes' : ''} |`,
    );
  }
  for (const [m, note] of Object.entries(notes)) lines.push(`| ${m} | ${note} | | | | | | |`);
  return lines.join('\n');
}

/** Accuracy · tokens per axis. */
export function axisTable(rows: readonly QualityRow[]): string {
  const lines = [`| method | ${AXES.join(' | ')} |`, `|---|${AXES.map(() => '---').join('|')}|`];
  for (const m of methodsOf(rows)) {
    const mine = rows.filter((r) => r.method === m);
    const cells = AXES.map((a) => {
      const c = cell(mine.filter((r) => r.task.axis === a));
      return c.n ? `${pct0(c.accuracy)} · ${Math.round(c.tokens)}` : '—';
    });
    lines.push(`| ${m} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

/**
 * Per axis and value band: mean agents, depth, parallel branches (width), the branch shares of
 * low-DoM methods, and the most frequent roles (share of agents).
 */
export function structureTable(rows: readonly QualityRow[], methods: readonly string[]): string {
  const bands: [string, number, number][] = [
    ['2–4', 2, 4],
    ['5–8', 5, 8],
    ['9–12', 9, 12],
  ];
  const lines = [
    '| method | axis | values | n | agents | depth | branches | delegate / direct | top roles (share of agents) |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const m of methods) {
    for (const axis of AXES) {
      for (const [band, lo, hi] of bands) {
        const xs = rows.filter(
          (r) =>
            r.method === m && r.valid && r.task.axis === axis && r.task.value >= lo && r.task.value <= hi,
        );
        if (xs.length === 0) continue;
        const roles = new Map<string, number>();
        for (const r of xs) for (const role of r.roles) roles.set(role, (roles.get(role) ?? 0) + 1);
        const total = [...roles.values()].reduce((a, b) => a + b, 0);
        const top = [...roles]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 3)
          .map(([r, k]) => `${r} ${pct0(k / Math.max(1, total))}`)
          .join(', ');
        const branches = xs.filter((r) => r.branch === 'delegate' || r.branch === 'direct');
        const split = branches.length
          ? `${pct0(branches.filter((r) => r.branch === 'delegate').length / xs.length)} / ${pct0(branches.filter((r) => r.branch === 'direct').length / xs.length)}`
          : '—';
        lines.push(
          `| ${m} | ${axis} | ${band} | ${xs.length} | ${mean(xs.map((r) => r.agents)).toFixed(2)} | ${mean(xs.map((r) => r.depth)).toFixed(2)} | ${mean(xs.map((r) => r.width)).toFixed(2)} | ${split} | ${top || '—'} |`,
        );
      }
    }
  }
  return lines.join('\n');
}
