/**
 * The orchestrator GRPO trainer's state as JSON (a worker stores it in IndexedDB, `baton train`
 * writes it beside the model folder): config, iterations done, per-iteration metrics, and the
 * learner's parameters and Adam moments (base64 f32). Read back through a zod schema with size
 * limits; a checkpoint made for another model (other parameter count) is refused with the reason.
 */
import { z } from 'zod';
import type { TrainState } from '../gpu/index.ts';
import { base64ToBytes, bytesToBase64 } from './base64.ts';
import { OrchestratorTrainConfigSchema, type OrchestratorTrainConfig } from './orchestrator-config.ts';

export const ORCHESTRATOR_CHECKPOINT_FORMAT = 'baton.orchestrator-grpo/1';
export const MAX_CHECKPOINT_PARAMS = 16_000_000;
export const MAX_CHECKPOINT_TEXT = 256 * 1024 * 1024;
const MAX_HISTORY = 100_000;

export interface OrchestratorIterationMetrics {
  iteration: number;
  /** Designs sampled (B·G). */
  samples: number;
  reward: number;
  rewardStd: number;
  /** Share of sampled designs graded correct. */
  accuracy: number;
  /** Tokens of a design's run (sub-agent calls), mean per sample. */
  tokensPerTask: number;
  /** Tokens the model wrote per design, and the share of them forced by the grammar. */
  designTokens: number;
  forcedShare: number;
  agents: number;
  depth: number;
  validity: number;
  /** Share of low-DoM samples that delegate to an agent (null: no low-DoM query). */
  lowDomDelegated: number | null;
  kl: number;
  entropy: number;
  clipFraction: number;
  loss: number;
  gradNorm: number;
  updates: number;
  /** Tokens with a choice that the updates trained on (all epochs). */
  trainedTokens: number;
  /** With a clock: phase times (ms) and throughput. */
  timings?: { rolloutMs: number; runMs: number; updateMs: number };
  rolloutTokensPerSec?: number;
  updateTokensPerSec?: number;
}

export interface OrchestratorCheckpoint {
  format: typeof ORCHESTRATOR_CHECKPOINT_FORMAT;
  /** The SFT model's name (config.json provenance) it was trained from. */
  model: string;
  config: OrchestratorTrainConfig;
  iteration: number;
  history: OrchestratorIterationMetrics[];
  /** Flat parameters and Adam moments, in the training graph's parameter order. */
  params: string;
  m: string;
  v: string;
  t: number;
}

const num = z.number().finite();
const MetricsSchema = z
  .object({
    iteration: z.number().int().min(1),
    samples: z.number().int().min(0),
    reward: num,
    rewardStd: num,
    accuracy: num,
    tokensPerTask: num,
    designTokens: num,
    forcedShare: num,
    agents: num,
    depth: num,
    validity: num,
    lowDomDelegated: num.nullable(),
    kl: num,
    entropy: num,
    clipFraction: num,
    loss: num,
    gradNorm: z.number(),
    updates: z.number().int().min(0),
    trainedTokens: z.number().int().min(0),
    timings: z.object({ rolloutMs: num, runMs: num, updateMs: num }).optional(),
    rolloutTokensPerSec: num.optional(),
    updateTokensPerSec: num.optional(),
  })
  .strict();

const b64 = z.string().max(Math.ceil((MAX_CHECKPOINT_PARAMS * 4) / 3) + 4);

export const OrchestratorCheckpointSchema = z
  .object({
    format: z.literal(ORCHESTRATOR_CHECKPOINT_FORMAT),
    model: z.string().min(1).max(200),
    config: OrchestratorTrainConfigSchema,
    iteration: z.number().int().min(0),
    history: z.array(MetricsSchema).max(MAX_HISTORY),
    params: b64,
    m: b64,
    v: b64,
    t: z.number().int().min(0),
  })
  .strict();

const f32ToB64 = (a: Float32Array): string =>
  bytesToBase64(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));

function b64ToF32(s: string, what: string): Float32Array {
  const bytes = base64ToBytes(s);
  if (!bytes || bytes.length % 4 !== 0)
    throw new Error(`bad orchestrator checkpoint: ${what} is not base64 f32 data`);
  const out = new Float32Array(bytes.length / 4);
  new Uint8Array(out.buffer).set(bytes);
  return out;
}

export function checkpointFromState(o: {
  config: OrchestratorTrainConfig;
  iteration: number;
  history: readonly OrchestratorIterationMetrics[];
  model: string;
  state: TrainState;
}): OrchestratorCheckpoint {
  return {
    format: ORCHESTRATOR_CHECKPOINT_FORMAT,
    model: o.model,
    config: o.config,
    iteration: o.iteration,
    history: [...o.history],
    params: f32ToB64(o.state.params),
    m: f32ToB64(o.state.m),
    v: f32ToB64(o.state.v),
    t: o.state.t,
  };
}

/** The optimizer state of a checkpoint, checked against the training graph's parameters. */
export function stateOfCheckpoint(
  c: OrchestratorCheckpoint,
  params: readonly { shape: readonly number[] }[],
): TrainState {
  const expected = params.reduce((a, p) => a + p.shape.reduce((x, y) => x * y, 1), 0);
  const state = {
    params: b64ToF32(c.params, 'params'),
    m: b64ToF32(c.m, 'm'),
    v: b64ToF32(c.v, 'v'),
    t: c.t,
  };
  for (const k of ['params', 'm', 'v'] as const)
    if (state[k].length !== expected)
      throw new Error(
        `bad orchestrator checkpoint: ${k} holds ${state[k].length} values but the model has ${expected} parameters (a checkpoint of another model?)`,
      );
  if (!state.params.every(Number.isFinite))
    throw new Error('bad orchestrator checkpoint: a parameter is not finite');
  return state;
}

export type CheckpointResult =
  { ok: true; checkpoint: OrchestratorCheckpoint } | { ok: false; problems: string[] };

/** Parses checkpoint JSON text (size-limited; problems read "path: message"). */
export function parseOrchestratorCheckpoint(text: string): CheckpointResult {
  if (text.length > MAX_CHECKPOINT_TEXT)
    return { ok: false, problems: [`the checkpoint is larger than ${MAX_CHECKPOINT_TEXT} characters`] };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, problems: [`not JSON: ${e instanceof Error ? e.message : String(e)}`] };
  }
  const r = OrchestratorCheckpointSchema.safeParse(raw);
  if (r.success) return { ok: true, checkpoint: r.data as OrchestratorCheckpoint };
  return {
    ok: false,
    problems: r.error.issues.map(
      (i) => `${i.path.length > 0 ? i.path.join('.') : 'checkpoint'}: ${i.message}`,
    ),
  };
}
