/**
 * A run of GRPO of the orchestrator LM as a small document (`baton.orchrun/1`) for share links and
 * the read-only view: the whole config (every constant, checked by the trainer's own schema), the
 * SFT model it started from (name, parameter count, positions, prompt format), the backend and why,
 * the curves the live charts draw (one value per iteration, null for a gap), the held-out
 * before/after evaluation with its paired intervals, and a few designs sampled in the last
 * iteration. The trained weights are never in it: as 8-bit values they take one byte per parameter
 * (`q8WeightChars`), far past a link's budget for the shipped models; the view says so. Pure: the
 * store encodes it as a link (src/share `encodeJsonLink`, which also removes secrets).
 */
import { z } from 'zod';
import { DesignSchema } from '../core/trace.ts';
import type { OrchestratorIterationMetrics } from './orchestrator-checkpoint.ts';
import { OrchestratorTrainConfigSchema } from './orchestrator-config.ts';

export const ORCH_RUN_FORMAT = 'baton.orchrun/1';
/** Most iterations a record holds (the page keeps at most this many too). */
export const MAX_ORCH_RECORD_ITERATIONS = 5_000;
/** Most designs a record holds, and the longest model text kept of each. */
export const MAX_RECORD_SAMPLES = 4;
export const MAX_SAMPLE_TEXT = 1_500;

/** The curves a record keeps, one value per iteration (the live charts' series and a few more). */
export const ORCH_CURVE_KEYS = [
  'reward',
  'rewardStd',
  'accuracy',
  'tokens',
  'agents',
  'depth',
  'delegated',
  'kl',
  'entropy',
  'clipFraction',
  'rolloutTps',
  'updateTps',
  'designTokens',
  'forcedShare',
  'validity',
  'loss',
  'gradNorm',
] as const;
export type OrchCurveKey = (typeof ORCH_CURVE_KEYS)[number];
export type OrchCurves = Record<OrchCurveKey | 'iteration', (number | null)[]>;

const PICK: Record<OrchCurveKey, (m: OrchestratorIterationMetrics) => number | null | undefined> = {
  reward: (m) => m.reward,
  rewardStd: (m) => m.rewardStd,
  accuracy: (m) => m.accuracy,
  tokens: (m) => m.tokensPerTask,
  agents: (m) => m.agents,
  depth: (m) => m.depth,
  delegated: (m) => m.lowDomDelegated,
  kl: (m) => m.kl,
  entropy: (m) => m.entropy,
  clipFraction: (m) => m.clipFraction,
  rolloutTps: (m) => m.rolloutTokensPerSec,
  updateTps: (m) => m.updateTokensPerSec,
  designTokens: (m) => m.designTokens,
  forcedShare: (m) => m.forcedShare,
  validity: (m) => m.validity,
  loss: (m) => m.loss,
  gradNorm: (m) => m.gradNorm,
};

/** One column per curve, one row per iteration; a value the metrics lack or that is not finite is null. */
export function orchestratorCurves(history: readonly OrchestratorIterationMetrics[]): OrchCurves {
  const col = (f: (m: OrchestratorIterationMetrics) => number | null | undefined): (number | null)[] =>
    history.map((m) => {
      const v = f(m);
      return v === undefined || v === null || !Number.isFinite(v) ? null : v;
    });
  const out = { iteration: col((m) => m.iteration) } as OrchCurves;
  for (const k of ORCH_CURVE_KEYS) out[k] = col(PICK[k]);
  return out;
}

const num = z.number().finite();
const series = z.array(num.nullable()).max(MAX_ORCH_RECORD_ITERATIONS);
const short = z.string().max(200);

const SummarySchema = z.object({
  n: z.number().int().min(0),
  accuracy: num,
  interval: z.tuple([num, num]),
  tokens: num,
  agents: num,
  designTokens: num,
  forcedShare: num,
  validity: num,
  lowDomDelegated: num.nullable(),
});
const DiffSchema = z.object({
  n: z.number().int().min(0),
  difference: num,
  interval: z.tuple([num, num]),
  onlyA: z.number().int().min(0),
  onlyB: z.number().int().min(0),
  reps: z.number().int().min(0),
});
/** The held-out before (SFT) / after (trained) evaluation, as the Train page shows it. */
export const OrchRecordEvaluationSchema = z.object({
  iteration: z.number().int().min(0),
  tasks: z.number().int().min(1),
  before: SummarySchema,
  after: SummarySchema,
  accuracy: DiffSchema,
  tokens: DiffSchema,
});

export const OrchRecordSampleSchema = z.object({
  taskId: short,
  axis: z.string().max(40),
  value: z.number().int().min(0).max(100),
  dom: z.enum(['low', 'high']),
  text: z.string().max(MAX_SAMPLE_TEXT),
  design: DesignSchema.nullable(),
  reward: num,
  correct: z.boolean(),
});
export type OrchRecordSample = z.output<typeof OrchRecordSampleSchema>;

export const OrchRunRecordSchema = z
  .object({
    format: z.literal(ORCH_RUN_FORMAT),
    /** The SFT model the run started from: its fp32 ONNX weights were read from models/<id>/. */
    model: z.object({
      id: short.min(1),
      name: short.min(1),
      params: z.number().int().min(0).max(16_000_000_000),
      positions: z.number().int().min(1).max(1_000_000),
      /** The design text format it writes (`tiny`, `tiny2`). */
      promptFormat: z.string().max(40).optional(),
    }),
    backend: z.object({ backend: z.string().max(40), reason: z.string().max(2000) }).nullable(),
    config: OrchestratorTrainConfigSchema,
    iterations: z.number().int().min(0).max(1_000_000),
    curves: z.object(
      Object.fromEntries(['iteration', ...ORCH_CURVE_KEYS].map((k) => [k, series])) as Record<
        OrchCurveKey | 'iteration',
        typeof series
      >,
    ),
    evaluation: OrchRecordEvaluationSchema.nullable(),
    /** Iteration the designs were sampled in. */
    sampledAt: z.number().int().min(0),
    sampled: z.array(OrchRecordSampleSchema).max(MAX_RECORD_SAMPLES),
    /** What was left out to keep the link within its budget. */
    omitted: z.array(z.enum(['sample-text', 'samples'])).max(2),
  })
  .strict()
  .superRefine((r, ctx) => {
    const n = r.curves.iteration.length;
    if (n > r.iterations)
      ctx.addIssue({ code: 'custom', path: ['curves'], message: `${n} rows for ${r.iterations} iterations` });
    for (const k of ORCH_CURVE_KEYS)
      if (r.curves[k].length !== n)
        ctx.addIssue({
          code: 'custom',
          path: ['curves', k],
          message: `${r.curves[k].length} values for ${n} iterations`,
        });
  });
export type OrchRunRecord = z.output<typeof OrchRunRecordSchema>;

export interface OrchRecordInput {
  model: OrchRunRecord['model'];
  backend: OrchRunRecord['backend'];
  /** The trainer's whole config (checked against its schema). */
  config: unknown;
  iteration: number;
  history: readonly OrchestratorIterationMetrics[];
  evaluation: OrchRunRecord['evaluation'];
  sampled: readonly OrchRecordSample[];
  omit?: readonly ('sample-text' | 'samples')[];
}

export type OrchRecordResult = { ok: true; record: OrchRunRecord } | { ok: false; problems: string[] };

const problemsOf = (e: z.ZodError, what: string): string[] =>
  e.issues.slice(0, 8).map((x) => `${x.path.length ? x.path.join('.') : what}: ${x.message}`);

/** The record of a run (the last MAX_ORCH_RECORD_ITERATIONS iterations); problems when it cannot be made. */
export function orchRunRecord(i: OrchRecordInput): OrchRecordResult {
  const omit = new Set(i.omit ?? []);
  const history = i.history.slice(-MAX_ORCH_RECORD_ITERATIONS);
  const sampled = omit.has('samples')
    ? []
    : i.sampled.slice(0, MAX_RECORD_SAMPLES).map((s) => {
        if (omit.has('sample-text')) return { ...s, text: '' };
        const long = s.text.length > MAX_SAMPLE_TEXT;
        return { ...s, text: long ? `${s.text.slice(0, MAX_SAMPLE_TEXT - 1)}…` : s.text };
      });
  const r = OrchRunRecordSchema.safeParse({
    format: ORCH_RUN_FORMAT,
    model: i.model,
    backend: i.backend,
    config: i.config,
    iterations: i.iteration,
    curves: orchestratorCurves(history),
    evaluation: i.evaluation,
    sampledAt: i.iteration,
    sampled,
    omitted: [...omit],
  });
  return r.success ? { ok: true, record: r.data } : { ok: false, problems: problemsOf(r.error, 'record') };
}

/** Checks a decoded link's JSON; problems read "path: message". */
export function parseOrchRunRecord(input: unknown): OrchRecordResult {
  const r = OrchRunRecordSchema.safeParse(input);
  return r.success ? { ok: true, record: r.data } : { ok: false, problems: problemsOf(r.error, 'record') };
}

/**
 * Characters the trained weights would add to a link as 8-bit values: one byte per parameter,
 * base64 (4 characters per 3 bytes), before compression.
 */
export const q8WeightChars = (params: number): number => Math.ceil(params / 3) * 4;
