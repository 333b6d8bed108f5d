/**
 * Teacher designs for the tiny orchestrator: for a generated MASBench task, the design a model
 * should write in each Degree-of-MAS mode, chosen by simulator reward R = correct − λ·min(1,
 * tokens/costScale), averaged over a few simulator seeds, ties to fewer tokens, then to the earlier
 * candidate.
 * - high DoM: the best of G constructions sampled from a construction policy (the prior by
 *   default; `constructMany`, batched over tasks), each in canonical tiny form (tiny-format.ts);
 * - low DoM: the best single-agent design, one per role of the pool (no edges).
 * The design runner is injected (the script passes the simulator), so this layer imports no
 * executor. Everything is a function of the tasks, the seeds and the runner.
 */
import { mix32 } from '../core/rng.ts';
import type { Design } from '../core/trace.ts';
import {
  AXES,
  generateTask,
  splitForSeed,
  taskOfMasbench,
  taskSeed,
  type Axis,
  type MasBenchTask,
  type Split,
} from '../masbench/index.ts';
import { constructMany, groupReward, type BatchedPolicy, type RolePool } from '../policy/index.ts';
import { canonicalDesign, designOfPlan, tinyPlanOf, type TinyPlan } from './tiny-format.ts';

/** What one run of a design on a task gave. */
export interface DesignOutcome {
  correct: boolean | null;
  tokens: number;
}

/** Runs a design on a task under a simulator seed (the script wires the simulator's fast path). */
export type DesignRunner = (design: Design, task: MasBenchTask, seed: number) => Promise<DesignOutcome>;

export interface RewardSettings {
  /** λ of R = correct − λ·min(1, tokens/costScale). */
  lambda: number;
  costScale: number;
}

/** The trainer's defaults (src/train config): λ = 0.1, costScale = 20,000. */
export const TEACHER_REWARD: RewardSettings = { lambda: 0.1, costScale: 20_000 };

/** The task's seed with a simulator seed index: the seeds designs are scored under. */
export const scoreSeed = (task: MasBenchTask, k: number): number =>
  mix32((task.seed ^ Math.imul(k + 1, 0x2545f491)) >>> 0);

export interface Scored {
  design: Design;
  plan: TinyPlan;
  /** Mean reward over the scoring seeds. */
  reward: number;
  /** Mean correctness (0..1) and tokens over the scoring seeds. */
  accuracy: number;
  tokens: number;
}

/** Scores candidates (already canonical) and returns the best (see the header for the order). */
export async function bestOf(
  task: MasBenchTask,
  candidates: readonly { design: Design; plan: TinyPlan }[],
  run: DesignRunner,
  o: { seeds: number; reward: RewardSettings },
): Promise<Scored> {
  let best: Scored | null = null;
  const seen = new Set<string>();
  for (const c of candidates) {
    const key = JSON.stringify(c.plan);
    if (seen.has(key)) continue;
    seen.add(key);
    let reward = 0;
    let right = 0;
    let tokens = 0;
    for (let k = 0; k < o.seeds; k++) {
      const r = await run(c.design, task, scoreSeed(task, k));
      reward += groupReward(r.correct === true, r.tokens, o.reward);
      right += r.correct === true ? 1 : 0;
      tokens += r.tokens;
    }
    const s: Scored = {
      ...c,
      reward: reward / o.seeds,
      accuracy: right / o.seeds,
      tokens: tokens / o.seeds,
    };
    if (!best || s.reward > best.reward || (s.reward === best.reward && s.tokens < best.tokens)) best = s;
  }
  if (!best) throw new Error('no candidate designs');
  return best;
}

/** The single-agent candidates of low DoM: one per role of the pool, reading the query. */
export function lowCandidates(pool: RolePool): { design: Design; plan: TinyPlan }[] {
  return pool.roles.map((r) => {
    const plan: TinyPlan = { dom: 'low', agents: [{ role: r.name, links: [] }] };
    return { plan, design: designOfPlan(plan, pool) };
  });
}

export interface TeacherOptions {
  pool: RolePool;
  /** The construction policy sampled for high-DoM candidates (the prior), batched. */
  policy: BatchedPolicy;
  run: DesignRunner;
  /** G: constructions sampled per task. */
  samples: number;
  /** Simulator seeds each candidate is scored under. */
  seeds: number;
  reward?: RewardSettings;
  /** Node-head temperature of the sampled constructions (default the checkpoint's). */
  temperature?: number;
  maxSteps?: number;
}

export interface TeacherExample {
  task: MasBenchTask;
  low: Scored;
  high: Scored;
}

/** Teacher designs for `tasks`, in order; the policy's batch must hold tasks.length × samples episodes per call. */
export async function teacherExamples(
  tasks: readonly MasBenchTask[],
  o: TeacherOptions,
): Promise<TeacherExample[]> {
  const reward = o.reward ?? TEACHER_REWARD;
  const per = Math.max(1, Math.floor(o.policy.maxBatch / o.samples));
  const out: TeacherExample[] = [];
  for (let start = 0; start < tasks.length; start += per) {
    const chunk = tasks.slice(start, start + per);
    const built = await constructMany({
      policy: o.policy,
      pool: o.pool,
      ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
      ...(o.maxSteps !== undefined ? { maxSteps: o.maxSteps } : {}),
      episodes: chunk.flatMap((t) =>
        Array.from({ length: o.samples }, (_, g) => ({
          task: taskOfMasbench(t),
          seed: mix32((t.seed + Math.imul(g + 1, 0x9e3779b9)) >>> 0),
        })),
      ),
    });
    for (const [i, task] of chunk.entries()) {
      const candidates = built.slice(i * o.samples, (i + 1) * o.samples).map((c) => {
        const design = canonicalDesign(c.design, o.pool);
        return { design, plan: tinyPlanOf(design, o.pool) };
      });
      const high = await bestOf(task, candidates, o.run, { seeds: o.seeds, reward });
      const low = await bestOf(task, lowCandidates(o.pool), o.run, { seeds: o.seeds, reward });
      out.push({ task, low, high });
    }
  }
  return out;
}

/**
 * `count` tasks from `split`, deterministic in `baseSeed`: candidate k has seed taskSeed(baseSeed, k)
 * and is kept when that seed is in `split`; its axis cycles through all five and its value is drawn
 * from `values` by the seed. Train and test never share a task (masbench's `splitForSeed`).
 */
export function drawTeacherTasks(o: {
  count: number;
  baseSeed: number;
  split: Split;
  values: readonly number[];
  axes?: readonly Axis[];
}): MasBenchTask[] {
  const axes = o.axes ?? AXES;
  const out: MasBenchTask[] = [];
  for (let k = 0; out.length < o.count; k++) {
    const seed = taskSeed(o.baseSeed, k);
    if (splitForSeed(seed) !== o.split) continue;
    const axis = axes[out.length % axes.length] as Axis;
    const value = o.values[mix32(seed) % o.values.length] as number;
    out.push(generateTask({ axis, value, seed }));
  }
  return out;
}
