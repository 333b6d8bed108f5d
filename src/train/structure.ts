/**
 * Query-adaptive structure: what a policy builds, per MASBench axis and per axis value, on the
 * held-out tasks `evaluatePolicy` scores (same tasks, same seeds, greedy by default). Per group:
 * how often each role is used, mean agents / edges / DAG depth, accuracy, tokens and reward; and a
 * before/after comparison of two policies on the same tasks, so a study can say e.g. "after
 * training it adds a Verifier on robustness tasks and not on parallel ones".
 *
 * Pure: the designs come from `heldOutRollouts` (injected runners), the tables from plain data.
 */
import type { RolePool } from '../policy/index.ts';
import { meanOf } from './ablation-stats.ts';
import type { HeldOutRow } from './evaluate.ts';
import { designDepth, roleShares } from './metrics.ts';

export { heldOutRollouts, type HeldOutRow } from './evaluate.ts';

/** What the designs of one group of held-out tasks look like. */
export interface StructureStats {
  n: number;
  accuracy: number;
  tokens: number;
  reward: number;
  agents: number;
  edges: number;
  /** Mean longest path in agents (summariser included). */
  depth: number;
  /** Share of the added agents per pool role (sums to 1 when any was added). */
  roleShare: Record<string, number>;
  /** Share of designs with at least one agent of the role. */
  roleUse: Record<string, number>;
}

export interface AxisStructure extends StructureStats {
  /** Keyed by the axis value ("2" … "6"). */
  perValue: Record<string, StructureStats>;
}

export interface StructureTable {
  policy: string;
  preset: string;
  greedy: boolean;
  overall: StructureStats;
  perAxis: Record<string, AxisStructure>;
}

function statsOf(rows: readonly HeldOutRow[], pool: RolePool): StructureStats {
  const designs = rows.map((r) => r.rollout.design);
  const roleUse: Record<string, number> = {};
  for (const role of pool.roles)
    roleUse[role.name] = meanOf(designs.map((d) => (d.agents.some((a) => a.role === role.name) ? 1 : 0)));
  return {
    n: rows.length,
    accuracy: meanOf(rows.map((r) => (r.rollout.correct === true ? 1 : 0))),
    tokens: meanOf(rows.map((r) => r.rollout.tokens)),
    reward: meanOf(rows.map((r) => r.reward)),
    agents: meanOf(rows.map((r) => r.rollout.agents)),
    edges: meanOf(rows.map((r) => r.rollout.edges)),
    depth: meanOf(designs.map(designDepth)),
    roleShare: roleShares(designs, pool),
    roleUse,
  };
}

const groupBy = <K extends string>(
  rows: readonly HeldOutRow[],
  key: (r: HeldOutRow) => K,
): Map<K, HeldOutRow[]> => {
  const m = new Map<K, HeldOutRow[]>();
  for (const r of rows) {
    const k = key(r);
    const g = m.get(k);
    if (g) g.push(r);
    else m.set(k, [r]);
  }
  return m;
};

const byKey = (a: string, b: string): number => a.localeCompare(b, 'en', { numeric: true });

/** The structure table of a policy's held-out constructions. */
export function structureOf(
  rows: readonly HeldOutRow[],
  pool: RolePool,
  meta: { policy: string; preset: string; greedy: boolean },
): StructureTable {
  const perAxis: Record<string, AxisStructure> = {};
  const axes = groupBy(rows, (r) => r.task.axis);
  for (const axis of [...axes.keys()].sort(byKey)) {
    const ax = axes.get(axis) as HeldOutRow[];
    const values = groupBy(ax, (r) => String(r.task.value));
    const perValue: Record<string, StructureStats> = {};
    for (const v of [...values.keys()].sort(byKey))
      perValue[v] = statsOf(values.get(v) as HeldOutRow[], pool);
    perAxis[axis] = { ...statsOf(ax, pool), perValue };
  }
  return { ...meta, overall: statsOf(rows, pool), perAxis };
}

const NUMERIC = ['accuracy', 'tokens', 'reward', 'agents', 'edges', 'depth'] as const;
type Numeric = (typeof NUMERIC)[number];

export interface StructureDelta {
  before: StructureStats;
  after: StructureStats;
  /** after − before for every number and every role's use share. */
  delta: Record<Numeric, number> & { roleUse: Record<string, number> };
}

export interface StructureComparison {
  before: string;
  after: string;
  overall: StructureDelta;
  perAxis: Record<string, StructureDelta>;
}

function deltaOf(before: StructureStats, after: StructureStats): StructureDelta {
  const roleUse: Record<string, number> = {};
  for (const k of new Set([...Object.keys(before.roleUse), ...Object.keys(after.roleUse)]))
    roleUse[k] = (after.roleUse[k] ?? 0) - (before.roleUse[k] ?? 0);
  const d = Object.fromEntries(NUMERIC.map((k) => [k, after[k] - before[k]])) as Record<Numeric, number>;
  return { before, after, delta: { ...d, roleUse } };
}

/**
 * Before/after on the same held-out tasks. Axes present in only one table are left out (they
 * cannot be compared); the tables should come from the same preset, n and seed.
 */
export function compareStructure(before: StructureTable, after: StructureTable): StructureComparison {
  const perAxis: Record<string, StructureDelta> = {};
  for (const axis of Object.keys(before.perAxis).sort(byKey)) {
    const a = after.perAxis[axis];
    const b = before.perAxis[axis];
    if (a && b) perAxis[axis] = deltaOf(b, a);
  }
  return {
    before: before.policy,
    after: after.policy,
    overall: deltaOf(before.overall, after.overall),
    perAxis,
  };
}

const f2 = (x: number): string => x.toFixed(2);
const pct = (x: number): string => `${Math.round(x * 100)}%`;

/** The roles a table mentions, most used first (at most `max`). */
function topRoles(stats: readonly StructureStats[], max: number): string[] {
  const total: Record<string, number> = {};
  for (const s of stats) for (const [k, v] of Object.entries(s.roleUse)) total[k] = (total[k] ?? 0) + v;
  return Object.entries(total)
    .filter(([, v]) => v > 0)
    .sort((a, b) => b[1] - a[1] || byKey(a[0], b[0]))
    .slice(0, max)
    .map(([k]) => k);
}

/**
 * A markdown table per axis: accuracy, tokens, agents, edges, depth and the share of designs
 * using each of the most used roles. With two tables, before → after in every cell.
 */
export function structureMarkdown(before: StructureTable, after?: StructureTable, maxRoles = 6): string {
  const axes = Object.keys(before.perAxis).sort(byKey);
  const rowsOf = (t: StructureTable): StructureStats[] => [
    t.overall,
    ...axes.flatMap((a) => t.perAxis[a] ?? []),
  ];
  const roles = topRoles([...rowsOf(before), ...(after ? rowsOf(after) : [])], maxRoles);
  const cell = (fmt: (x: number) => string, b: number, a?: number): string =>
    a === undefined ? fmt(b) : `${fmt(b)} → ${fmt(a)}`;
  const head = [
    'axis',
    'n',
    'accuracy',
    'tokens',
    'agents',
    'edges',
    'depth',
    ...roles.map((r) => `uses ${r}`),
  ];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  const line = (name: string, b: StructureStats, a?: StructureStats): void => {
    const cells = [
      name,
      String(b.n),
      cell(f2, b.accuracy, a?.accuracy),
      cell((x) => x.toFixed(0), b.tokens, a?.tokens),
      cell(f2, b.agents, a?.agents),
      cell(f2, b.edges, a?.edges),
      cell(f2, b.depth, a?.depth),
      ...roles.map((r) => cell(pct, b.roleUse[r] ?? 0, a ? (a.roleUse[r] ?? 0) : undefined)),
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  };
  for (const axis of axes) {
    const b = before.perAxis[axis] as AxisStructure;
    line(axis, b, after?.perAxis[axis]);
  }
  line('all', before.overall, after?.overall);
  return lines.join('\n');
}
