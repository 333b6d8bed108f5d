/**
 * Supervised training of the tiny model on (prompt, target) pairs with the compute core: the
 * training graph of `graph.ts`, AdamW with global-norm clipping, a linear warm-up then a cosine
 * decay of the learning rate. Pure and seeded: the example order comes from the seed, nothing reads
 * a clock, so two runs with the same inputs on the CPU backend give bit-identical weights.
 *
 * Windows: each example fills one row of the [batch, seq] window, from position 0 (as at inference,
 * where the model reads one prompt from position 0), padded at the end. Row t reads token t and is
 * scored on token t + 1 only where that token belongs to the target, so the prompt and the padding
 * carry weight 0; put the end token last in `target` to teach the model to stop. The weights of a
 * step sum to 1, so the loss is the mean cross-entropy per target token of that step. Several
 * short examples are not packed into one row: attention would read across their boundary.
 */
import { z } from 'zod';
import { createRng } from '../core/rng.ts';
import { compile, type BackendChoice, type Model } from '../gpu/index.ts';
import { buildTinyGptGraph, weightsOf } from './graph.ts';
import { checkWeights, type TinyGptWeights } from './spec.ts';

export const LmTrainConfigSchema = z
  .object({
    /** Examples per step (the rows of the window). */
    batch: z.number().int().min(1).max(1024),
    /** Positions per row: the longest prompt + target − 1 must fit (≤ the model's nPositions). */
    seq: z.number().int().min(1).max(4096),
    /** Optimizer steps. */
    steps: z.number().int().min(1).max(10_000_000),
    /** Peak learning rate, reached at the end of the warm-up. */
    lr: z.number().gt(0).max(1).default(3e-3),
    /** Steps of linear warm-up from lr/warmup to lr; 0 = start at lr. */
    warmup: z.number().int().min(0).default(0),
    /** The cosine decay ends at lr·minLrRatio on the last step. */
    minLrRatio: z.number().min(0).max(1).default(0.1),
    /** AdamW's decoupled weight decay λ (applied to every parameter). */
    weightDecay: z.number().min(0).max(1).default(0.01),
    /** Global L2 norm the gradients are clipped to; 0 = no clipping. */
    clip: z.number().min(0).default(1),
    /** Adam's β₂. */
    beta2: z.number().gt(0).lt(1).default(0.99),
    /** Seed of the example order. */
    seed: z.number().int().min(0).max(0xffffffff).default(0),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.warmup >= c.steps && c.warmup > 0)
      ctx.addIssue({
        code: 'custom',
        path: ['warmup'],
        message: `warmup (${c.warmup} steps) must be shorter than the run (${c.steps} steps)`,
      });
  });

export type LmTrainConfig = z.infer<typeof LmTrainConfigSchema>;
export type LmTrainConfigInput = z.input<typeof LmTrainConfigSchema>;

export interface LmExample {
  readonly prompt: readonly number[];
  /** The tokens to learn after the prompt, end token last. */
  readonly target: readonly number[];
}

export interface LmCurvePoint {
  /** 1-based optimizer step. */
  step: number;
  /** Mean cross-entropy per target token of this step's window, before its update (nats). */
  loss: number;
  /** Target tokens the loss covered in this step. */
  tokens: number;
  /** Learning rate of this step's update. */
  lr: number;
  /** Global L2 norm of the gradients before clipping. */
  gradNorm: number;
}

export interface TrainTinyGptOptions {
  weights: TinyGptWeights;
  examples: readonly LmExample[];
  config: LmTrainConfigInput;
  /** Backend from the compute core's `chooseBackend` (default: the CPU backend). */
  choice?: BackendChoice;
  onStep?: (point: LmCurvePoint) => void;
  /** Checked between steps: an aborted run returns the weights after the last finished step. */
  signal?: AbortSignal;
}

export interface TrainTinyGptResult {
  weights: TinyGptWeights;
  curve: LmCurvePoint[];
  /** True when the signal stopped the run before `steps`. */
  stopped: boolean;
}

const CPU: BackendChoice = { backend: 'cpu', reason: 'CPU backend (default)', adapter: null, ctx: null };

/** Learning rate of 0-based step `s`: linear warm-up, then cosine from lr down to lr·minLrRatio at the last step. */
export function lrAt(c: LmTrainConfig, s: number): number {
  if (s < c.warmup) return (c.lr * (s + 1)) / c.warmup;
  const span = c.steps - c.warmup - 1;
  const progress = span <= 0 ? 1 : Math.min(1, (s - c.warmup) / span);
  const min = c.lr * c.minLrRatio;
  return min + (c.lr - min) * 0.5 * (1 + Math.cos(Math.PI * progress));
}

/** Why an example cannot be trained on with this vocabulary and window, or null. */
function exampleProblem(e: LmExample, vocabSize: number, seq: number): string | null {
  if (!Array.isArray(e.prompt) || !Array.isArray(e.target)) return 'prompt and target must be arrays';
  if (e.prompt.length === 0) return 'the prompt is empty';
  if (e.target.length === 0) return 'the target is empty';
  const bad = [...e.prompt, ...e.target].find((t) => !Number.isInteger(t) || t < 0 || t >= vocabSize);
  if (bad !== undefined) return `token ${bad} is outside the vocabulary [0, ${vocabSize})`;
  const need = e.prompt.length + e.target.length - 1;
  if (need > seq) {
    return `prompt ${e.prompt.length} + target ${e.target.length} tokens need seq ≥ ${need}, the window has ${seq}`;
  }
  return null;
}

/** The four inputs of one window (graph.ts's names) and its number of target tokens. */
export function windowInputs(
  rows: readonly LmExample[],
  batch: number,
  seq: number,
): {
  inputs: Record<'ids' | 'positions' | 'targets' | 'weights', Float32Array | Uint32Array>;
  tokens: number;
} {
  if (rows.length > batch) throw new Error(`${rows.length} examples for a window of ${batch} rows`);
  const n = batch * seq;
  const ids = new Uint32Array(n);
  const positions = Uint32Array.from({ length: n }, (_, i) => i % seq);
  const targets = new Uint32Array(n);
  const weights = new Float32Array(n);
  let tokens = 0;
  rows.forEach((e, b) => {
    const s = [...e.prompt, ...e.target];
    for (let t = 0; t + 1 < s.length; t++) {
      ids[b * seq + t] = s[t] as number;
      targets[b * seq + t] = s[t + 1] as number;
      if (t + 1 >= e.prompt.length) {
        weights[b * seq + t] = 1;
        tokens++;
      }
    }
  });
  if (tokens > 0) for (let i = 0; i < n; i++) weights[i] = (weights[i] as number) / tokens;
  return { inputs: { ids, positions, targets, weights }, tokens };
}

/** Trains a copy of `weights` (the input is not changed) and returns the new weights and the loss curve. */
export async function trainTinyGpt(o: TrainTinyGptOptions): Promise<TrainTinyGptResult> {
  const parsed = LmTrainConfigSchema.safeParse(o.config);
  if (!parsed.success) {
    const msg = parsed.error.issues.map((i) => `${i.path.join('.') || 'config'}: ${i.message}`).join('; ');
    throw new Error(`bad training config: ${msg}`);
  }
  const c = parsed.data;
  const model = o.weights.config;
  const problems = checkWeights(o.weights);
  if (problems.length > 0) throw new Error(`bad weights: ${problems.slice(0, 3).join('; ')}`);
  if (c.seq > model.nPositions) {
    throw new Error(
      `bad training config: seq ${c.seq} is longer than the model's ${model.nPositions} positions`,
    );
  }
  if (o.examples.length === 0) throw new Error('no training examples');
  o.examples.forEach((e, i) => {
    const p = exampleProblem(e, model.vocabSize, c.seq);
    if (p) throw new Error(`example ${i}: ${p}`);
  });

  const tg = buildTinyGptGraph(model, { batch: c.batch, seq: c.seq, weights: o.weights });
  const compiled: Model = await compile(o.choice ?? CPU, tg.graph, {
    loss: tg.loss,
    optimizer: { lr: c.lr, weightDecay: c.weightDecay, clipNorm: c.clip, beta2: c.beta2 },
  });
  try {
    const rng = createRng(c.seed);
    let order: number[] = [];
    let next = 0;
    const draw = (): LmExample => {
      if (next >= order.length) {
        order = o.examples.map((_, i) => i);
        for (let i = order.length - 1; i > 0; i--) {
          const j = rng.int(i + 1);
          [order[i], order[j]] = [order[j] as number, order[i] as number];
        }
        next = 0;
      }
      return o.examples[order[next++] as number] as LmExample;
    };
    const curve: LmCurvePoint[] = [];
    let stopped = false;
    for (let s = 0; s < c.steps; s++) {
      if (o.signal?.aborted) {
        stopped = true;
        break;
      }
      const rows = Array.from({ length: c.batch }, draw);
      const { inputs, tokens } = windowInputs(rows, c.batch, c.seq);
      for (const [k, v] of Object.entries(inputs)) compiled.setInput(k, v);
      const lr = lrAt(c, s);
      const r = await compiled.step({ lr });
      if (!Number.isFinite(r.loss))
        throw new Error(`the loss is ${r.loss} at step ${s + 1}: lower lr or clip`);
      const point: LmCurvePoint = { step: s + 1, loss: r.loss, tokens, lr, gradNorm: r.gradNorm };
      curve.push(point);
      o.onStep?.(point);
    }
    return { weights: await weightsOf(compiled, model), curve, stopped };
  } finally {
    compiled.dispose();
  }
}
