/**
 * The tiny transformer's training step written in TF.js, and a window of random inputs for it: shared
 * by `npm run bench:lm-step` (TF.js CPU and wasm) and the device benchmark (TF.js WebGPU).
 */
import type * as TF from '@tensorflow/tfjs';
import { createRng } from '../src/core/rng.ts';
import { windowInputs, type TinyGptConfig, type TinyGptWeights } from '../src/lm/index.ts';
import { headDim, paramSpecs } from '../src/lm/spec.ts';

export interface LmSize {
  vocab: number;
  embd: number;
  layers: number;
  heads: number;
  batch: number;
  seq: number;
}

export const ADAM = { lr: 1e-3, beta1: 0.9, beta2: 0.99, eps: 1e-8, clipNorm: 1 };

/** A window of random prompts (a quarter of the row) and targets (the rest), every row full. */
export function window(c: TinyGptConfig, s: LmSize): ReturnType<typeof windowInputs> {
  const rng = createRng(7);
  const rows = Array.from({ length: s.batch }, () => {
    const p = Math.max(1, Math.floor(s.seq / 4));
    return {
      prompt: Array.from({ length: p }, () => rng.int(c.vocabSize)),
      target: Array.from({ length: s.seq + 1 - p }, () => rng.int(c.vocabSize)),
    };
  });
  return windowInputs(
    rows.map((r) => [r]),
    s.batch,
    s.seq,
  );
}

let nextPrefix = 0;

/**
 * The same step in TF.js (heads by reshape/transpose, a −1e9 causal mask, logSoftmax cross-entropy).
 * With `oneHotLookup` the embeddings are looked up as one-hot rows times the table (TF.js's wasm
 * backend has no kernel for the gather's gradient, UnsortedSegmentSum).
 */
export function tfjsStep(
  tf: typeof TF,
  w: TinyGptWeights,
  s: LmSize,
  inputs: ReturnType<typeof windowInputs>['inputs'],
  oneHotLookup = false,
): { step: () => Promise<number>; dispose: () => void } {
  const c = w.config;
  const [B, T, D, H] = [s.batch, s.seq, c.nEmbd, c.nHead];
  const hd = headDim(c);
  const prefix = `lm${(nextPrefix += 1)}_`;
  const vars = new Map<string, TF.Variable>();
  for (const spec of paramSpecs(c)) {
    const t = tf.tensor(w.params.get(spec.name) as Float32Array, [...spec.shape]);
    vars.set(spec.name, tf.variable(t, true, `${prefix}${spec.name}`));
    t.dispose();
  }
  const v = (n: string): TF.Variable => vars.get(n) as TF.Variable;
  const ids = tf.tensor1d(Int32Array.from(inputs.ids), 'int32');
  const pos = tf.tensor1d(Int32Array.from(inputs.positions), 'int32');
  const onehot = tf.oneHot(tf.tensor1d(Int32Array.from(inputs.targets), 'int32'), c.vocabSize).toFloat();
  const weights = tf.tensor1d(inputs.weights as Float32Array);
  const causal = tf.linalg.bandPart(tf.ones([T, T]), -1, 0);
  const maskAdd = tf.mul(tf.sub(1, causal), -1e9);
  const ln = (x: TF.Tensor2D, g: string, b: string): TF.Tensor2D => {
    const { mean, variance } = tf.moments(x, -1, true);
    return tf.add(tf.mul(tf.div(tf.sub(x, mean), tf.sqrt(tf.add(variance, c.layerNormEps))), v(g)), v(b));
  };
  const lin = (x: TF.Tensor2D, p: string): TF.Tensor2D =>
    tf.add(tf.matMul(x, v(`${p}.w`) as TF.Tensor2D), v(`${p}.b`));
  const gelu = (z: TF.Tensor): TF.Tensor =>
    tf.mul(
      tf.mul(0.5, z),
      tf.add(1, tf.tanh(tf.mul(Math.sqrt(2 / Math.PI), tf.add(z, tf.mul(0.044715, tf.pow(z, 3)))))),
    );
  const heads = (x: TF.Tensor2D): TF.Tensor4D => tf.transpose(tf.reshape(x, [B, T, H, hd]), [0, 2, 1, 3]);
  const opt = tf.train.adam(ADAM.lr, ADAM.beta1, ADAM.beta2, ADAM.eps);
  const lossFn = (): TF.Scalar =>
    tf.tidy(() => {
      const lookup = (table: TF.Variable, idx: TF.Tensor1D): TF.Tensor2D =>
        oneHotLookup
          ? tf.matMul(tf.oneHot(idx, table.shape[0] as number).toFloat(), table as TF.Tensor2D)
          : (tf.gather(table, idx) as TF.Tensor2D);
      let x = tf.add(lookup(v('wte'), ids), lookup(v('wpe'), pos)) as TF.Tensor2D;
      for (let l = 0; l < c.nLayer; l++) {
        const p = `h.${l}.`;
        const a = ln(x, `${p}ln_1.g`, `${p}ln_1.b`);
        const q = heads(lin(a, `${p}attn.q`));
        const k = heads(lin(a, `${p}attn.k`));
        const vv = heads(lin(a, `${p}attn.v`));
        const att = tf.softmax(tf.add(tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(hd)), maskAdd));
        const o = tf.reshape(tf.transpose(tf.matMul(att, vv), [0, 2, 1, 3]), [B * T, D]) as TF.Tensor2D;
        x = tf.add(x, lin(o, `${p}attn.o`));
        const m = ln(x, `${p}ln_2.g`, `${p}ln_2.b`);
        x = tf.add(x, lin(gelu(lin(m, `${p}mlp.fc`)) as TF.Tensor2D, `${p}mlp.proj`));
      }
      const h = ln(x, 'ln_f.g', 'ln_f.b');
      const logp = tf.logSoftmax(tf.matMul(h, v('wte'), false, true));
      return tf.neg(tf.sum(tf.mul(tf.sum(tf.mul(logp, onehot), -1), weights))) as TF.Scalar;
    });
  const list = [...vars.values()];
  const step = async (): Promise<number> => {
    const { value, grads } = tf.variableGrads(lossFn, list);
    const clipped = tf.tidy(() => {
      const all = Object.values(grads);
      // Pairwise adds, not addN: TF.js WebGPU's AddN binds one storage buffer per input and fails
      // validation past the device's per-stage limit (8 on SwiftShader) with this many parameters.
      const norm = tf.sqrt(all.map((g) => tf.sum(tf.square(g))).reduce((x, y) => tf.add(x, y)));
      const scale = tf.minimum(1, tf.div(ADAM.clipNorm, tf.add(norm, 1e-6)));
      return Object.entries(grads).map(([name, g]) => ({ name, tensor: tf.mul(g, scale) }));
    });
    opt.applyGradients(clipped);
    tf.dispose(grads);
    tf.dispose(clipped.map((x) => x.tensor));
    const l = (await value.data())[0] as number;
    value.dispose();
    return l;
  };
  const dispose = (): void => {
    tf.dispose([...list, ids, pos, onehot, weights, causal, maskAdd]);
    opt.dispose();
  };
  return { step, dispose };
}
