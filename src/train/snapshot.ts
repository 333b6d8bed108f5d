/**
 * A trainer's whole state, `baton.train/1`: config, the starting (reference) checkpoint, the
 * current checkpoint, Adam's moments and step count, the REINFORCE baseline and every finished
 * iteration's metrics. A trainer created from it continues bit-identically on the CPU backend
 * (loop.test.ts). The Train page keeps it in IndexedDB; files and links carry it as JSON, with the
 * optimizer arrays as base64 of little-endian float32. Read back through `parseSnapshot`, which
 * checks every field and size before anything is built from it.
 */
import { z } from 'zod';
import type { TrainState } from '../gpu/index.ts';
import { PolicyCheckpointSchema } from '../policy/index.ts';
import { base64ToBytes, bytesToBase64 } from './base64.ts';
import type { TrainConfigSchema } from './config.ts';
import { StoredTrainConfigSchema } from './config.ts';
import type { IterationMetrics } from './metrics.ts';

export const SNAPSHOT_FORMAT = 'baton.train/1';
/** Largest parameter arena a snapshot may carry (floats). */
export const MAX_SNAPSHOT_PARAMS = 4_000_000;
/** Most iterations of history a snapshot keeps. */
export const MAX_SNAPSHOT_HISTORY = 100_000;

export interface TrainerSnapshot {
  format: typeof SNAPSHOT_FORMAT;
  config: z.infer<typeof TrainConfigSchema>;
  start: z.infer<typeof PolicyCheckpointSchema>;
  checkpoint: z.infer<typeof PolicyCheckpointSchema>;
  optimizer: TrainState | null;
  baseline: number | null;
  iteration: number;
  updates: number;
  history: IterationMetrics[];
}

const floats = z
  .instanceof(Float32Array)
  .refine((a) => a.length <= MAX_SNAPSHOT_PARAMS, { message: `more than ${MAX_SNAPSHOT_PARAMS} values` })
  .refine((a) => a.every((x) => Number.isFinite(x)), { message: 'values must be finite' });

const OptimizerSchema = z
  .object({ params: floats, m: floats, v: floats, t: z.number().int().min(0) })
  .refine((s) => s.m.length === s.params.length && s.v.length === s.params.length, {
    message: 'params, m and v must have the same length',
  });

const num = z.number().finite();
const UpdateSchema = z.object({
  count: z.number().int().min(0),
  loss: num,
  kl: num,
  clipFraction: num,
  nodeEntropy: num,
  edgeEntropy: num,
  gradNorm: num,
  ratioMean: num,
  ratioMin: num,
  ratioMax: num,
});

/** History rows are checked for their numbers; sampled designs are kept as given (page shows them as text). */
const IterationSchema = z
  .object({
    iteration: z.number().int().min(1),
    episodes: z.number().int().min(0),
    meanReward: num,
    rewardStd: num,
    accuracy: num,
    tokens: num,
    steps: num,
    agents: num,
    edges: num,
    depth: num,
    roles: z.record(z.string().max(80), num),
    perAxis: z.record(
      z.string().max(40),
      z.object({ n: z.number().int(), accuracy: num, reward: num, tokens: num, agents: num }),
    ),
    update: UpdateSchema,
    samples: z.array(z.any()).max(16),
    timings: z
      .object({
        rolloutMs: num,
        updateMs: num,
        phases: z.object({ encodeMs: num, oldLogpMs: num, stepsMs: num, readBackMs: num }).optional(),
      })
      .optional(),
  })
  .passthrough();

export const TrainerSnapshotSchema = z
  .object({
    format: z.literal(SNAPSHOT_FORMAT),
    config: StoredTrainConfigSchema,
    start: PolicyCheckpointSchema,
    checkpoint: PolicyCheckpointSchema,
    optimizer: OptimizerSchema.nullable(),
    baseline: num.nullable(),
    iteration: z.number().int().min(0),
    updates: z.number().int().min(0),
    history: z.array(IterationSchema).max(MAX_SNAPSHOT_HISTORY),
  })
  .superRefine((s, ctx) => {
    if (s.history.length > s.iteration)
      ctx.addIssue({ code: 'custom', path: ['history'], message: 'more history rows than iterations' });
    if (JSON.stringify(s.start.config) !== JSON.stringify(s.checkpoint.config))
      ctx.addIssue({
        code: 'custom',
        path: ['checkpoint', 'config'],
        message: 'the current checkpoint has another network shape than the starting one',
      });
  });

export type SnapshotResult = { ok: true; snapshot: TrainerSnapshot } | { ok: false; problems: string[] };

/** Checks a snapshot (as structured-cloned from IndexedDB, or decoded from JSON by `snapshotFromJson`). */
export function parseSnapshot(input: unknown): SnapshotResult {
  const r = TrainerSnapshotSchema.safeParse(input);
  if (r.success) return { ok: true, snapshot: r.data as TrainerSnapshot };
  return {
    ok: false,
    problems: r.error.issues
      .slice(0, 8)
      .map((i) => `${i.path.length > 0 ? i.path.join('.') : 'snapshot'}: ${i.message}`),
  };
}

/** Little-endian float32 bytes as base64. */
function toBase64(a: Float32Array): string {
  const bytes = new Uint8Array(a.length * 4);
  const view = new DataView(bytes.buffer);
  a.forEach((x, i) => view.setFloat32(i * 4, x, true));
  return bytesToBase64(bytes);
}

function fromBase64(s: string): Float32Array | null {
  const bytes = base64ToBytes(s);
  if (!bytes || bytes.length % 4 !== 0) return null;
  const view = new DataView(bytes.buffer);
  return Float32Array.from({ length: bytes.length / 4 }, (_, i) => view.getFloat32(i * 4, true));
}

/** JSON text of a snapshot (optimizer arrays as base64). */
export function snapshotToJson(s: TrainerSnapshot): string {
  const o = s.optimizer;
  return JSON.stringify({
    ...s,
    optimizer: o ? { params: toBase64(o.params), m: toBase64(o.m), v: toBase64(o.v), t: o.t } : null,
  });
}

/**
 * Where the Train page keeps its run's snapshot in IndexedDB (database, object store, key): the
 * page's snapshot storage reads and writes it, and the training worker writes it while a run goes.
 */
export const SNAPSHOT_IDB = { db: 'baton-train', store: 'snapshots', key: 'latest' } as const;

/** Largest snapshot file read (bytes of text). */
export const MAX_SNAPSHOT_TEXT = 64 * 1024 * 1024;

/** Parses and checks snapshot JSON text. */
export function snapshotFromJson(text: string): SnapshotResult {
  if (text.length > MAX_SNAPSHOT_TEXT)
    return { ok: false, problems: [`snapshot: larger than ${MAX_SNAPSHOT_TEXT / 1024 / 1024} MiB`] };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, problems: [`snapshot: not JSON (${e instanceof Error ? e.message : String(e)})`] };
  }
  if (typeof raw !== 'object' || raw === null) return { ok: false, problems: ['snapshot: not an object'] };
  const o = (raw as { optimizer?: unknown }).optimizer;
  if (o !== null && o !== undefined) {
    if (typeof o !== 'object') return { ok: false, problems: ['optimizer: not an object'] };
    const rec = o as Record<string, unknown>;
    const dec: Record<string, unknown> = { t: rec.t };
    for (const k of ['params', 'm', 'v']) {
      const v = rec[k];
      const a = typeof v === 'string' ? fromBase64(v) : null;
      if (!a) return { ok: false, problems: [`optimizer.${k}: not base64 of float32 values`] };
      dec[k] = a;
    }
    (raw as { optimizer: unknown }).optimizer = dec;
  }
  return parseSnapshot(raw);
}
