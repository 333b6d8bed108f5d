/**
 * What one training iteration reports: rollout statistics (reward, accuracy, tokens, structure,
 * role choices, per axis), the mean of its minibatch update statistics, and one sampled design per
 * axis for the page's "what the policy builds now". Pure: computed from the iteration's rollouts.
 */
import type { Design } from '../core/trace.ts';
import { adjacency, longestPath, topoOrder } from '../core/graph.ts';
import type { RolePool } from '../policy/index.ts';
import type { UpdateStats } from './learner.ts';
import type { Rollout } from './rollout.ts';

export interface RolloutStats {
  /** Mean R over the iteration's constructions. */
  meanReward: number;
  /** Share of constructions whose final answer was correct. */
  accuracy: number;
  /** Mean prompt + completion tokens of a final run. */
  tokens: number;
  /** Mean construction steps. */
  steps: number;
}

export interface AxisStats {
  n: number;
  accuracy: number;
  reward: number;
  tokens: number;
  agents: number;
}

export interface SampledDesign {
  axis: string;
  value: number;
  taskId: string;
  correct: boolean | null;
  design: Design;
}

export interface IterationMetrics extends RolloutStats {
  /** Iterations finished, this one included (1-based). */
  iteration: number;
  /** Constructions sampled this iteration (B·G). */
  episodes: number;
  rewardStd: number;
  /** Mean agents / edges / longest-path depth of the sampled designs. */
  agents: number;
  edges: number;
  depth: number;
  /** Share of added agents per pool role (sums to 1 when any agent was added). */
  roles: Record<string, number>;
  perAxis: Record<string, AxisStats>;
  /** Mean of the iteration's minibatch update statistics (ratioMin/Max: the extremes). */
  update: UpdateStats & { count: number };
  /** The first sampled design of each axis. */
  samples: SampledDesign[];
  /**
   * With an injected clock: wall time of the rollouts and of the updates (ms), and the update's
   * parts (`phases`): encoding the steps, the old and reference log-probabilities, the minibatch
   * updates, the parameters read back for the next rollouts.
   */
  timings?: { rolloutMs: number; updateMs: number; phases?: UpdatePhases };
}

/** The update phase of an iteration, part by part (ms; `TrainerOptions.clock`). */
export interface UpdatePhases {
  encodeMs: number;
  oldLogpMs: number;
  stepsMs: number;
  readBackMs: number;
}

const mean = (xs: readonly number[]): number =>
  xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;

const std = (xs: readonly number[]): number => {
  const m = mean(xs);
  return Math.sqrt(mean(xs.map((x) => (x - m) ** 2)));
};

/** Longest path, in agents, of a design's DAG (0 without agents). */
export function designDepth(d: Design): number {
  return longestPath(
    d.agents.map((a) => a.id),
    d.edges,
    () => 1,
  ).length;
}

/**
 * Parallel branches of a design: the most agents at one level, where an agent's level is the
 * longest chain of agents feeding it (sources at level 0). A chain is 1 wide; "two solvers, then a
 * merge" is 2. 0 for no agents; a cyclic graph (not a valid design) counts every agent at level 0.
 */
export function designWidth(d: Design): number {
  const ids = d.agents.map((a) => a.id);
  if (ids.length === 0) return 0;
  const order = topoOrder(ids, d.edges) ?? ids;
  const { in: inn } = adjacency(ids, d.edges);
  const level = new Map<string, number>();
  for (const id of order)
    level.set(id, Math.max(-1, ...(inn.get(id) ?? []).map((p) => level.get(p) ?? -1)) + 1);
  const count = new Map<number, number>();
  for (const l of level.values()) count.set(l, (count.get(l) ?? 0) + 1);
  return Math.max(...count.values());
}

/** Mean update statistics; ratioMin / ratioMax are the extremes over the minibatches. */
export function meanUpdate(us: readonly UpdateStats[]): UpdateStats & { count: number } {
  const m = (k: keyof UpdateStats): number => mean(us.map((u) => u[k]));
  return {
    count: us.length,
    loss: m('loss'),
    kl: m('kl'),
    clipFraction: m('clipFraction'),
    nodeEntropy: m('nodeEntropy'),
    edgeEntropy: m('edgeEntropy'),
    gradNorm: m('gradNorm'),
    ratioMean: m('ratioMean'),
    ratioMin: us.length ? Math.min(...us.map((u) => u.ratioMin)) : 0,
    ratioMax: us.length ? Math.max(...us.map((u) => u.ratioMax)) : 0,
  };
}

/** Role shares of the agents added by a set of rollouts' designs (pool order). */
export function roleShares(designs: readonly Design[], pool: RolePool): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(pool.roles.map((r) => [r.name, 0]));
  let total = 0;
  for (const d of designs)
    for (const a of d.agents) {
      if (a.role === undefined || !(a.role in counts)) continue;
      counts[a.role] = (counts[a.role] as number) + 1;
      total++;
    }
  if (total > 0) for (const k of Object.keys(counts)) counts[k] = (counts[k] as number) / total;
  return counts;
}

export function iterationMetrics(
  iteration: number,
  groups: readonly (readonly Rollout[])[],
  rewards: readonly (readonly number[])[],
  pool: RolePool,
  update: UpdateStats & { count: number },
): IterationMetrics {
  const all = groups.flat();
  const rs = rewards.flat();
  const perAxis: Record<string, AxisStats> = {};
  const samples: SampledDesign[] = [];
  for (const axis of new Set(all.map((r) => r.task.axis))) {
    const idx = all.flatMap((r, i) => (r.task.axis === axis ? [i] : []));
    const rows = idx.map((i) => all[i] as Rollout);
    perAxis[axis] = {
      n: rows.length,
      accuracy: mean(rows.map((r) => (r.correct === true ? 1 : 0))),
      reward: mean(idx.map((i) => rs[i] as number)),
      tokens: mean(rows.map((r) => r.tokens)),
      agents: mean(rows.map((r) => r.agents)),
    };
    const first = rows[0] as Rollout;
    samples.push({
      axis,
      value: first.task.value,
      taskId: first.task.id,
      correct: first.correct,
      design: first.design,
    });
  }
  return {
    iteration,
    episodes: all.length,
    meanReward: mean(rs),
    rewardStd: std(rs),
    accuracy: mean(all.map((r) => (r.correct === true ? 1 : 0))),
    tokens: mean(all.map((r) => r.tokens)),
    steps: mean(all.map((r) => r.steps.length)),
    agents: mean(all.map((r) => r.agents)),
    edges: mean(all.map((r) => r.edges)),
    depth: mean(all.map((r) => designDepth(r.design))),
    roles: roleShares(
      all.map((r) => r.design),
      pool,
    ),
    perAxis,
    update,
    samples,
  };
}
