/**
 * The tiny orchestrator's architecture, written down once: a GPT-2-style decoder-only transformer
 * (learned positions, pre-LayerNorm blocks, tanh-GELU MLP, output head tied to the token
 * embedding). Everything that builds, trains, exports or checks the model reads its parameter
 * names, shapes and order from here: the compute-core graph (`graph.ts`), the plain reference
 * forward pass (`reference.ts`) and the ONNX export (`onnx/`). GPT-2 is chosen because
 * transformers.js runs it with a KV cache from a plain config, and because every op it needs
 * (embedding, LayerNorm, GELU, attention, a vocabulary softmax) is one the compute core has.
 *
 * Conventions: row-major f32; a linear layer is y = x·W + b with W of shape [in, out]; attention
 * heads are contiguous slices of width headDim of the model dimension; scores are scaled by
 * 1/sqrt(headDim) and causally masked; LayerNorm uses the biased variance and `layerNormEps`;
 * GELU is the tanh approximation (the compute core's `gelu`).
 */
import { z } from 'zod';

export const TinyGptConfigSchema = z
  .object({
    vocabSize: z.number().int().min(4).max(65_536),
    /** The longest sequence (prompt + output) the model reads: the rows of `wpe`. */
    nPositions: z.number().int().min(4).max(4_096),
    nEmbd: z.number().int().min(4).max(1_024),
    nHead: z.number().int().min(1).max(64),
    nLayer: z.number().int().min(1).max(24),
    layerNormEps: z.number().positive().max(0.1).default(1e-5),
  })
  .strict()
  .refine((c) => c.nEmbd % c.nHead === 0, { message: 'nEmbd must be a multiple of nHead' });

export type TinyGptConfig = z.infer<typeof TinyGptConfigSchema>;

export const headDim = (c: TinyGptConfig): number => c.nEmbd / c.nHead;

export interface ParamSpec {
  readonly name: string;
  readonly shape: readonly number[];
}

/** Every parameter, in the canonical order (the order of a checkpoint's flat parameter arena). */
export function paramSpecs(c: TinyGptConfig): ParamSpec[] {
  const d = c.nEmbd;
  const specs: ParamSpec[] = [
    { name: 'wte', shape: [c.vocabSize, d] },
    { name: 'wpe', shape: [c.nPositions, d] },
  ];
  for (let l = 0; l < c.nLayer; l++) {
    const p = `h.${l}.`;
    specs.push(
      { name: `${p}ln_1.g`, shape: [d] },
      { name: `${p}ln_1.b`, shape: [d] },
      { name: `${p}attn.q.w`, shape: [d, d] },
      { name: `${p}attn.q.b`, shape: [d] },
      { name: `${p}attn.k.w`, shape: [d, d] },
      { name: `${p}attn.k.b`, shape: [d] },
      { name: `${p}attn.v.w`, shape: [d, d] },
      { name: `${p}attn.v.b`, shape: [d] },
      { name: `${p}attn.o.w`, shape: [d, d] },
      { name: `${p}attn.o.b`, shape: [d] },
      { name: `${p}ln_2.g`, shape: [d] },
      { name: `${p}ln_2.b`, shape: [d] },
      { name: `${p}mlp.fc.w`, shape: [d, 4 * d] },
      { name: `${p}mlp.fc.b`, shape: [4 * d] },
      { name: `${p}mlp.proj.w`, shape: [4 * d, d] },
      { name: `${p}mlp.proj.b`, shape: [d] },
    );
  }
  specs.push({ name: 'ln_f.g', shape: [d] }, { name: 'ln_f.b', shape: [d] });
  return specs;
}

export const paramCount = (c: TinyGptConfig): number =>
  paramSpecs(c).reduce((n, s) => n + s.shape.reduce((a, b) => a * b, 1), 0);

/** A model's weights by parameter name; every array has its spec's size. */
export interface TinyGptWeights {
  readonly config: TinyGptConfig;
  readonly params: ReadonlyMap<string, Float32Array>;
}

/** Problems with a weight set (missing, extra or wrongly sized arrays, non-finite values); empty when sound. */
export function checkWeights(w: TinyGptWeights): string[] {
  const problems: string[] = [];
  const specs = paramSpecs(w.config);
  const names = new Set(specs.map((s) => s.name));
  for (const s of specs) {
    const a = w.params.get(s.name);
    const n = s.shape.reduce((x, y) => x * y, 1);
    if (!a) problems.push(`missing parameter ${s.name}`);
    else if (a.length !== n) problems.push(`${s.name} has ${a.length} values, expected ${n}`);
    else if (!a.every(Number.isFinite)) problems.push(`${s.name} has a non-finite value`);
  }
  for (const k of w.params.keys()) if (!names.has(k)) problems.push(`unknown parameter ${k}`);
  return problems;
}
