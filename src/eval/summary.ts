/**
 * The summary of a results document, computed from its rows alone (so a resumed or re-loaded
 * evaluation summarises the same way): per method and per axis value, accuracy with its 95%
 * Wilson interval, tokens, dollars, wall time, agents and calls per task; McNemar for every pair
 * of methods on the rows they share; the Pareto front of accuracy against cost.
 */
import { AXES } from '../masbench/index.ts';
import { mcnemar, paretoFront, wilson } from './stats.ts';
import type { EvalRow, MethodSummary, Pair, Score, Summary } from './schema.ts';

const mean = (total: number, n: number): number => (n === 0 ? 0 : total / n);

/** A failed run (no answer) counts as wrong: the method did not answer. */
export function scoreOf(rows: readonly EvalRow[]): Score {
  const n = rows.length;
  let correct = 0;
  let tokens = 0;
  let usd = 0;
  let wall = 0;
  let agents = 0;
  let calls = 0;
  let failed = 0;
  for (const r of rows) {
    if (r.correct === true) correct += 1;
    if (r.status !== 'completed') failed += 1;
    tokens += r.tokens;
    usd += r.costUsd;
    wall += r.wallMs;
    agents += r.agents;
    calls += r.llmCalls;
  }
  return {
    n,
    correct,
    accuracy: mean(correct, n),
    ci95: wilson(correct, n),
    meanTokens: mean(tokens, n),
    totalTokens: tokens,
    meanCostUsd: mean(usd, n),
    totalCostUsd: usd,
    meanWallMs: mean(wall, n),
    agentsPerTask: mean(agents, n),
    callsPerTask: mean(calls, n),
    failed,
  };
}

export interface MethodInfo {
  id: string;
  label: string;
  /** Set when the method could not run. */
  unavailable?: string;
}

function methodSummary(m: MethodInfo, rows: readonly EvalRow[]): MethodSummary {
  const mine = rows.filter((r) => r.method === m.id);
  const cells = new Map<string, EvalRow[]>();
  for (const r of mine) {
    if (r.axis === null || r.value === null) continue;
    const k = `${r.axis}\u0001${r.value}`;
    const list = cells.get(k) ?? [];
    list.push(r);
    cells.set(k, list);
  }
  const perValue = [...cells.values()]
    .map((list) => ({ ...scoreOf(list), axis: list[0]!.axis!, value: list[0]!.value! }))
    .sort((a, b) => AXES.indexOf(a.axis) - AXES.indexOf(b.axis) || a.value - b.value);
  return {
    method: m.id,
    label: m.label,
    available: m.unavailable === undefined,
    ...(m.unavailable !== undefined ? { unavailable: m.unavailable } : {}),
    overall: scoreOf(mine),
    perValue,
  };
}

/** McNemar on the (task, seed) pairs both methods finished; ungraded rows (no ground truth) are left out. */
export function pairOf(a: string, b: string, rows: readonly EvalRow[]): Pair {
  const key = (r: EvalRow): string => `${r.taskId}\u0001${r.seed}`;
  const bRows = new Map(rows.filter((r) => r.method === b).map((r) => [key(r), r] as const));
  let n = 0;
  let aRight = 0;
  let bRight = 0;
  let aOnly = 0;
  let bOnly = 0;
  for (const ra of rows) {
    if (ra.method !== a) continue;
    const rb = bRows.get(key(ra));
    if (!rb) continue;
    // A run with no answer is wrong; a task without ground truth (correct null after completing) cannot be paired.
    const gradedA = ra.correct !== null || ra.status !== 'completed';
    const gradedB = rb.correct !== null || rb.status !== 'completed';
    if (!gradedA || !gradedB) continue;
    const ca = ra.correct === true;
    const cb = rb.correct === true;
    n += 1;
    if (ca) aRight += 1;
    if (cb) bRight += 1;
    if (ca && !cb) aOnly += 1;
    if (!ca && cb) bOnly += 1;
  }
  const { pExact, pMid } = mcnemar(aOnly, bOnly);
  return { a, b, n, aOnly, bOnly, difference: n === 0 ? 0 : (aRight - bRight) / n, pExact, pMid };
}

export function summarize(methods: readonly MethodInfo[], rows: readonly EvalRow[]): Summary {
  const summaries = methods.map((m) => methodSummary(m, rows));
  const pairs: Pair[] = [];
  const ran = summaries.filter((s) => s.available && s.overall.n > 0).map((s) => s.method);
  for (let i = 0; i < ran.length; i++)
    for (let j = i + 1; j < ran.length; j++) pairs.push(pairOf(ran[i]!, ran[j]!, rows));
  const costMetric = rows.some((r) => r.costUsd > 0) ? 'usd' : 'tokens';
  const pareto = paretoFront(
    summaries
      .filter((s) => s.available && s.overall.n > 0)
      .map((s) => ({
        id: s.method,
        accuracy: s.overall.accuracy,
        cost: costMetric === 'usd' ? s.overall.meanCostUsd : s.overall.meanTokens,
      })),
  );
  return { methods: summaries, pairs, costMetric, pareto };
}
