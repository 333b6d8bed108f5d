/**
 * The tiny model as an ONNX decoder with a KV cache, laid out the way transformers.js runs a
 * `model_type: "gpt2"` model (`models/modeling_utils.js`, `decoder_forward`):
 *
 * - inputs `input_ids` [batch_size, sequence_length], `attention_mask` [batch_size,
 *   total_sequence_length] (past + new, 0 = padding), `position_ids` [batch_size, sequence_length]
 *   (transformers.js feeds cumsum(attention_mask) − 1 because the input is declared), and per layer
 *   `past_key_values.{i}.key|value` [batch_size, nHead, past_sequence_length, headDim], all int64
 *   except the cache (float32);
 * - outputs `logits` [batch_size, sequence_length, vocabSize] and `present.{i}.key|value`
 *   [batch_size, nHead, total_sequence_length, headDim].
 *
 * transformers.js builds the first step's empty cache from the declared shapes of the cache inputs:
 * a dimension named exactly `batch_size` becomes the batch size, numbers are kept, any other name
 * becomes 0. So heads and head size are fixed numbers and the past length is symbolic.
 *
 * A query at absolute position p (p = past length + its index) sees key j when j ≤ p and
 * attention_mask[j] = 1; scores it may not see are replaced by −1e9 before the softmax, so a fully
 * padded row stays finite. The math is `reference.ts`'s: pre-LayerNorm blocks, tanh-GELU, logits
 * from the tied token embedding.
 *
 * dtypes: `fp32` uses standard ONNX ops only (opset 17 for LayerNormalization); `q8` stores the
 * linear layers and both embedding tables as int8 read by `DequantizeLinear` (standard, run by
 * onnxruntime's CPU, wasm and WebGPU providers); `q4` runs the linear layers with onnxruntime's
 * `com.microsoft` `MatMulNBits` (4-bit, blocks of 32, with zero points) and stores the embedding
 * tables as q8 does. `quantize.ts` says how the numbers are stored.
 */
import { headDim, type TinyGptConfig, type TinyGptWeights, checkWeights } from '../spec.ts';
import { GraphBuilder, encodeModel, type OnnxModel } from './writer.ts';
import { Q4_BLOCK, isQuantized, outDim, quantizeInt8, quantizeQ4, type ExportDtype } from './quantize.ts';

export interface ExportOptions {
  readonly dtype: ExportDtype;
}

/** ONNX standard-domain opset of every export (LayerNormalization needs 17). */
export const OPSET = 17;

/** The names transformers.js feeds and reads, for a config. */
export function ioNames(c: TinyGptConfig): { inputs: string[]; outputs: string[] } {
  const layers = Array.from({ length: c.nLayer }, (_, i) => i);
  return {
    inputs: [
      'input_ids',
      'attention_mask',
      'position_ids',
      ...layers.flatMap((i) => [`past_key_values.${i}.key`, `past_key_values.${i}.value`]),
    ],
    outputs: ['logits', ...layers.flatMap((i) => [`present.${i}.key`, `present.${i}.value`])],
  };
}

function param(w: TinyGptWeights, name: string): Float32Array {
  const a = w.params.get(name);
  if (!a) throw new Error(`missing parameter ${name}`);
  return a;
}

/** The export as an in-memory ONNX model (before encoding), for inspection and tests. */
export function buildTinyGptOnnx(w: TinyGptWeights, opts: ExportOptions): OnnxModel {
  const problems = checkWeights(w);
  if (problems.length > 0) throw new Error(`cannot export these weights: ${problems.join('; ')}`);
  const c = w.config;
  const { dtype } = opts;
  const d = c.nEmbd;
  const hd = headDim(c);
  const g = new GraphBuilder('baton_tiny_gpt');

  const ids = g.input('input_ids', 'int64', ['batch_size', 'sequence_length']);
  const mask = g.input('attention_mask', 'int64', ['batch_size', 'total_sequence_length']);
  const pos = g.input('position_ids', 'int64', ['batch_size', 'sequence_length']);
  const past = Array.from({ length: c.nLayer }, (_, i) => ({
    key: g.input(`past_key_values.${i}.key`, 'float32', ['batch_size', c.nHead, 'past_sequence_length', hd]),
    value: g.input(`past_key_values.${i}.value`, 'float32', [
      'batch_size',
      c.nHead,
      'past_sequence_length',
      hd,
    ]),
  }));

  /** An embedding table as f32 values: an initializer, or int8 read back by DequantizeLinear. */
  const table = (name: string): string => {
    const a = param(w, name);
    const rows = a.length / d;
    if (!isQuantized(name, dtype)) return g.init(name, 'float32', [rows, d], a);
    const q = quantizeInt8(a, rows, d, 0);
    const qi = g.init(`${name}.q`, 'int8', [rows, d], q.q);
    const s = g.init(`${name}.scale`, 'float32', [rows], q.scales);
    const z = g.init(`${name}.zero`, 'int8', [rows], new Int8Array(rows));
    return g.node('DequantizeLinear', [qi, s, z], { axis: { i: 0 } });
  };

  /** y = x·W + b, W stored as the dtype says. */
  const linear = (x: string, prefix: string): string => {
    const wName = `${prefix}.w`;
    const a = param(w, wName);
    const n = outDim(wName, d);
    const k = a.length / n;
    const b = g.init(`${prefix}.b`, 'float32', [n], param(w, `${prefix}.b`));
    let y: string;
    if (!isQuantized(wName, dtype)) {
      y = g.node('MatMul', [x, g.init(wName, 'float32', [k, n], a)]);
    } else if (dtype === 'q8') {
      const q = quantizeInt8(a, k, n, 1);
      const deq = g.node(
        'DequantizeLinear',
        [
          g.init(`${wName}.q`, 'int8', [k, n], q.q),
          g.init(`${wName}.scale`, 'float32', [n], q.scales),
          g.init(`${wName}.zero`, 'int8', [n], new Int8Array(n)),
        ],
        { axis: { i: 1 } },
      );
      y = g.node('MatMul', [x, deq]);
    } else {
      const q = quantizeQ4(a, k, n);
      y = g.node(
        'MatMulNBits',
        [
          x,
          g.init(`${wName}.q4`, 'uint8', [n, q.blocks, Q4_BLOCK / 2], q.packed),
          g.init(`${wName}.scales`, 'float32', [n * q.blocks], q.scales),
          g.init(`${wName}.zero_points`, 'uint8', [q.zeroPoints.length], q.zeroPoints),
        ],
        { K: { i: k }, N: { i: n }, bits: { i: 4 }, block_size: { i: Q4_BLOCK } },
        { domain: 'com.microsoft' },
      );
    }
    return g.node('Add', [y, b]);
  };

  const layerNorm = (x: string, prefix: string): string =>
    g.node(
      'LayerNormalization',
      [
        x,
        g.init(`${prefix}.g`, 'float32', [d], param(w, `${prefix}.g`)),
        g.init(`${prefix}.b`, 'float32', [d], param(w, `${prefix}.b`)),
      ],
      { axis: { i: -1 }, epsilon: { f: c.layerNormEps } },
    );

  // Embeddings.
  const wte = table('wte');
  let x = g.node('Add', [g.node('Gather', [wte, ids]), g.node('Gather', [table('wpe'), pos])]);

  // Which keys each query may see: [batch_size, 1, sequence_length, total_sequence_length].
  const zeroAxis = g.constI64([0]);
  const scalarOf = (t: string): string => g.node('Squeeze', [t, zeroAxis]);
  const seqLen = g.node('Shape', [ids], { start: { i: 1 }, end: { i: 2 } });
  const totalLen = g.node('Shape', [mask], { start: { i: 1 }, end: { i: 2 } });
  const pastLen = g.node('Sub', [totalLen, seqLen]);
  const one = g.constI64([1], true);
  const queryPos = g.node('Range', [scalarOf(pastLen), scalarOf(totalLen), one]);
  const keyPos = g.node('Range', [g.constI64([0], true), scalarOf(totalLen), one]);
  const future = g.node('Greater', [
    g.node('Unsqueeze', [keyPos, g.constI64([0])]),
    g.node('Unsqueeze', [queryPos, g.constI64([1])]),
  ]);
  const padOk = g.node('Unsqueeze', [g.node('Cast', [mask], { to: { i: 9 } }), g.constI64([1, 2])]);
  const allowed = g.node('And', [g.node('Not', [future]), padOk]);
  const masked = g.constF32([-1e9], true);
  const scale = g.constF32([1 / Math.sqrt(hd)], true);
  const splitHeads = g.constI64([0, 0, c.nHead, hd]);
  const mergeHeads = g.constI64([0, 0, d]);
  const heads = (t: string): string =>
    g.node('Transpose', [g.node('Reshape', [t, splitHeads])], { perm: { ints: [0, 2, 1, 3] } });

  const half = g.constF32([0.5], true);
  const oneF = g.constF32([1], true);
  const geluC = g.constF32([Math.sqrt(2 / Math.PI)], true);
  const geluK = g.constF32([0.044715], true);
  const gelu = (z: string): string => {
    const z3 = g.node('Mul', [g.node('Mul', [z, z]), z]);
    const inner = g.node('Mul', [geluC, g.node('Add', [z, g.node('Mul', [geluK, z3])])]);
    return g.node('Mul', [g.node('Mul', [half, z]), g.node('Add', [oneF, g.node('Tanh', [inner])])]);
  };

  for (let l = 0; l < c.nLayer; l++) {
    const p = `h.${l}`;
    const a = layerNorm(x, `${p}.ln_1`);
    const q = g.node('Mul', [heads(linear(a, `${p}.attn.q`)), scale]);
    const lp = past[l] as { key: string; value: string };
    const k = g.node(
      'Concat',
      [lp.key, heads(linear(a, `${p}.attn.k`))],
      { axis: { i: 2 } },
      { output: `present.${l}.key` },
    );
    const v = g.node(
      'Concat',
      [lp.value, heads(linear(a, `${p}.attn.v`))],
      { axis: { i: 2 } },
      { output: `present.${l}.value` },
    );
    const scores = g.node('MatMul', [q, g.node('Transpose', [k], { perm: { ints: [0, 1, 3, 2] } })]);
    const probs = g.node('Softmax', [g.node('Where', [allowed, scores, masked])], { axis: { i: -1 } });
    const ctx = g.node('Reshape', [
      g.node('Transpose', [g.node('MatMul', [probs, v])], { perm: { ints: [0, 2, 1, 3] } }),
      mergeHeads,
    ]);
    x = g.node('Add', [x, linear(ctx, `${p}.attn.o`)]);
    const m = layerNorm(x, `${p}.ln_2`);
    x = g.node('Add', [x, linear(gelu(linear(m, `${p}.mlp.fc`)), `${p}.mlp.proj`)]);
  }
  const h = layerNorm(x, 'ln_f');
  g.node('MatMul', [h, g.node('Transpose', [wte], { perm: { ints: [1, 0] } })], {}, { output: 'logits' });

  g.output('logits', 'float32', ['batch_size', 'sequence_length', c.vocabSize]);
  for (let l = 0; l < c.nLayer; l++) {
    for (const kind of ['key', 'value']) {
      g.output(`present.${l}.${kind}`, 'float32', ['batch_size', c.nHead, 'total_sequence_length', hd]);
    }
  }
  const opsets: Record<string, number> = { '': OPSET };
  if (dtype === 'q4') opsets['com.microsoft'] = 1;
  return g.build({
    opsets,
    producer: 'baton',
    metadata: { 'baton.dtype': dtype, 'baton.config': JSON.stringify(c) },
  });
}

/** The `.onnx` bytes of the tiny model for `dtype`. */
export const exportTinyGptOnnx = (w: TinyGptWeights, opts: ExportOptions): Uint8Array =>
  encodeModel(buildTinyGptOnnx(w, opts));
