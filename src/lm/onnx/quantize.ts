/**
 * Weight quantization for the ONNX exports, and the weights a quantized model really computes with
 * (`dequantizedWeights`), so tests can hold a quantized export to the reference forward pass run on
 * exactly the values the file stores, and measure separately what quantization itself costs.
 *
 * - q8: symmetric int8, one scale per output column of a linear layer (per row of an embedding
 *   table), read back by `DequantizeLinear` (ONNX opset 13): x = q · scale, q ∈ [-127, 127].
 *   q4 stores the two embedding tables this way too (they are gathered, not multiplied, and the
 *   token table doubles as the output head).
 * - q4: onnxruntime's `MatMulNBits` layout (com.microsoft): the [K, N] matrix is stored transposed
 *   as N rows of ⌈K/32⌉ blocks of 32 four-bit values (two per byte, the even index in the low
 *   nibble), one float scale and one four-bit zero point per block (asymmetric, min/max of the block
 *   widened to include 0): x = (q − zp) · scale, q ∈ [0, 15]. K is padded with zeros to whole blocks.
 */
import { type TinyGptWeights } from '../spec.ts';

export type ExportDtype = 'fp32' | 'q8' | 'q4';

export interface Int8Quantized {
  readonly q: Int8Array;
  /** One scale per slice along `axis` (columns for axis 1, rows for axis 0). */
  readonly scales: Float32Array;
  readonly axis: 0 | 1;
}

/** Symmetric int8 quantization of a row-major [rows, cols] matrix, one scale per slice along `axis`. */
export function quantizeInt8(w: Float32Array, rows: number, cols: number, axis: 0 | 1): Int8Quantized {
  const slices = axis === 1 ? cols : rows;
  const scales = new Float32Array(slices);
  const idx = (r: number, c: number): number => r * cols + c;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const s = axis === 1 ? c : r;
      scales[s] = Math.max(scales[s] as number, Math.abs(w[idx(r, c)] as number));
    }
  }
  for (let s = 0; s < slices; s++) scales[s] = (scales[s] as number) > 0 ? (scales[s] as number) / 127 : 1;
  const q = new Int8Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const s = scales[axis === 1 ? c : r] as number;
      q[idx(r, c)] = Math.max(-127, Math.min(127, Math.round((w[idx(r, c)] as number) / s)));
    }
  }
  return { q, scales, axis };
}

export function dequantizeInt8(x: Int8Quantized, rows: number, cols: number): Float32Array {
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const s = x.scales[x.axis === 1 ? c : r] as number;
      // Math.fround: DequantizeLinear multiplies in f32.
      out[r * cols + c] = Math.fround((x.q[r * cols + c] as number) * s);
    }
  }
  return out;
}

export const Q4_BLOCK = 32;

export interface Q4Quantized {
  /** [N, blocks, 16] bytes: MatMulNBits' input B. */
  readonly packed: Uint8Array;
  /** [N · blocks] */
  readonly scales: Float32Array;
  /** [N · ⌈blocks/2⌉] bytes, two four-bit zero points per byte, low nibble first. */
  readonly zeroPoints: Uint8Array;
  readonly k: number;
  readonly n: number;
  readonly blocks: number;
}

/** Four-bit block quantization of a row-major [K, N] matrix (y = x·W) in MatMulNBits' layout. */
export function quantizeQ4(w: Float32Array, k: number, n: number): Q4Quantized {
  const blocks = Math.ceil(k / Q4_BLOCK);
  const packed = new Uint8Array(n * blocks * (Q4_BLOCK / 2));
  const scales = new Float32Array(n * blocks);
  const zpBytes = Math.ceil(blocks / 2);
  const zeroPoints = new Uint8Array(n * zpBytes);
  for (let col = 0; col < n; col++) {
    for (let b = 0; b < blocks; b++) {
      let lo = 0;
      let hi = 0;
      for (let i = 0; i < Q4_BLOCK; i++) {
        const row = b * Q4_BLOCK + i;
        if (row >= k) break;
        const v = w[row * n + col] as number;
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
      const scale = hi > lo ? Math.fround((hi - lo) / 15) : 1;
      const zp = Math.max(0, Math.min(15, Math.round(-lo / scale)));
      scales[col * blocks + b] = scale;
      const zi = col * zpBytes + (b >> 1);
      zeroPoints[zi] = (zeroPoints[zi] as number) | (b % 2 === 0 ? zp : zp << 4);
      for (let i = 0; i < Q4_BLOCK; i++) {
        const row = b * Q4_BLOCK + i;
        const v = row < k ? (w[row * n + col] as number) : 0;
        const q = Math.max(0, Math.min(15, Math.round(v / scale) + zp));
        const bi = (col * blocks + b) * (Q4_BLOCK / 2) + (i >> 1);
        packed[bi] = (packed[bi] as number) | (i % 2 === 0 ? q : q << 4);
      }
    }
  }
  return { packed, scales, zeroPoints, k, n, blocks };
}

/** The [K, N] matrix MatMulNBits computes with. */
export function dequantizeQ4(x: Q4Quantized): Float32Array {
  const { k, n, blocks } = x;
  const zpBytes = Math.ceil(blocks / 2);
  const out = new Float32Array(k * n);
  for (let col = 0; col < n; col++) {
    for (let b = 0; b < blocks; b++) {
      const scale = x.scales[col * blocks + b] as number;
      const zByte = x.zeroPoints[col * zpBytes + (b >> 1)] as number;
      const zp = b % 2 === 0 ? zByte & 15 : zByte >> 4;
      for (let i = 0; i < Q4_BLOCK; i++) {
        const row = b * Q4_BLOCK + i;
        if (row >= k) break;
        const byte = x.packed[(col * blocks + b) * (Q4_BLOCK / 2) + (i >> 1)] as number;
        const q = i % 2 === 0 ? byte & 15 : byte >> 4;
        out[row * n + col] = Math.fround((q - zp) * scale);
      }
    }
  }
  return out;
}

/** The two embedding tables: stored as int8 rows in both q8 and q4 (the token table is also the output head). */
export const isEmbedding = (name: string): boolean => name === 'wte' || name === 'wpe';

/** Parameters stored quantized: every linear layer's matrix and the two embedding tables. */
export function isQuantized(name: string, dtype: ExportDtype): boolean {
  if (dtype === 'fp32') return false;
  return isEmbedding(name) || /\.(attn\.[qkvo]|mlp\.(fc|proj))\.w$/.test(name);
}

/**
 * The weights an export of `dtype` computes with: quantized parameters replaced by their
 * dequantized values, the rest unchanged. The reference forward pass on these is what the
 * quantized ONNX model must reproduce up to float rounding.
 */
export function dequantizedWeights(w: TinyGptWeights, dtype: ExportDtype): TinyGptWeights {
  if (dtype === 'fp32') return w;
  const c = w.config;
  const params = new Map<string, Float32Array>();
  for (const [name, a] of w.params) {
    if (!isQuantized(name, dtype)) {
      params.set(name, a);
      continue;
    }
    const cols = isEmbedding(name) ? c.nEmbd : outDim(name, c.nEmbd);
    const rows = a.length / cols;
    params.set(
      name,
      isEmbedding(name)
        ? dequantizeInt8(quantizeInt8(a, rows, cols, 0), rows, cols)
        : dtype === 'q8'
          ? dequantizeInt8(quantizeInt8(a, rows, cols, 1), rows, cols)
          : dequantizeQ4(quantizeQ4(a, rows, cols)),
    );
  }
  return { config: c, params };
}

/** Output width of a linear layer's matrix by its name. */
export const outDim = (name: string, nEmbd: number): number =>
  name.endsWith('mlp.fc.w') ? 4 * nEmbd : nEmbd;
