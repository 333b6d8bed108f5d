/**
 * Supervised training of the tiny model on (prompt, target) pairs with the compute core: the
 * training graph of `graph.ts`, AdamW with global-norm clipping, a linear warm-up then a cosine
 * decay of the learning rate. Pure and seeded: the example order comes from the seed, nothing reads
 * a clock, so two runs with the same inputs on the CPU backend give bit-identical weights.
 *
 * Windows: examples are laid into the rows of a [batch, seq] window in draw order, each from
 * position 0 (as at inference, where the model reads one prompt from position 0). With `pack` (the
 * default) a row takes further examples while they fit, each its own attention segment, so no
 * example sees another; without it each row holds one example. The rest of a row is padding.
 * Position t reads token t and is scored on token t + 1 only where that token belongs to the
 * target, so the prompt and the padding carry weight 0; put the end token last in `target` to
 * teach the model to stop. The weights of a step sum to 1, so the loss is the mean cross-entropy
 * per target token of that step.
 */
import { z } from 'zod';
import { createRng } from '../core/rng.ts';
import { compile, type BackendChoice, type Model } from '../gpu/index.ts';
import { buildTinyGptGraph, weightsOf } from './graph.ts';
import { checkWeights, type TinyGptWeights } from './spec.ts';

export const LmTrainConfigSchema = z
  .object({
    /** Rows of the window (one example each, or as many as fit when packing). */
    batch: z.number().int().min(1).max(1024),
    /** Positions per row: the longest prompt + target − 1 must fit; ≤ the model's nPositions unless packing. */
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
    /** Pack several examples into a row (attention segments); false = one example per row. */
    pack: z.boolean().default(true),
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
  /** Examples in this step's window. */
  examples: number;
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
  /**
   * Held-out examples scored (forward only, same windows, in their given order) every `every`
   * steps and after the last step; `every` 0 = after the last step only.
   */
  validation?: { examples: readonly LmExample[]; every: number };
  onValidation?: (point: LmValidationPoint) => void;
  /** Checked between steps: an aborted run returns the weights after the last finished step. */
  signal?: AbortSignal;
}

export interface LmValidationPoint {
  /** Optimizer steps done when it was measured. */
  step: number;
  /** Mean cross-entropy per target token over all validation examples (nats). */
  loss: number;
  tokens: number;
}

export interface TrainTinyGptResult {
  weights: TinyGptWeights;
  curve: LmCurvePoint[];
  /** Validation losses (empty without `validation`). */
  validation: LmValidationPoint[];
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
function exampleProblem(e: LmExample, vocabSize: number, seq: number, nPositions: number): string | null {
  if (!Array.isArray(e.prompt) || !Array.isArray(e.target)) return 'prompt and target must be arrays';
  if (e.prompt.length === 0) return 'the prompt is empty';
  if (e.target.length === 0) return 'the target is empty';
  const bad = [...e.prompt, ...e.target].find((t) => !Number.isInteger(t) || t < 0 || t >= vocabSize);
  if (bad !== undefined) return `token ${bad} is outside the vocabulary [0, ${vocabSize})`;
  const need = e.prompt.length + e.target.length - 1;
  const what = `prompt ${e.prompt.length} + target ${e.target.length} tokens`;
  if (need > seq) return `${what} need seq ≥ ${need}, the window has ${seq}`;
  if (need > nPositions) return `${what} need ${need} positions, the model has ${nPositions}`;
  return null;
}

type WindowInputs = Record<'ids' | 'positions' | 'targets' | 'weights', Float32Array | Uint32Array> & {
  segments?: Uint32Array;
};

/** Positions an example occupies: it reads every token but the last. */
const span = (e: LmExample): number => e.prompt.length + e.target.length - 1;

/**
 * The inputs of one window (graph.ts's names) and its number of target tokens: `rows[b]` lists the
 * examples of row b, laid one after the other. `packed` adds `segments` (example k of a row has id
 * k + 1, padding 0); without it a row takes at most one example. A row's padding counts positions
 * from 0 again, modulo `nPositions` (the model's positions; default `seq`), so that every position
 * is one the model has: a packed window may be longer than the model's positions.
 */
export function windowInputs(
  rows: readonly (readonly LmExample[])[],
  batch: number,
  seq: number,
  packed = false,
  nPositions = seq,
): { inputs: WindowInputs; tokens: number } {
  if (rows.length > batch) throw new Error(`${rows.length} rows for a window of ${batch}`);
  const n = batch * seq;
  const ids = new Uint32Array(n);
  const positions = new Uint32Array(n);
  const targets = new Uint32Array(n);
  const weights = new Float32Array(n);
  const segments = new Uint32Array(n);
  let tokens = 0;
  for (let b = 0; b < batch; b++) {
    const list = rows[b] ?? [];
    if (!packed && list.length > 1) throw new Error('several examples in a row need a packed window');
    let at = 0;
    list.forEach((e, k) => {
      if (at + span(e) > seq) throw new Error(`row ${b} overflows the window of ${seq} positions`);
      const s = [...e.prompt, ...e.target];
      for (let t = 0; t + 1 < s.length; t++) {
        const i = b * seq + at + t;
        ids[i] = s[t] as number;
        targets[i] = s[t + 1] as number;
        positions[i] = t;
        segments[i] = k + 1;
        if (t + 1 >= e.prompt.length) {
          weights[i] = 1;
          tokens++;
        }
      }
      at += span(e);
    });
    for (let t = at; t < seq; t++) positions[b * seq + t] = (t - at) % nPositions;
  }
  if (tokens > 0) for (let i = 0; i < n; i++) weights[i] = (weights[i] as number) / tokens;
  const inputs: WindowInputs = { ids, positions, targets, weights };
  if (packed) inputs.segments = segments;
  return { inputs, tokens };
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
  if (!c.pack && c.seq > model.nPositions) {
    throw new Error(
      `bad training config: seq ${c.seq} is longer than the model's ${model.nPositions} positions`,
    );
  }
  if (o.examples.length === 0) throw new Error('no training examples');
  o.examples.forEach((e, i) => {
    const p = exampleProblem(e, model.vocabSize, c.seq, model.nPositions);
    if (p) throw new Error(`example ${i}: ${p}`);
  });
  const val = o.validation;
  if (val) {
    if (!Number.isInteger(val.every) || val.every < 0)
      throw new Error(`validation.every must be a whole number ≥ 0, got ${val.every}`);
    if (val.examples.length === 0) throw new Error('no validation examples');
    val.examples.forEach((e, i) => {
      const p = exampleProblem(e, model.vocabSize, c.seq, model.nPositions);
      if (p) throw new Error(`validation example ${i}: ${p}`);
    });
  }

  const tg = buildTinyGptGraph(model, { batch: c.batch, seq: c.seq, weights: o.weights, packed: c.pack });
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
    // Next fit in draw order: an example that does not fit in this row opens the next one, or
    // waits for the next window when this one is full (`carry`). `take` returns null when a
    // finite source is exhausted.
    let carry: LmExample | null = null;
    const fill = (take: () => LmExample | null): LmExample[][] => {
      const rows: LmExample[][] = [];
      for (let b = 0; b < c.batch; b++) {
        const row: LmExample[] = [];
        let used = 0;
        for (;;) {
          const e = carry ?? take();
          carry = null;
          if (e === null) break;
          if (used + span(e) > c.seq) {
            carry = e;
            break;
          }
          row.push(e);
          used += span(e);
          if (!c.pack) break;
        }
        rows.push(row);
      }
      return rows;
    };
    const setWindow = (rows: LmExample[][]): number => {
      const { inputs, tokens } = windowInputs(rows, c.batch, c.seq, c.pack, model.nPositions);
      for (const [k, v] of Object.entries(inputs)) compiled.setInput(k, v);
      return tokens;
    };
    const validation: LmValidationPoint[] = [];
    const validate = async (step: number): Promise<void> => {
      if (!val) return;
      const saved = carry;
      carry = null;
      let at = 0;
      const take = (): LmExample | null => val.examples[at++] ?? null;
      let sum = 0;
      let tokens = 0;
      while (at < val.examples.length || carry !== null) {
        const n = setWindow(fill(take));
        const r = await compiled.step({ backward: false });
        sum += r.loss * n;
        tokens += n;
      }
      carry = saved;
      const point = { step, loss: sum / tokens, tokens };
      validation.push(point);
      o.onValidation?.(point);
    };
    const curve: LmCurvePoint[] = [];
    let stopped = false;
    for (let s = 0; s < c.steps; s++) {
      if (o.signal?.aborted) {
        stopped = true;
        break;
      }
      const rows = fill(draw);
      const tokens = setWindow(rows);
      const lr = lrAt(c, s);
      const r = await compiled.step({ lr });
      if (!Number.isFinite(r.loss))
        throw new Error(`the loss is ${r.loss} at step ${s + 1}: lower lr or clip`);
      const point: LmCurvePoint = {
        step: s + 1,
        loss: r.loss,
        tokens,
        examples: rows.reduce((k, row) => k + row.length, 0),
        lr,
        gradNorm: r.gradNorm,
      };
      curve.push(point);
      o.onStep?.(point);
      if (val && val.every > 0 && point.step % val.every === 0 && point.step < c.steps)
        await validate(point.step);
    }
    await validate(curve.length);
    return { weights: await weightsOf(compiled, model), curve, validation, stopped };
  } finally {
    compiled.dispose();
  }
}
