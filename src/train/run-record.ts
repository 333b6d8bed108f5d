/**
 * A training run as a small document (`baton.trainrun/1`) for share links and the read-only view:
 * the config (seeds included), where it started, its metric curves per iteration, the evaluation
 * table, and — only when it fits — the trained parameters as an 8-bit quantised delta from the
 * starting policy. A run that started from a built-in policy (`prior`, `random:N`) can be re-run
 * from the record alone on the CPU backend, and `firstDifference` checks the re-run reproduced
 * every recorded number exactly. Pure: the store encodes it as a link (src/share `encodeJsonLink`).
 */
import { z } from 'zod';
import {
  DEFAULT_POOL,
  priorCheckpoint,
  randomCheckpoint,
  type PolicyCheckpoint,
  type RolePool,
} from '../policy/index.ts';
import { base64ToBytes, bytesToBase64 } from './base64.ts';
import { StoredTrainConfigSchema, type TrainConfig } from './config.ts';
import type { IterationMetrics } from './metrics.ts';

export const RUN_RECORD_FORMAT = 'baton.trainrun/1';
export const MAX_RECORD_ITERATIONS = 5_000;

/** The curves a record keeps, one value per iteration. */
export const CURVE_KEYS = [
  'meanReward',
  'rewardStd',
  'accuracy',
  'tokens',
  'steps',
  'agents',
  'edges',
  'depth',
  'loss',
  'kl',
  'clipFraction',
  'nodeEntropy',
  'edgeEntropy',
  'gradNorm',
  'ratioMean',
] as const;
export type CurveKey = (typeof CURVE_KEYS)[number];

const UPDATE_KEYS = new Set<CurveKey>([
  'loss',
  'kl',
  'clipFraction',
  'nodeEntropy',
  'edgeEntropy',
  'gradNorm',
  'ratioMean',
]);

const num = z.number().finite();
const series = z.array(num).max(MAX_RECORD_ITERATIONS);

export const EvalRowSchema = z.object({
  policy: z.string().min(1).max(120),
  n: z.number().int().min(0),
  accuracy: num,
  lo: num,
  hi: num,
  tokens: num,
  agents: num,
  edges: num,
  reward: num,
});
export type EvalRow = z.infer<typeof EvalRowSchema>;

const QuantisedSchema = z.object({
  encoding: z.literal('int8-delta/1'),
  /** Per tensor: the scale s (value = start + s·q) and q as base64 of signed bytes. */
  tensors: z.record(z.string().max(80), z.object({ scale: num.min(0), q: z.string().max(8_000_000) })),
});

export const RunRecordSchema = z
  .object({
    format: z.literal(RUN_RECORD_FORMAT),
    config: StoredTrainConfigSchema,
    /** The starting checkpoint's name: `prior` and `random:N` can be rebuilt, others cannot. */
    from: z.string().min(1).max(200),
    iterations: z.number().int().min(0).max(MAX_RECORD_ITERATIONS),
    curves: z.object(
      Object.fromEntries(CURVE_KEYS.map((k) => [k, series])) as Record<CurveKey, typeof series>,
    ),
    roles: z.record(z.string().max(80), series),
    evaluation: z.array(EvalRowSchema).max(32),
    checkpoint: QuantisedSchema.optional(),
  })
  .superRefine((r, ctx) => {
    for (const k of CURVE_KEYS)
      if (r.curves[k].length !== r.iterations)
        ctx.addIssue({
          code: 'custom',
          path: ['curves', k],
          message: `${r.curves[k].length} values for ${r.iterations} iterations`,
        });
  });
export type RunRecord = z.infer<typeof RunRecordSchema>;

const valueOf = (m: IterationMetrics, k: CurveKey): number =>
  UPDATE_KEYS.has(k)
    ? (m.update[k as keyof IterationMetrics['update']] as number)
    : (m[k as keyof IterationMetrics] as number);

export function curvesOf(history: readonly IterationMetrics[]): Record<CurveKey, number[]> {
  return Object.fromEntries(CURVE_KEYS.map((k) => [k, history.map((m) => valueOf(m, k))])) as Record<
    CurveKey,
    number[]
  >;
}

/** The built-in starting policy a name stands for, or null (only the default role pool is rebuilt). */
export function builtInStart(name: string, pool: RolePool = DEFAULT_POOL): PolicyCheckpoint | null {
  if (pool.version !== DEFAULT_POOL.version) return null;
  if (name === 'prior') return priorCheckpoint(pool);
  const m = /^random:(\d{1,10})$/.exec(name);
  return m ? randomCheckpoint(pool, Number(m[1])) : null;
}

/**
 * current − start per tensor, quantised symmetrically to int8: s = max|Δ|/127, q = round(Δ/s).
 * The error per value is at most s/2.
 */
export function quantiseDelta(
  start: PolicyCheckpoint,
  current: PolicyCheckpoint,
): z.infer<typeof QuantisedSchema> {
  const tensors: Record<string, { scale: number; q: string }> = {};
  for (const [k, cur] of Object.entries(current.params)) {
    const base = start.params[k];
    if (!base || base.length !== cur.length) throw new Error(`start and current differ in tensor ${k}`);
    const delta = cur.map((x, i) => x - (base[i] as number));
    const max = delta.reduce((m, d) => Math.max(m, Math.abs(d)), 0);
    const scale = max / 127;
    const q = new Uint8Array(delta.length);
    delta.forEach((d, i) => (q[i] = scale === 0 ? 0 : Math.round(d / scale) & 255));
    tensors[k] = { scale, q: bytesToBase64(q) };
  }
  return { encoding: 'int8-delta/1', tensors };
}

/** The trained checkpoint a record carries, rebuilt on its start; null with a reason when it cannot be. */
export function recordCheckpoint(
  r: RunRecord,
  start: PolicyCheckpoint,
): { ok: true; checkpoint: PolicyCheckpoint } | { ok: false; reason: string } {
  if (!r.checkpoint)
    return { ok: false, reason: 'the link does not carry the trained parameters (they did not fit)' };
  const params: Record<string, number[]> = {};
  for (const [k, base] of Object.entries(start.params)) {
    const t = r.checkpoint.tensors[k];
    if (!t) return { ok: false, reason: `the link lacks tensor ${k}` };
    const q = base64ToBytes(t.q);
    if (!q || q.length !== base.length) return { ok: false, reason: `tensor ${k} has the wrong size` };
    params[k] = base.map((x, i) => x + t.scale * (((q[i] as number) << 24) >> 24));
  }
  return {
    ok: true,
    checkpoint: {
      ...start,
      name: `shared:${r.config.algo}:${r.config.preset}:${r.iterations}`,
      params,
      meta: {
        trainedFrom: r.from,
        iterations: r.iterations,
        seed: r.config.seed,
        jpss: r.config.jpss,
        quantised: 'int8-delta/1',
      },
    },
  };
}

export interface RecordInput {
  config: TrainConfig;
  from: string;
  history: readonly IterationMetrics[];
  evaluation?: readonly EvalRow[];
  /** Include the trained parameters as an int8 delta from `start`. */
  trained?: { start: PolicyCheckpoint; current: PolicyCheckpoint };
}

export function runRecord(i: RecordInput): RunRecord {
  const roleNames = [...new Set(i.history.flatMap((m) => Object.keys(m.roles)))];
  return {
    format: RUN_RECORD_FORMAT,
    config: i.config,
    from: i.from,
    iterations: i.history.length,
    curves: curvesOf(i.history),
    roles: Object.fromEntries(roleNames.map((n) => [n, i.history.map((m) => m.roles[n] ?? 0)])),
    evaluation: [...(i.evaluation ?? [])],
    ...(i.trained ? { checkpoint: quantiseDelta(i.trained.start, i.trained.current) } : {}),
  };
}

export type RecordResult = { ok: true; record: RunRecord } | { ok: false; problems: string[] };

export function parseRunRecord(input: unknown): RecordResult {
  const r = RunRecordSchema.safeParse(input);
  if (r.success) return { ok: true, record: r.data };
  return {
    ok: false,
    problems: r.error.issues
      .slice(0, 8)
      .map((x) => `${x.path.length ? x.path.join('.') : 'record'}: ${x.message}`),
  };
}

/** The first recorded number a re-run did not reproduce exactly, or null when all match. */
export function firstDifference(
  r: RunRecord,
  rerun: readonly IterationMetrics[],
): { key: CurveKey | 'iterations'; iteration: number; recorded: number; rerun: number } | null {
  if (rerun.length !== r.iterations)
    return { key: 'iterations', iteration: 0, recorded: r.iterations, rerun: rerun.length };
  const got = curvesOf(rerun);
  for (const k of CURVE_KEYS)
    for (let i = 0; i < r.iterations; i++)
      // === (not Object.is): JSON writes −0 as 0, and a re-run's −0 equals a recorded 0.
      if (got[k][i] !== r.curves[k][i])
        return { key: k, iteration: i + 1, recorded: r.curves[k][i] as number, rerun: got[k][i] as number };
  return null;
}
