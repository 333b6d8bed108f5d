/**
 * The tiny model as a compute-core training graph: the same network as `reference.ts` (spec.ts's
 * conventions), recorded once for a fixed [batch, seq] window so that either backend can train it.
 * Rows of one sequence are contiguous (row b·seq + t is position t of sequence b); every linear
 * layer runs on all batch·seq rows at once, attention is the core's fused `causalAttention`, and the
 * output head is a matmul with the token embedding transposed (tied: `wte` receives the gradient of
 * both the embedding lookup and the head). The loss is Σ_i weights[i]·(−log p(targets[i])), so the
 * caller decides which positions count (0 for prompt and padding) and how they are averaged.
 */
import { Graph, type Model, type Tensor } from '../gpu/index.ts';
import { initWeights } from './init.ts';
import { checkWeights, paramSpecs, type TinyGptConfig, type TinyGptWeights } from './spec.ts';

export interface TinyGptWindow {
  /** Sequences per step. */
  batch: number;
  /** Positions per row (≤ the model's nPositions unless packed). */
  seq: number;
  /**
   * Several examples per row: adds the u32 input `segments` ([batch·seq], an id per example), and
   * attention stays within a segment; positions restart at 0 for each example.
   */
  packed?: boolean;
}

export interface TinyGptGraph {
  readonly graph: Graph;
  readonly config: TinyGptConfig;
  readonly batch: number;
  readonly seq: number;
  readonly packed: boolean;
  /** Scalar Σ_i weights[i]·(−log softmax(logits_i)[targets_i]). */
  readonly loss: Tensor;
  /** [batch·seq, vocabSize]. */
  readonly logits: Tensor;
  /** Every parameter by its spec name, in spec order. */
  readonly params: ReadonlyMap<string, Tensor>;
}

/**
 * The graph's input names: token ids, positions and targets (u32), loss weights (f32), all
 * [batch·seq]; a packed graph also has `segments` (u32).
 */
export const TINY_GPT_INPUTS = ['ids', 'positions', 'targets', 'weights'] as const;

/**
 * Records the training graph. Parameters are initialised from `weights` (default: `initWeights`
 * with `seed`, 0 unless given); their names and order are spec.ts's.
 */
export function buildTinyGptGraph(
  config: TinyGptConfig,
  opts: TinyGptWindow & { weights?: TinyGptWeights; seed?: number },
): TinyGptGraph {
  const t = buildTinyGptLogits(config, opts);
  const g = t.graph;
  const targets = inputNamed(g, 'targets');
  const lossWeights = g.input('weights', [t.batch * t.seq]);
  return { ...t, loss: g.crossEntropy(t.logits, targets, lossWeights) };
}

/**
 * The same graph up to the logits, without the cross-entropy loss or its `weights` input: for a
 * caller that builds its own objective on the logits (the orchestrator's GRPO learner), so no pass
 * spends a log-sum-exp over the vocabulary on a loss nobody reads.
 */
export function buildTinyGptLogits(
  config: TinyGptConfig,
  opts: TinyGptWindow & { weights?: TinyGptWeights; seed?: number },
): Omit<TinyGptGraph, 'loss'> {
  const { batch, seq } = opts;
  if (!Number.isInteger(batch) || batch < 1)
    throw new Error(`batch must be a positive integer, got ${batch}`);
  if (!Number.isInteger(seq) || seq < 1) throw new Error(`seq must be a positive integer, got ${seq}`);
  // Packed rows restart positions at every example, so only an unpacked row is bound by nPositions.
  if (!opts.packed && seq > config.nPositions) {
    throw new Error(`seq ${seq} is longer than the model's ${config.nPositions} positions`);
  }
  const weights = opts.weights ?? initWeights(config, opts.seed ?? 0);
  if (JSON.stringify(weights.config) !== JSON.stringify(config)) {
    throw new Error('the weights were made for another model configuration');
  }
  const problems = checkWeights(weights);
  if (problems.length > 0) throw new Error(`bad weights: ${problems.slice(0, 3).join('; ')}`);

  const g = new Graph();
  const n = batch * seq;
  const ids = g.input('ids', [n], 'u32');
  const positions = g.input('positions', [n], 'u32');
  g.input('targets', [n], 'u32');
  const packed = opts.packed ?? false;
  const segments = packed ? g.input('segments', [n], 'u32') : undefined;
  const params = new Map<string, Tensor>();
  for (const s of paramSpecs(config)) {
    params.set(s.name, g.param(s.name, s.shape, weights.params.get(s.name) as Float32Array));
  }
  const p = (name: string): Tensor => params.get(name) as Tensor;
  const eps = config.layerNormEps;

  const wte = p('wte');
  let x = g.add(g.gatherRows(wte, ids), g.gatherRows(p('wpe'), positions));
  for (let l = 0; l < config.nLayer; l++) {
    const pre = `h.${l}.`;
    const a = g.layerNorm(x, p(`${pre}ln_1.g`), p(`${pre}ln_1.b`), eps);
    const q = g.linear(a, p(`${pre}attn.q.w`), p(`${pre}attn.q.b`));
    const k = g.linear(a, p(`${pre}attn.k.w`), p(`${pre}attn.k.b`));
    const v = g.linear(a, p(`${pre}attn.v.w`), p(`${pre}attn.v.b`));
    const att = g.causalAttention(q, k, v, { batch, seq, heads: config.nHead, segments });
    x = g.add(x, g.linear(att, p(`${pre}attn.o.w`), p(`${pre}attn.o.b`)));
    const m = g.layerNorm(x, p(`${pre}ln_2.g`), p(`${pre}ln_2.b`), eps);
    const fc = g.linear(m, p(`${pre}mlp.fc.w`), p(`${pre}mlp.fc.b`), 'gelu');
    x = g.add(x, g.linear(fc, p(`${pre}mlp.proj.w`), p(`${pre}mlp.proj.b`)));
  }
  const h = g.layerNorm(x, p('ln_f.g'), p('ln_f.b'), eps);
  const logits = g.matmul(h, wte, { transB: true });
  return { graph: g, config, batch, seq, packed, logits, params };
}

function inputNamed(g: Graph, name: string): Tensor {
  const n = g.inputs().find((i) => i.op.kind === 'input' && i.op.name === name);
  if (!n) throw new Error(`the graph has no input ${name}`);
  return n;
}

/**
 * Reads a compiled tiny model's parameters back (from the device on WebGPU) as weights, by the
 * spec's names; `config` must be the one the graph was built for.
 */
export async function weightsOf(model: Model, config: TinyGptConfig): Promise<TinyGptWeights> {
  const byName = new Map<string, Tensor>();
  for (const n of model.graph.params()) if (n.op.kind === 'param') byName.set(n.op.name, n);
  const params = new Map<string, Float32Array>();
  for (const s of paramSpecs(config)) {
    const t = byName.get(s.name);
    if (!t) throw new Error(`the model has no parameter ${s.name}`);
    params.set(s.name, await model.read(t));
  }
  const weights: TinyGptWeights = { config, params };
  const problems = checkWeights(weights);
  if (problems.length > 0) throw new Error(`bad weights read back: ${problems.slice(0, 3).join('; ')}`);
  return weights;
}
