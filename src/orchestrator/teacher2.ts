/**
 * Teacher designs for the v2 tiny orchestrator (tiny2-format.ts): per generated MASBench task, the
 * best design found on the simulator among a wide candidate set, by mean reward R = correct −
 * λ·min(1, tokens/costScale) over a few simulator seeds, ties to fewer tokens, then to the earlier
 * candidate. Candidates:
 * - `policy`: G constructions sampled from a construction policy (a checkpoint trained with
 *   `baton train`; the script records its command and hash), in canonical v2 form;
 * - `fixed`: the fixed designs of scripts/fixed-designs.ts (`FIXED_PROGRAMS`), built with the
 *   construction actions a policy would take (so the summariser is added);
 * - `archive`: each standalone archive agent alone (CoT, SC, Debate, Reflexion, CEO);
 * - `role`: each role of the pool alone (version 1's low-DoM candidates);
 * - `direct` (low DoM only): no agent and a direct answer. The tiny model cannot compute an
 *   answer, so the candidate's answer is empty and the simulator grades it wrong at 0 tokens: the
 *   teacher takes this branch only where every single agent failed under every scoring seed.
 * High DoM weighs every candidate (a single agent is a valid DAG); low DoM the single agents and
 * the direct answer. A plan's outcome does not depend on the DoM, so each distinct plan is run
 * once per seed and shared. The runner is injected: this layer imports no executor.
 */
import { mix32 } from '../core/rng.ts';
import type { Design } from '../core/trace.ts';
import { taskOfMasbench, type MasBenchTask } from '../masbench/index.ts';
import {
  applyAction,
  constructMany,
  groupReward,
  initialState,
  toValidDesign,
  type BatchedPolicy,
  type RolePool,
} from '../policy/index.ts';
import { TEACHER_REWARD, scoreSeed, type DesignOutcome, type RewardSettings } from './teacher.ts';
import { ARCHIVE_ROLES, designOfPlan2, planShape, tiny2PlanOf, type Tiny2Plan } from './tiny2-format.ts';

export type CandidateSource = 'policy' | 'fixed' | 'archive' | 'role' | 'direct';

export interface Candidate2 {
  plan: Tiny2Plan;
  source: CandidateSource;
  /** The fixed design's name, the archive agent's or the role's. */
  name?: string;
}

/** A design as construction steps: a role of the pool and the earlier steps it reads. */
export type Program = readonly (readonly [role: string, links: readonly number[]])[];

/** The fixed designs (scripts/fixed-designs.ts prints what each scores per axis). */
export const FIXED_PROGRAMS: Readonly<Record<string, Program>> = {
  Solver: [['Solver', []]],
  Calculator: [['Calculator', []]],
  'Consensus Solver': [['Consensus Solver', []]],
  'Debate Panel': [['Debate Panel', []]],
  'Solver → Verifier': [
    ['Solver', []],
    ['Verifier', [0]],
  ],
  'Solver → Verifier → Verifier': [
    ['Solver', []],
    ['Verifier', [0]],
    ['Verifier', [1]],
  ],
  'Decomposer → Solver': [
    ['Decomposer', []],
    ['Solver', [0]],
  ],
  'Decomposer → Solver → Verifier': [
    ['Decomposer', []],
    ['Solver', [0]],
    ['Verifier', [1]],
  ],
  'Planner → 2 Solvers': [
    ['Planner', []],
    ['Solver', [0]],
    ['Solver', [0]],
  ],
  'Consensus Solver → Verifier': [
    ['Consensus Solver', []],
    ['Verifier', [0]],
  ],
  'Debate Panel → Verifier': [
    ['Debate Panel', []],
    ['Verifier', [0]],
  ],
};

/** A program's design, built with ADD actions then EXIT (the summariser is added as in every construction). */
export function programDesign(program: Program, pool: RolePool): Design {
  let s = initialState(pool);
  const ids: string[] = [];
  for (const [name, links] of program) {
    const role = pool.roles.findIndex((r) => r.name === name);
    if (role < 0) throw new Error(`no role ${name} in the pool`);
    s = applyAction(s, { kind: 'add', role, links: links.map((j) => ids[j] as string) }).state;
    ids.push((s.agents[s.agents.length - 1] as { id: string }).id);
  }
  const design = toValidDesign(applyAction(s, { kind: 'exit' }).state);
  if (!design) throw new Error('the program does not build a valid design');
  return design;
}

/** The candidates that do not depend on the task: fixed designs, archive agents, single roles. */
export function staticCandidates(pool: RolePool): Candidate2[] {
  const fixed = Object.entries(FIXED_PROGRAMS)
    .filter(([, p]) => p.every(([r]) => pool.roles.some((x) => x.name === r)))
    .map(([name, p]) => ({
      plan: tiny2PlanOf(programDesign(p, pool), pool),
      source: 'fixed' as const,
      name,
    }));
  const archive = ARCHIVE_ROLES.map((r) => ({
    plan: { dom: 'low' as const, agents: [{ role: r.name, links: [] }] },
    source: 'archive' as const,
    name: r.name,
  }));
  const roles = pool.roles.map((r) => ({
    plan: { dom: 'low' as const, agents: [{ role: r.name, links: [] }] },
    source: 'role' as const,
    name: r.name,
  }));
  return [...fixed, ...archive, ...roles];
}

export const DIRECT_CANDIDATE: Candidate2 = {
  plan: { dom: 'low', agents: [], direct: '' },
  source: 'direct',
};

/** Runs a design on a task under a simulator seed. */
export type SeededRunner = (design: Design, task: MasBenchTask, seed: number) => Promise<DesignOutcome>;

export interface Scored2 {
  plan: Tiny2Plan;
  design: Design;
  source: CandidateSource;
  name?: string;
  reward: number;
  accuracy: number;
  tokens: number;
}

export interface Teacher2Example {
  task: MasBenchTask;
  low: Scored2;
  high: Scored2;
  /** Distinct plans weighed, and how many came from each source. */
  candidates: number;
}

export interface Teacher2Options {
  pool: RolePool;
  /** The trained construction policy, batched; null = no policy samples. */
  policy: BatchedPolicy | null;
  run: SeededRunner;
  samples: number;
  seeds: number;
  maxSteps?: number;
  reward?: RewardSettings;
}

const planKey = (p: Tiny2Plan): string =>
  p.agents.length === 0 ? 'direct' : JSON.stringify(p.agents.map((a) => [a.role, a.links]));

const better = (a: Scored2, b: Scored2 | null): boolean =>
  !b || a.reward > b.reward || (a.reward === b.reward && a.tokens < b.tokens);

/** Teacher designs for `tasks`, in order. */
export async function teacher2Examples(
  tasks: readonly MasBenchTask[],
  o: Teacher2Options,
  onTask?: (done: number) => void,
): Promise<Teacher2Example[]> {
  const reward = o.reward ?? TEACHER_REWARD;
  const fixed = staticCandidates(o.pool);
  const out: Teacher2Example[] = [];
  const per = o.policy ? Math.max(1, Math.floor(o.policy.maxBatch / Math.max(1, o.samples))) : tasks.length;
  for (let start = 0; start < tasks.length; start += per) {
    const chunk = tasks.slice(start, start + per);
    const sampled = o.policy
      ? await constructMany({
          policy: o.policy,
          pool: o.pool,
          ...(o.maxSteps !== undefined ? { maxSteps: o.maxSteps } : {}),
          episodes: chunk.flatMap((t) =>
            Array.from({ length: o.samples }, (_, g) => ({
              task: taskOfMasbench(t),
              seed: mix32((t.seed + Math.imul(g + 1, 0x9e3779b9)) >>> 0),
            })),
          ),
        })
      : [];
    for (const [i, task] of chunk.entries()) {
      const policy = sampled
        .slice(i * o.samples, (i + 1) * o.samples)
        .map((c) => ({ plan: tiny2PlanOf(c.design, o.pool), source: 'policy' as const }));
      const all: Candidate2[] = [...policy, ...fixed, DIRECT_CANDIDATE];
      const seen = new Map<string, Scored2>();
      for (const c of all) {
        const key = planKey(c.plan);
        if (seen.has(key)) continue;
        const design = designOfPlan2(c.plan, o.pool);
        let r = 0;
        let right = 0;
        let tokens = 0;
        for (let k = 0; k < o.seeds; k++) {
          const res = await o.run(design, task, scoreSeed(task, k));
          r += groupReward(res.correct === true, res.tokens, reward);
          right += res.correct === true ? 1 : 0;
          tokens += res.tokens;
        }
        seen.set(key, {
          plan: c.plan,
          design,
          source: c.source,
          ...(c.name !== undefined ? { name: c.name } : {}),
          reward: r / o.seeds,
          accuracy: right / o.seeds,
          tokens: tokens / o.seeds,
        });
      }
      let high: Scored2 | null = null;
      let low: Scored2 | null = null;
      for (const s of seen.values()) {
        if (s.plan.agents.length > 0 && better(s, high)) high = s;
        if (s.plan.agents.length <= 1 && s.plan.agents.every((a) => a.links.length === 0) && better(s, low))
          low = s;
      }
      if (!high || !low) throw new Error('no candidate designs');
      const asLow = (s: Scored2): Scored2 => {
        const plan = { ...s.plan, dom: 'low' as const };
        return { ...s, plan, design: designOfPlan2(plan, o.pool) };
      };
      const asHigh = (s: Scored2): Scored2 => {
        const plan = { ...s.plan, dom: 'high' as const };
        return { ...s, plan, design: designOfPlan2(plan, o.pool) };
      };
      out.push({ task, low: asLow(low), high: asHigh(high), candidates: seen.size });
      onTask?.(out.length);
    }
  }
  return out;
}

/** Agents, depth (agents on the longest path) and width (most agents side by side) of a plan. */
export function structureOf(plan: Tiny2Plan): { agents: number; depth: number; width: number } {
  return { agents: plan.agents.length, ...planShape(plan) };
}
