/**
 * Held-out evaluation of the orchestrator LM (docs/train.md): greedy designs, constrained, for
 * test-split MASBench tasks in both Degrees of MAS, each run on the injected design runner (the
 * simulator's fast path in `baton train` and the benchmark) under one fixed seed per task, so two
 * models are compared on the same tasks and the same simulated sub-agents (paired). Accuracy
 * carries a Wilson interval; before/after differences a paired bootstrap (ablation-stats.ts).
 */
import { mix32, createRng } from '../core/rng.ts';
import type { Design } from '../core/trace.ts';
import {
  AXES,
  generateTask,
  splitForSeed,
  taskSeed,
  type Axis,
  type MasBenchTask,
  type Split,
} from '../masbench/index.ts';
import { pairedBootstrap, type PairedDifference } from './ablation-stats.ts';
import { wilson } from './evaluate.ts';
import { designDepth, designWidth } from './metrics.ts';
import type { Decoder } from './orchestrator-decode.ts';
import { sampleDesigns, type Dom, type Query, type SamplingFormat } from './orchestrator-sampler.ts';

/** Runs a design on a task under a simulator seed (the simulator's fast path in `baton train`). */
export type DesignRunner = (
  design: Design,
  task: MasBenchTask,
  seed: number,
) => Promise<{ correct: boolean | null; tokens: number }>;

/**
 * `count` tasks of one split, the axes in turn, values drawn from `values` (the draw of the
 * orchestrator's training script, src/orchestrator/teacher.ts `drawTeacherTasks`).
 */
export function drawSplitTasks(o: {
  count: number;
  baseSeed: number;
  split: Split;
  values: readonly number[];
}): MasBenchTask[] {
  const out: MasBenchTask[] = [];
  for (let k = 0; out.length < o.count; k++) {
    const seed = taskSeed(o.baseSeed, k);
    if (splitForSeed(seed) !== o.split) continue;
    const axis = AXES[out.length % AXES.length] as Axis;
    const value = o.values[mix32(seed) % o.values.length] as number;
    out.push(generateTask({ axis, value, seed }));
  }
  return out;
}

/** Base seed of held-out task draws (test split) and the simulator seed salt of their runs. */
export const HELD_OUT_SEED = 0x5eed_0e7a;

export interface HeldOutDesign {
  taskId: string;
  axis: string;
  value: number;
  dom: Dom;
  correct: boolean;
  /** Tokens of the design's run (prompt + completion of every sub-agent call). */
  tokens: number;
  agents: number;
  depth: number;
  /** Most agents side by side (parallel branches), and the agents' roles in design order. */
  width: number;
  roles: string[];
  /** Tokens the model wrote, and how many of them were forced by the grammar. */
  designTokens: number;
  forced: number;
  valid: boolean;
}

export interface HeldOutSummary {
  n: number;
  accuracy: number;
  interval: [number, number];
  tokens: number;
  agents: number;
  designTokens: number;
  forcedShare: number;
  validity: number;
  /** Share of low-DoM queries answered by delegating to an agent (null without low-DoM queries). */
  lowDomDelegated: number | null;
}

export interface HeldOutOptions {
  decoder: Decoder;
  format: SamplingFormat;
  run: DesignRunner;
  tasks: number;
  values: readonly number[];
  maxNewTokens: number;
  /** Queries decoded together. */
  batch?: number;
}

/** The held-out queries: `tasks` test-split tasks, each in low and in high DoM. */
export function heldOutQueries(tasks: number, values: readonly number[]): Query[] {
  const ts = drawSplitTasks({ count: tasks, baseSeed: HELD_OUT_SEED, split: 'test', values });
  return ts.flatMap((task) => [
    { task, dom: 'low' as const },
    { task, dom: 'high' as const },
  ]);
}

export async function evaluateOrchestrator(o: HeldOutOptions): Promise<HeldOutDesign[]> {
  const queries = heldOutQueries(o.tasks, o.values);
  const out: HeldOutDesign[] = [];
  const batch = o.batch ?? 16;
  for (let start = 0; start < queries.length; start += batch) {
    const part = queries.slice(start, start + batch);
    const samples = await sampleDesigns({
      decoder: o.decoder,
      format: o.format,
      queries: part,
      group: 1,
      temperature: 1,
      greedy: true,
      rng: createRng(0),
      maxNewTokens: o.maxNewTokens,
    });
    for (const s of samples) {
      const t = s.query.task;
      const r = s.design
        ? await o.run(s.design, t, mix32((t.seed ^ HELD_OUT_SEED) >>> 0))
        : { correct: false, tokens: 0 };
      out.push({
        taskId: t.id,
        axis: t.axis,
        value: t.value,
        dom: s.query.dom,
        correct: r.correct === true,
        tokens: r.tokens,
        agents: s.design?.agents.length ?? 0,
        depth: s.design ? designDepth(s.design) : 0,
        width: s.design ? designWidth(s.design) : 0,
        roles: s.design?.agents.map((a) => a.role ?? a.type) ?? [],
        designTokens: s.tokens.length,
        forced: s.forced.reduce((a, b) => a + b, 0),
        valid: s.design !== null,
      });
    }
  }
  return out;
}

const mean = (xs: readonly number[]): number =>
  xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;

export function summarizeHeldOut(rows: readonly HeldOutDesign[]): HeldOutSummary {
  const k = rows.filter((r) => r.correct).length;
  const low = rows.filter((r) => r.dom === 'low');
  const gen = rows.reduce((a, r) => a + r.designTokens, 0);
  return {
    n: rows.length,
    accuracy: rows.length === 0 ? 0 : k / rows.length,
    interval: wilson(k, rows.length),
    tokens: mean(rows.map((r) => r.tokens)),
    agents: mean(rows.map((r) => r.agents)),
    designTokens: mean(rows.map((r) => r.designTokens)),
    forcedShare: gen === 0 ? 0 : rows.reduce((a, r) => a + r.forced, 0) / gen,
    validity: mean(rows.map((r) => (r.valid ? 1 : 0))),
    lowDomDelegated: low.length === 0 ? null : mean(low.map((r) => (r.agents > 0 ? 1 : 0))),
  };
}

export interface BeforeAfter {
  before: HeldOutSummary;
  after: HeldOutSummary;
  /** after − before, paired over the same queries (95% percentile bootstrap). */
  accuracy: PairedDifference;
  tokens: PairedDifference;
}

/** Compares two evaluations of the same queries (same order, as `evaluateOrchestrator` gives them). */
export function beforeAfter(before: readonly HeldOutDesign[], after: readonly HeldOutDesign[]): BeforeAfter {
  if (
    before.length !== after.length ||
    before.some((r, i) => r.taskId !== after[i]?.taskId || r.dom !== after[i]?.dom)
  )
    throw new Error('before and after were evaluated on different queries');
  const acc = (rs: readonly HeldOutDesign[]): number[] => rs.map((r) => (r.correct ? 1 : 0));
  return {
    before: summarizeHeldOut(before),
    after: summarizeHeldOut(after),
    accuracy: pairedBootstrap(acc(before), acc(after)),
    tokens: pairedBootstrap(
      before.map((r) => r.tokens),
      after.map((r) => r.tokens),
    ),
  };
}
