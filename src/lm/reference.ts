/**
 * The tiny model's forward pass in plain TypeScript, written for clarity, not speed: the oracle the
 * compute-core graph and the ONNX export are both held to. It runs incrementally with a KV cache
 * (`step` takes the next tokens and appends their keys and values), so the same code checks a whole
 * sequence and token-by-token generation. Conventions are in `spec.ts`.
 */
import { headDim, type TinyGptConfig, type TinyGptWeights } from './spec.ts';

const GELU_C = Math.sqrt(2 / Math.PI);
const gelu = (z: number): number => 0.5 * z * (1 + Math.tanh(GELU_C * (z + 0.044715 * z * z * z)));

function p(w: TinyGptWeights, name: string): Float32Array {
  const a = w.params.get(name);
  if (!a) throw new Error(`missing parameter ${name}`);
  return a;
}

function layerNorm(x: Float32Array, g: Float32Array, b: Float32Array, eps: number): Float32Array {
  const n = x.length;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += x[i] as number;
  mean /= n;
  let v = 0;
  for (let i = 0; i < n; i++) v += ((x[i] as number) - mean) ** 2;
  const inv = 1 / Math.sqrt(v / n + eps);
  const y = new Float32Array(n);
  for (let i = 0; i < n; i++) y[i] = ((x[i] as number) - mean) * inv * (g[i] as number) + (b[i] as number);
  return y;
}

/** y = x·W + b for one row x of length `inDim`; W is [inDim, outDim]. */
function linear(x: Float32Array, w: Float32Array, b: Float32Array, outDim: number): Float32Array {
  const y = Float32Array.from(b);
  for (let i = 0; i < x.length; i++) {
    const xi = x[i] as number;
    const row = i * outDim;
    for (let j = 0; j < outDim; j++) y[j] = (y[j] as number) + xi * (w[row + j] as number);
  }
  return y;
}

/** Keys and values of every layer so far: layer → position → [nEmbd] (heads side by side). */
export interface KvCache {
  readonly keys: Float32Array[][];
  readonly values: Float32Array[][];
}

export const emptyCache = (c: TinyGptConfig): KvCache => ({
  keys: Array.from({ length: c.nLayer }, () => []),
  values: Array.from({ length: c.nLayer }, () => []),
});

export const cacheLength = (cache: KvCache): number => cache.keys[0]?.length ?? 0;

/**
 * Runs `ids` after what `cache` holds (positions continue from the cache's length), appends their
 * keys and values to `cache`, and returns the logits of every new position, [ids.length, vocabSize].
 */
export function step(w: TinyGptWeights, ids: readonly number[], cache: KvCache): Float32Array {
  const c = w.config;
  const d = c.nEmbd;
  const hd = headDim(c);
  const wte = p(w, 'wte');
  const wpe = p(w, 'wpe');
  const out = new Float32Array(ids.length * c.vocabSize);
  const start = cacheLength(cache);
  if (start + ids.length > c.nPositions) {
    throw new Error(
      `sequence of ${start + ids.length} tokens is longer than the model's ${c.nPositions} positions`,
    );
  }
  const hidden: Float32Array[] = ids.map((id, t) => {
    if (!Number.isInteger(id) || id < 0 || id >= c.vocabSize) throw new Error(`token id ${id} out of range`);
    const x = new Float32Array(d);
    for (let j = 0; j < d; j++) x[j] = (wte[id * d + j] as number) + (wpe[(start + t) * d + j] as number);
    return x;
  });
  for (let l = 0; l < c.nLayer; l++) {
    const pre = `h.${l}.`;
    const keys = cache.keys[l] as Float32Array[];
    const values = cache.values[l] as Float32Array[];
    const queries: Float32Array[] = [];
    for (const x of hidden) {
      const a = layerNorm(x, p(w, `${pre}ln_1.g`), p(w, `${pre}ln_1.b`), c.layerNormEps);
      queries.push(linear(a, p(w, `${pre}attn.q.w`), p(w, `${pre}attn.q.b`), d));
      keys.push(linear(a, p(w, `${pre}attn.k.w`), p(w, `${pre}attn.k.b`), d));
      values.push(linear(a, p(w, `${pre}attn.v.w`), p(w, `${pre}attn.v.b`), d));
    }
    hidden.forEach((x, t) => {
      const q = queries[t] as Float32Array;
      const visible = start + t + 1; // causal: this position and the ones before it
      const attn = new Float32Array(d);
      for (let h = 0; h < c.nHead; h++) {
        const o = h * hd;
        const scores = new Float64Array(visible);
        let max = -Infinity;
        for (let s = 0; s < visible; s++) {
          const k = keys[s] as Float32Array;
          let dot = 0;
          for (let j = 0; j < hd; j++) dot += (q[o + j] as number) * (k[o + j] as number);
          scores[s] = dot / Math.sqrt(hd);
          max = Math.max(max, scores[s] as number);
        }
        let sum = 0;
        for (let s = 0; s < visible; s++) {
          scores[s] = Math.exp((scores[s] as number) - max);
          sum += scores[s] as number;
        }
        for (let s = 0; s < visible; s++) {
          const v = values[s] as Float32Array;
          const wgt = (scores[s] as number) / sum;
          for (let j = 0; j < hd; j++) attn[o + j] = (attn[o + j] as number) + wgt * (v[o + j] as number);
        }
      }
      const proj = linear(attn, p(w, `${pre}attn.o.w`), p(w, `${pre}attn.o.b`), d);
      for (let j = 0; j < d; j++) x[j] = (x[j] as number) + (proj[j] as number);
      const m = layerNorm(x, p(w, `${pre}ln_2.g`), p(w, `${pre}ln_2.b`), c.layerNormEps);
      const fc = linear(m, p(w, `${pre}mlp.fc.w`), p(w, `${pre}mlp.fc.b`), 4 * d).map(gelu);
      const mlp = linear(fc, p(w, `${pre}mlp.proj.w`), p(w, `${pre}mlp.proj.b`), d);
      for (let j = 0; j < d; j++) x[j] = (x[j] as number) + (mlp[j] as number);
    });
  }
  hidden.forEach((x, t) => {
    const h = layerNorm(x, p(w, 'ln_f.g'), p(w, 'ln_f.b'), c.layerNormEps);
    for (let v = 0; v < c.vocabSize; v++) {
      let dot = 0;
      for (let j = 0; j < d; j++) dot += (h[j] as number) * (wte[v * d + j] as number);
      out[t * c.vocabSize + v] = dot;
    }
  });
  return out;
}

/** Logits of every position of `ids`, [ids.length, vocabSize]. */
export const forward = (w: TinyGptWeights, ids: readonly number[]): Float32Array =>
  step(w, ids, emptyCache(w.config));

/** Greedy decoding with the cache: up to `maxNew` tokens after `prompt`, stopping after `eos`. */
export function greedy(
  w: TinyGptWeights,
  prompt: readonly number[],
  maxNew: number,
  eos: number | null,
): number[] {
  const cache = emptyCache(w.config);
  const outIds: number[] = [];
  let logits = step(w, prompt, cache);
  let row = prompt.length - 1;
  for (let i = 0; i < maxNew && cacheLength(cache) < w.config.nPositions; i++) {
    const V = w.config.vocabSize;
    let best = 0;
    for (let v = 1; v < V; v++)
      if ((logits[row * V + v] as number) > (logits[row * V + best] as number)) best = v;
    outIds.push(best);
    if (best === eos || cacheLength(cache) >= w.config.nPositions) break;
    logits = step(w, [best], cache);
    row = 0;
  }
  return outIds;
}
