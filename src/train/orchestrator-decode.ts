/**
 * The orchestrator LM's forward pass for sampling: batched over sequences, with a KV cache, and
 * computed with the very arithmetic of the compute core's CPU backend (src/gpu/cpu/ops-*.ts: the
 * same loops, the same f64 running sums stored to f32 at the same points), so that a token's
 * logits here equal, bit for bit, the logits the training graph (src/lm/graph.ts) computes for the
 * same position on the CPU backend. That holds because every op of the graph but attention works
 * row by row, and attention's output for a position depends only on that position's query and the
 * keys and values up to it; `orchestrator-decode.test.ts` checks it against the compiled graph.
 *
 * Row i of a call appends one token to sequence `seqs[i]` (several rows may extend the same
 * sequence: a prompt is one call). Only rows asked for get logits (the vocabulary head is the
 * largest matmul). The masked log-softmax at temperature τ is the learner's
 * `logSoftmax(scale(logits, 1/τ), mask)`, again with the CPU backend's arithmetic.
 */
import { MASKED_LOG_PROB } from '../gpu/index.ts';
import { headDim, type TinyGptConfig, type TinyGptWeights } from '../lm/index.ts';

type F32 = Float32Array;

const GELU_C = Math.sqrt(2 / Math.PI);

/** C = A·B, A [m, k], B [k, n] (src/gpu/cpu/ops-matmul.ts, no transpose). */
function matmulNN(A: F32, B: F32, m: number, n: number, k: number): F32 {
  const C = new Float32Array(m * n);
  for (let i = 0; i < m; i++) {
    const crow = i * n;
    const ai = i * k;
    let p = 0;
    for (; p + 3 < k; p += 4) {
      const a0 = A[ai + p] as number;
      const a1 = A[ai + p + 1] as number;
      const a2 = A[ai + p + 2] as number;
      const a3 = A[ai + p + 3] as number;
      if (a0 === 0 && a1 === 0 && a2 === 0 && a3 === 0) continue;
      const b0 = p * n;
      const b1 = b0 + n;
      const b2 = b1 + n;
      const b3 = b2 + n;
      for (let j = 0; j < n; j++) {
        C[crow + j] =
          (C[crow + j] as number) +
          a0 * (B[b0 + j] as number) +
          a1 * (B[b1 + j] as number) +
          a2 * (B[b2 + j] as number) +
          a3 * (B[b3 + j] as number);
      }
    }
    for (; p < k; p++) {
      const a = A[ai + p] as number;
      const b0 = p * n;
      for (let j = 0; j < n; j++) C[crow + j] = (C[crow + j] as number) + a * (B[b0 + j] as number);
    }
  }
  return C;
}

/** C = A·Bᵀ, A [m, k], B [n, k] (the tied output head). */
function matmulNT(A: F32, B: F32, m: number, n: number, k: number): F32 {
  const C = new Float32Array(m * n);
  for (let i = 0; i < m; i++) {
    const crow = i * n;
    const ai = i * k;
    let j = 0;
    for (; j + 3 < n; j += 4) {
      const r0 = j * k;
      const r1 = r0 + k;
      const r2 = r1 + k;
      const r3 = r2 + k;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let p = 0; p < k; p++) {
        const a = A[ai + p] as number;
        s0 += a * (B[r0 + p] as number);
        s1 += a * (B[r1 + p] as number);
        s2 += a * (B[r2 + p] as number);
        s3 += a * (B[r3 + p] as number);
      }
      C[crow + j] = s0;
      C[crow + j + 1] = s1;
      C[crow + j + 2] = s2;
      C[crow + j + 3] = s3;
    }
    for (; j < n; j++) {
      const r0 = j * k;
      let s = 0;
      for (let p = 0; p < k; p++) s += (A[ai + p] as number) * (B[r0 + p] as number);
      C[crow + j] = s;
    }
  }
  return C;
}

/** In place: x ← act(x + b). */
function biasAct(x: F32, b: F32, cols: number, gelu: boolean): F32 {
  for (let i = 0; i < x.length; i++) {
    const z = (x[i] as number) + (b[i % cols] as number);
    x[i] = gelu ? 0.5 * z * (1 + Math.tanh(GELU_C * (z + 0.044715 * z * z * z))) : z;
  }
  return x;
}

function layerNorm(x: F32, gamma: F32, beta: F32, cols: number, eps: number): F32 {
  const y = new Float32Array(x.length);
  for (let o = 0; o < x.length; o += cols) {
    let mean = 0;
    for (let c = 0; c < cols; c++) mean += x[o + c] as number;
    mean /= cols;
    let v = 0;
    for (let c = 0; c < cols; c++) v += ((x[o + c] as number) - mean) ** 2;
    const rstd = 1 / Math.sqrt(v / cols + eps);
    for (let c = 0; c < cols; c++)
      y[o + c] = ((x[o + c] as number) - mean) * rstd * (gamma[c] as number) + (beta[c] as number);
  }
  return y;
}

/** In place: x ← x + y. */
function addInto(x: F32, y: F32): void {
  for (let i = 0; i < x.length; i++) x[i] = (x[i] as number) + (y[i] as number);
}

/** One sequence's keys and values per layer, [nPositions, nEmbd] each, and how many are filled. */
export interface SequenceCache {
  readonly keys: F32[];
  readonly values: F32[];
  length: number;
}

/**
 * A sampler's forward with a KV cache per sequence: `CpuExactDecoder` (the CPU backend's arithmetic,
 * bit for bit) or `WasmDecoder` (orchestrator-decode-wasm.ts: the wasm kernels).
 */
export interface Decoder {
  readonly config: TinyGptConfig;
  readonly weights: TinyGptWeights;
  newSequence(): SequenceCache;
  /** A new sequence with a copy of `s`'s cache. */
  fork(s: SequenceCache): SequenceCache;
  /** Called before a batch: the sequences of earlier batches are no longer used. */
  reset(): void;
  step(seqs: readonly SequenceCache[], ids: readonly number[], want: readonly number[]): F32;
}

/**
 * Checks a step's rows (one sequence per token id, ids in the vocabulary, room left in each
 * sequence) and appends them: the position of each row's token in its sequence.
 */
export function appendPositions(
  c: TinyGptConfig,
  seqs: readonly SequenceCache[],
  ids: readonly number[],
): Int32Array {
  const m = ids.length;
  if (seqs.length !== m) throw new Error('one sequence per token');
  for (let i = 0; i < m; i++) {
    const id = ids[i] as number;
    if (!Number.isInteger(id) || id < 0 || id >= c.vocabSize) throw new Error(`token id ${id} out of range`);
  }
  const pos = new Int32Array(m);
  for (let i = 0; i < m; i++) {
    const s = seqs[i] as SequenceCache;
    if (s.length >= c.nPositions)
      throw new Error(`sequence longer than the model's ${c.nPositions} positions`);
    pos[i] = s.length++;
  }
  return pos;
}

export class CpuExactDecoder implements Decoder {
  private readonly p: (name: string) => F32;
  private readonly scores: F32;

  constructor(readonly weights: TinyGptWeights) {
    this.p = (name) => {
      const a = weights.params.get(name);
      if (!a) throw new Error(`missing parameter ${name}`);
      return a;
    };
    this.scores = new Float32Array(weights.config.nPositions);
  }

  get config(): TinyGptConfig {
    return this.weights.config;
  }

  newSequence(): SequenceCache {
    const c = this.config;
    const n = c.nPositions * c.nEmbd;
    return {
      keys: Array.from({ length: c.nLayer }, () => new Float32Array(n)),
      values: Array.from({ length: c.nLayer }, () => new Float32Array(n)),
      length: 0,
    };
  }

  fork(s: SequenceCache): SequenceCache {
    return {
      keys: s.keys.map((k) => k.slice()),
      values: s.values.map((v) => v.slice()),
      length: s.length,
    };
  }

  /** Nothing to free: caches are plain arrays. */
  reset(): void {}

  /**
   * Appends token `ids[i]` to `seqs[i]` for every row (in row order) and returns the logits of the
   * rows in `want` (row indices), [want.length, vocabSize].
   */
  step(seqs: readonly SequenceCache[], ids: readonly number[], want: readonly number[]): F32 {
    const c = this.config;
    const d = c.nEmbd;
    const m = ids.length;
    const pos = appendPositions(c, seqs, ids);
    const wte = this.p('wte');
    const wpe = this.p('wpe');
    const x = new Float32Array(m * d);
    for (let i = 0; i < m; i++) {
      const t = (ids[i] as number) * d;
      const q = (pos[i] as number) * d;
      for (let j = 0; j < d; j++) x[i * d + j] = (wte[t + j] as number) + (wpe[q + j] as number);
    }
    const eps = c.layerNormEps;
    for (let l = 0; l < c.nLayer; l++) {
      const pre = `h.${l}.`;
      const a = layerNorm(x, this.p(`${pre}ln_1.g`), this.p(`${pre}ln_1.b`), d, eps);
      const lin = (v: F32, name: string, out: number, gelu = false): F32 =>
        biasAct(
          matmulNN(v, this.p(`${pre}${name}.w`), m, out, v.length / m),
          this.p(`${pre}${name}.b`),
          out,
          gelu,
        );
      const q = lin(a, 'attn.q', d);
      const k = lin(a, 'attn.k', d);
      const v = lin(a, 'attn.v', d);
      for (let i = 0; i < m; i++) {
        const s = seqs[i] as SequenceCache;
        (s.keys[l] as F32).set(k.subarray(i * d, (i + 1) * d), (pos[i] as number) * d);
        (s.values[l] as F32).set(v.subarray(i * d, (i + 1) * d), (pos[i] as number) * d);
      }
      const att = new Float32Array(m * d);
      for (let i = 0; i < m; i++) this.attend(q, i, seqs[i] as SequenceCache, l, pos[i] as number, att);
      addInto(x, lin(att, 'attn.o', d));
      const mm = layerNorm(x, this.p(`${pre}ln_2.g`), this.p(`${pre}ln_2.b`), d, eps);
      addInto(x, lin(lin(mm, 'mlp.fc', 4 * d, true), 'mlp.proj', d));
    }
    const rows = new Float32Array(want.length * d);
    want.forEach((r, i) => rows.set(x.subarray(r * d, (r + 1) * d), i * d));
    const h = layerNorm(rows, this.p('ln_f.g'), this.p('ln_f.b'), d, eps);
    return matmulNT(h, wte, want.length, c.vocabSize, d);
  }

  /** src/gpu/cpu/ops-rows.ts `causalAttention` for one query row (position `t` of its sequence). */
  private attend(q: F32, row: number, s: SequenceCache, l: number, t: number, out: F32): void {
    const c = this.config;
    const d = c.nEmbd;
    const hd = headDim(c);
    const scale = 1 / Math.sqrt(hd);
    const keys = s.keys[l] as F32;
    const values = s.values[l] as F32;
    const probs = this.scores;
    const qo = row * d;
    for (let h = 0; h < c.nHead; h++) {
      const ho = h * hd;
      let mx = -Infinity;
      for (let j = 0; j <= t; j++) {
        const ko = j * d + ho;
        let sc = 0;
        for (let x = 0; x < hd; x++) sc += (q[qo + ho + x] as number) * (keys[ko + x] as number);
        sc *= scale;
        probs[j] = sc;
        if (sc > mx) mx = sc;
      }
      let total = 0;
      for (let j = 0; j <= t; j++) {
        const e = Math.exp((probs[j] as number) - mx);
        probs[j] = e;
        total += e;
      }
      for (let j = 0; j <= t; j++) {
        const p = (probs[j] as number) / total;
        const vo = j * d + ho;
        for (let x = 0; x < hd; x++)
          out[qo + ho + x] = (out[qo + ho + x] as number) + p * (values[vo + x] as number);
      }
    }
  }
}

/** Is token `id` allowed by a bitmask (bit id%32 of word id>>5)? */
export const allowed = (mask: Int32Array, id: number): boolean =>
  (((mask[id >>> 5] as number) >>> (id & 31)) & 1) === 1;

/**
 * log softmax(logits/τ) over the allowed tokens (others get MASKED_LOG_PROB), with the CPU
 * backend's `unary scale` then masked `softmax(log)`: the learner's graph computes the same row.
 */
export function maskedLogSoftmax(logits: F32, mask: Int32Array, temperature: number): F32 {
  const n = logits.length;
  const x = new Float32Array(n);
  const alpha = 1 / temperature;
  for (let i = 0; i < n; i++) x[i] = alpha * (logits[i] as number);
  let mx = -Infinity;
  for (let i = 0; i < n; i++) if (allowed(mask, i)) mx = Math.max(mx, x[i] as number);
  let s = 0;
  for (let i = 0; i < n; i++) if (allowed(mask, i)) s += Math.exp((x[i] as number) - mx);
  const lse = Math.log(s);
  const y = new Float32Array(n);
  for (let i = 0; i < n; i++) y[i] = allowed(mask, i) ? (x[i] as number) - mx - lse : MASKED_LOG_PROB;
  return y;
}
