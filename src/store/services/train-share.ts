/**
 * A training run as a share link (`#r=1.…`) and back, and the verdict of a re-run. Pure: the Train
 * slice gives it the run's snapshot and evaluation and shows what comes back.
 *
 * The link always carries the record (config with its seeds, start, curves, evaluation table); the
 * trained parameters ride along as an int8 delta only when the start is a built-in policy (the
 * delta is rebuilt on it) and the link with them stays within the budget. Otherwise the link is
 * made without them, and `params` says why, so the page can tell the user.
 */
import { problemOf } from '../../core/errors.ts';
import type { Result } from '../../core/result.ts';
import { decodeJsonLink, encodeJsonLink, LINK_BUDGET_CHARS } from '../../share/index.ts';
import {
  builtInStart,
  firstDifference,
  parseRunRecord,
  runRecord,
  type EvalRow,
  type RunRecord,
  type TrainerSnapshot,
} from '../../train/index.ts';
import type { Evaluation } from './train.ts';

export const RUN_LINK_PARAM = 'r';

export type ParamsInLink = 'included' | 'too-large' | 'not-rebuildable';

export interface RunLink {
  /** The whole address: base + `#r=1.…`. */
  url: string;
  chars: number;
  /** Even without the parameters the link is longer than the budget. */
  overBudget: boolean;
  params: ParamsInLink;
  iterations: number;
}

/** The evaluation as the record's table: one row per policy scored. */
export function evalRows(e: Evaluation | null): EvalRow[] {
  if (!e) return [];
  const rows: { policy: string; r: NonNullable<Evaluation['current']> }[] = [
    { policy: 'prior', r: e.prior },
    { policy: 'random', r: e.random },
  ];
  if (e.current) rows.push({ policy: `current (iteration ${e.iteration})`, r: e.current });
  return rows.map(({ policy, r }) => ({
    policy,
    n: r.n,
    accuracy: r.accuracy,
    lo: r.interval[0],
    hi: r.interval[1],
    tokens: r.tokens,
    agents: r.agents,
    edges: r.edges,
    reward: r.reward,
  }));
}

/** The share link of a run; `base` is the page's address without its fragment. */
export function buildRunLink(
  snapshot: TrainerSnapshot,
  evaluation: Evaluation | null,
  base: string,
  budget = LINK_BUDGET_CHARS,
): RunLink {
  const input = {
    config: snapshot.config,
    from: snapshot.start.name,
    history: snapshot.history,
    evaluation: evalRows(evaluation),
  };
  const at = base.indexOf('#');
  const root = at >= 0 ? base.slice(0, at) : base;
  const make = (record: RunRecord, params: ParamsInLink): RunLink => {
    const link = encodeJsonLink(record, RUN_LINK_PARAM);
    const url = root + link.fragment;
    return { url, chars: url.length, overBudget: url.length > budget, params, iterations: record.iterations };
  };
  const start = builtInStart(snapshot.start.name);
  if (!start) return make(runRecord(input), 'not-rebuildable');
  const full = make(runRecord({ ...input, trained: { start, current: snapshot.checkpoint } }), 'included');
  return full.overBudget ? make(runRecord(input), 'too-large') : full;
}

/** What the page says about the parameters in a link it made. */
export function paramsNote(p: ParamsInLink): string {
  if (p === 'included')
    return 'The link carries the trained parameters (8-bit quantised): "Use in Build" works from it.';
  if (p === 'too-large')
    return `The trained parameters did not fit within ${LINK_BUDGET_CHARS.toLocaleString()} characters, so the link carries the config, curves and evaluation only (a re-run on the CPU reproduces the run).`;
  return 'The run started from a checkpoint that is not built in, so the link carries no parameters and cannot be re-run; it shows the config, curves and evaluation.';
}

/** Reads `#r=1.…` (or a full address) into a checked record; errors say what is wrong, as text. */
export function readRunLink(input: string): Result<RunRecord> {
  const decoded = decodeJsonLink(input, RUN_LINK_PARAM);
  if (!decoded.ok) return decoded;
  const parsed = parseRunRecord(decoded.value);
  if (!parsed.ok) return { ok: false, errors: [problemOf('E_TRAIN_LINK', parsed.problems.join('; '))] };
  return { ok: true, value: parsed.record, warnings: [] };
}

/** The worker's name for a built-in start, or null when the record's start cannot be rebuilt. */
export function rerunStart(record: RunRecord): { kind: 'prior' } | { kind: 'random'; seed: number } | null {
  if (!builtInStart(record.from)) return null;
  if (record.from === 'prior') return { kind: 'prior' };
  const m = /^random:(\d{1,10})$/.exec(record.from);
  const seed = m ? Number(m[1]) : NaN;
  return Number.isInteger(seed) && seed <= 0xffffffff ? { kind: 'random', seed } : null;
}

export type RerunVerdict = { exact: true; iterations: number; text: string } | { exact: false; text: string };

/** "reproduced exactly" or the first number that differs. */
export function rerunVerdict(record: RunRecord, rerun: Parameters<typeof firstDifference>[1]): RerunVerdict {
  const d = firstDifference(record, rerun);
  if (!d)
    return {
      exact: true,
      iterations: record.iterations,
      text: `reproduced exactly: ${record.iterations} iterations, every number equal`,
    };
  if (d.key === 'iterations')
    return {
      exact: false,
      text: `the re-run has ${d.rerun} iterations where the record has ${d.recorded}`,
    };
  return {
    exact: false,
    text: `first difference at iteration ${d.iteration}, ${d.key}: recorded ${d.recorded}, re-run ${d.rerun}`,
  };
}
