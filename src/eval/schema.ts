/**
 * The evaluation as data: what is compared (methods), on what (a task set), and what came out
 * (`baton.eval/1`: one row per method × task × seed, each pointing at its trace, and the summary
 * computed from the rows). Results come back from files, IndexedDB and workers, so every part has
 * a zod schema and the types are inferred from it.
 */
import { z } from 'zod';
import { DesignSchema, MasBenchAxisSchema } from '../core/trace.ts';

export const EVAL_FORMAT = 'baton.eval/1';

/** Bounds that keep an untrusted results document from exhausting memory. */
export const EVAL_LIMITS = {
  methods: 32,
  axes: 5,
  values: 11,
  tasks: 100_000,
  rows: 500_000,
  seeds: 16,
} as const;

const name = z.string().min(1).max(200);
const nonNeg = z.number().finite().nonnegative();

/** The standalone archive agents, by their short names (`--methods cot,sc,…`). */
export const ARCHIVE_METHODS = ['cot', 'sc', 'debate', 'reflexion', 'ceo'] as const;
export const ArchiveMethodSchema = z.enum(ARCHIVE_METHODS);
export type ArchiveMethod = z.infer<typeof ArchiveMethodSchema>;

export const MethodSchema = z.discriminatedUnion('kind', [
  /** One archive agent alone, given the whole task, at the archive's defaults. */
  z.object({ kind: z.literal('agent'), agent: ArchiveMethodSchema }),
  /** A fixed design (from a file or a trace), run as it is on every task. */
  z.object({ kind: z.literal('design'), name, design: DesignSchema }),
  /** The construction policy: a checkpoint (`prior`, `random:S` or a file's name), greedy or sampled. */
  z.object({ kind: z.literal('policy'), checkpoint: name, greedy: z.boolean() }),
  /**
   * An orchestrator LLM writes each task's design: `provider` or `provider:<model>` (the endpoint's
   * model writes it), or an in-tab model name; unavailable where the caller cannot run that model.
   */
  z.object({ kind: z.literal('orchestrator'), model: name }),
]);
export type Method = z.infer<typeof MethodSchema>;

export const AxisValuesSchema = z.object({
  axis: MasBenchAxisSchema,
  values: z.array(z.number().int().min(2).max(12)).min(1).max(EVAL_LIMITS.values),
});
export type AxisValues = z.infer<typeof AxisValuesSchema>;

export const TaskSetSchema = z.discriminatedUnion('kind', [
  /**
   * Generated MASBench: `n` tasks per axis value. Task i of a cell has seed `taskSeed(seed, i')`,
   * taking the i-th index i' whose seed falls in `split` (docs/masbench.md; `all` takes every one).
   */
  z.object({
    kind: z.literal('masbench'),
    axes: z.array(AxisValuesSchema).min(1).max(EVAL_LIMITS.axes),
    n: z.number().int().min(1).max(10_000),
    seed: z.number().int().min(0).max(0xffffffff),
    split: z.enum(['train', 'test', 'all']),
  }),
  /** A user's JSONL (`{ query, answer, checker? }` per line), held by name; tasks come with the config. */
  z.object({ kind: z.literal('jsonl'), name }),
  /** The tasks of imported or earlier traces. */
  z.object({ kind: z.literal('traces'), name }),
]);
export type TaskSet = z.infer<typeof TaskSetSchema>;

export const BackendInfoSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('simulated') }),
  z.object({ kind: z.literal('remote'), provider: name, baseUrl: name, model: name }),
]);

export const EvalConfigSchema = z.object({
  methods: z.array(MethodSchema).min(1).max(EVAL_LIMITS.methods),
  taskSet: TaskSetSchema,
  /** Run seeds: every (method, task) runs once per seed (the simulator's and the policy's draws). */
  seeds: z.array(z.number().int().min(0).max(0xffffffff)).min(1).max(EVAL_LIMITS.seeds),
  backend: BackendInfoSchema,
  /** Hard limits for the whole evaluation (all methods and tasks together). */
  budget: z.object({ tokens: nonNeg.optional(), usd: nonNeg.optional() }),
});
export type EvalConfig = z.infer<typeof EvalConfigSchema>;

/** One (method, task, seed): what ran and what it cost. */
export const EvalRowSchema = z.object({
  /** `method|task|seed`: the journal's key, unique in a document. */
  key: z.string().max(1000),
  method: name,
  taskId: z.string().max(1000),
  seed: z.number().int(),
  axis: MasBenchAxisSchema.nullable(),
  value: z.number().int().nullable(),
  traceId: z.string().max(200),
  /** Graded result; null when the run gave no answer to grade (failed) or there is no ground truth. */
  correct: z.boolean().nullable(),
  status: z.enum(['completed', 'failed', 'cancelled']),
  /** Prompt + completion tokens of the whole run. */
  tokens: nonNeg,
  promptTokens: nonNeg,
  completionTokens: nonNeg,
  costUsd: nonNeg,
  /** First to last event of the run, ms. */
  wallMs: nonNeg,
  agents: nonNeg,
  llmCalls: nonNeg,
  /** The orchestrator's own calls (an `orchestrator:` method), already counted in the fields above. */
  orchestrator: z.object({ tokens: nonNeg, costUsd: nonNeg, calls: nonNeg }).optional(),
});
export type EvalRow = z.infer<typeof EvalRowSchema>;

const interval = z.tuple([z.number().min(0).max(1), z.number().min(0).max(1)]);

export const ScoreSchema = z.object({
  n: nonNeg,
  correct: nonNeg,
  /** correct / n, where a failed run counts as wrong (n counts every finished row). */
  accuracy: z.number().min(0).max(1),
  /** 95% Wilson score interval of the accuracy. */
  ci95: interval,
  meanTokens: nonNeg,
  totalTokens: nonNeg,
  meanCostUsd: nonNeg,
  totalCostUsd: nonNeg,
  meanWallMs: nonNeg,
  agentsPerTask: nonNeg,
  callsPerTask: nonNeg,
  failed: nonNeg,
});
export type Score = z.infer<typeof ScoreSchema>;

export const MethodSummarySchema = z.object({
  method: name,
  label: z.string().max(300),
  available: z.boolean(),
  /** Why the method did not run (e.g. no orchestrator in this build). */
  unavailable: z.string().max(1000).optional(),
  overall: ScoreSchema,
  perValue: z.array(ScoreSchema.extend({ axis: MasBenchAxisSchema, value: z.number().int() })).max(200),
});
export type MethodSummary = z.infer<typeof MethodSummarySchema>;

/** McNemar's test on the tasks both methods were graded on (stats.ts). */
export const PairSchema = z.object({
  a: name,
  b: name,
  /** Tasks (× seeds) both ran. */
  n: nonNeg,
  /** a right, b wrong. */
  aOnly: nonNeg,
  /** a wrong, b right. */
  bOnly: nonNeg,
  /** accuracy(a) − accuracy(b) on the paired tasks. */
  difference: z.number().min(-1).max(1),
  /** Exact two-sided binomial p-value and its mid-p version. */
  pExact: z.number().min(0).max(1),
  pMid: z.number().min(0).max(1),
});
export type Pair = z.infer<typeof PairSchema>;

export const SummarySchema = z.object({
  methods: z.array(MethodSummarySchema).max(EVAL_LIMITS.methods),
  pairs: z.array(PairSchema).max(1000),
  /** Cost axis of the Pareto front: USD when anything was billed, else mean tokens per task. */
  costMetric: z.enum(['usd', 'tokens']),
  /** Methods no other method beats on both accuracy and cost, cheapest first. */
  pareto: z.array(name).max(EVAL_LIMITS.methods),
});
export type Summary = z.infer<typeof SummarySchema>;

export const EvalDocumentSchema = z.object({
  format: z.literal(EVAL_FORMAT),
  createdAt: z.iso.datetime(),
  config: EvalConfigSchema,
  /** Every planned row finished. False after a stop at the budget or a cancel. */
  complete: z.boolean(),
  planned: nonNeg,
  /** Spend of this document's runs; `wasted` is spend of runs stopped mid-way (not in any row). */
  spend: z.object({ tokens: nonNeg, usd: nonNeg, wastedTokens: nonNeg, wastedUsd: nonNeg }),
  /** Why the run stopped before the end, when it did. */
  stopped: z.string().max(2000).optional(),
  summary: SummarySchema,
  rows: z.array(EvalRowSchema).max(EVAL_LIMITS.rows),
});
export type EvalDocument = z.infer<typeof EvalDocumentSchema>;
