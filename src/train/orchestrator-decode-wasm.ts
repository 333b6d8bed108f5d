/**
 * The orchestrator LM's sampler forward on the WebAssembly SIMD kernels: the same computation as
 * `CpuExactDecoder` (batched over sequences, a KV cache per sequence, logits of the rows asked
 * for), with its matrix products, layer norms, GELU and attention in the module. It is what the
 * GRPO trainer samples with when its learner runs on the wasm backend: the learner's log-probs then
 * differ from the sampler's by rounding only (the wasm kernels' f32 lanes on both sides; tested
 * within 1e-4), as they do between any two backends. On the TypeScript backend the trainer keeps
 * `CpuExactDecoder`, which is the learner's arithmetic bit for bit.
 *
 * Everything lives in one arena sized up front: the weights (`load` copies new ones in), the
 * key/value caches of at most `capacity` sequences (`reset` frees them all; the sampler resets at
 * the start of every batch, since no sequence outlives it), and scratch for `chunk` rows: a call
 * with more rows (a batch of prompts) runs in chunks of rows, in order, which computes the same
 * (every op but attention works row by row, and a row's attention reads only earlier positions).
 */
import { decodeKernels, type DecodeKernels } from '../gpu/index.ts';
import { headDim, type TinyGptConfig, type TinyGptWeights } from '../lm/index.ts';
import { appendPositions, type Decoder, type SequenceCache } from './orchestrator-decode.ts';

type F32 = Float32Array;

/** Rows per pass through the layers. */
const CHUNK = 128;

interface Slot {
  keys: F32[];
  values: F32[];
}

export class WasmDecoder implements Decoder {
  private readonly free: Slot[];
  private readonly owner = new Map<SequenceCache, Slot>();
  private readonly params = new Map<string, F32>();
  private readonly s: Record<
    'x' | 'a' | 'q' | 'k' | 'v' | 'att' | 'tmp' | 'fc' | 'stats' | 'h' | 'logits',
    F32
  >;
  private readonly probs: F32;

  private constructor(
    private readonly kern: DecodeKernels,
    private w: TinyGptWeights,
    private readonly slots: Slot[],
    readonly capacity: number,
    private readonly chunk: number,
  ) {
    const c = w.config;
    const d = c.nEmbd;
    for (const [name, a] of w.params) this.params.set(name, kern.f32(a.length));
    const rows = (n: number): F32 => kern.f32(chunk * n);
    this.s = {
      x: rows(d),
      a: rows(d),
      q: rows(d),
      k: rows(d),
      v: rows(d),
      att: rows(d),
      tmp: rows(d),
      fc: rows(4 * d),
      stats: rows(2),
      h: rows(d),
      logits: rows(c.vocabSize),
    };
    this.probs = kern.f32(c.nPositions);
    this.free = [...slots].reverse();
    this.load(w);
  }

  /** A decoder for `weights` holding at most `capacity` sequences at once. */
  static async create(weights: TinyGptWeights, capacity: number, chunk = CHUNK): Promise<WasmDecoder> {
    const c = weights.config;
    const d = c.nEmbd;
    let floats = 0;
    for (const a of weights.params.values()) floats += a.length + 4;
    const cache = c.nPositions * d;
    floats += capacity * c.nLayer * 2 * (cache + 4);
    floats += chunk * (9 * d + 4 * d + 2 + c.vocabSize) + c.nPositions + 64;
    const kern = await decodeKernels(floats);
    const slots = Array.from({ length: capacity }, () => ({
      keys: Array.from({ length: c.nLayer }, () => kern.f32(cache)),
      values: Array.from({ length: c.nLayer }, () => kern.f32(cache)),
    }));
    return new WasmDecoder(kern, weights, slots, capacity, chunk);
  }

  get config(): TinyGptConfig {
    return this.w.config;
  }

  get weights(): TinyGptWeights {
    return this.w;
  }

  /** Decodes with `weights` from now on (the same configuration). */
  load(weights: TinyGptWeights): void {
    if (JSON.stringify(weights.config) !== JSON.stringify(this.w.config))
      throw new Error('the weights were made for another model configuration');
    for (const [name, a] of weights.params) {
      const dst = this.params.get(name);
      if (!dst || dst.length !== a.length) throw new Error(`parameter ${name} does not fit the decoder`);
      dst.set(a);
    }
    this.w = weights;
  }

  /** Frees every sequence's cache (their SequenceCache objects must not be stepped again). */
  reset(): void {
    this.owner.clear();
    this.free.length = 0;
    this.free.push(...[...this.slots].reverse());
  }

  newSequence(): SequenceCache {
    const slot = this.free.pop();
    if (!slot)
      throw new Error(
        `the wasm decoder holds at most ${this.capacity} sequences at once (reset it between batches)`,
      );
    const seq: SequenceCache = { keys: slot.keys, values: slot.values, length: 0 };
    this.owner.set(seq, slot);
    return seq;
  }

  fork(s: SequenceCache): SequenceCache {
    const copy = this.newSequence();
    const n = s.length * this.config.nEmbd;
    for (let l = 0; l < this.config.nLayer; l++) {
      (copy.keys[l] as F32).set((s.keys[l] as F32).subarray(0, n));
      (copy.values[l] as F32).set((s.values[l] as F32).subarray(0, n));
    }
    copy.length = s.length;
    return copy;
  }

  step(seqs: readonly SequenceCache[], ids: readonly number[], want: readonly number[]): F32 {
    const c = this.config;
    const m = ids.length;
    for (const s of seqs)
      if (!this.owner.has(s))
        throw new Error('a sequence this decoder did not make (or made before a reset)');
    const pos = appendPositions(c, seqs, ids);
    const out = new Float32Array(want.length * c.vocabSize);
    const wantAt = new Map<number, number[]>();
    want.forEach((r, i) => {
      if (!Number.isInteger(r) || r < 0 || r >= m) throw new Error(`row ${r} out of range`);
      wantAt.set(r, [...(wantAt.get(r) ?? []), i]);
    });
    for (let r0 = 0; r0 < m; r0 += this.chunk) {
      const r1 = Math.min(m, r0 + this.chunk);
      this.rows(seqs, ids, pos, r0, r1);
      this.head(r0, r1, wantAt, out);
    }
    return out;
  }

  private p(name: string): F32 {
    const a = this.params.get(name);
    if (!a) throw new Error(`missing parameter ${name}`);
    return a;
  }

  /** Rows r0..r1 of a call through every layer, into `s.x`; their keys and values into the caches. */
  private rows(
    seqs: readonly SequenceCache[],
    ids: readonly number[],
    pos: Int32Array,
    r0: number,
    r1: number,
  ): void {
    const c = this.config;
    const d = c.nEmbd;
    const m = r1 - r0;
    const k = this.kern;
    const s = this.s;
    const view = (a: F32, width: number): F32 => a.subarray(0, m * width);
    const [x, a, q, kk, v, att, tmp, fc] = [s.x, s.a, s.q, s.k, s.v, s.att, s.tmp, s.fc].map((t, i) =>
      view(t, i === 7 ? 4 * d : d),
    ) as [F32, F32, F32, F32, F32, F32, F32, F32];
    const wte = this.p('wte');
    const wpe = this.p('wpe');
    for (let i = 0; i < m; i++) {
      const t = (ids[r0 + i] as number) * d;
      const e = (pos[r0 + i] as number) * d;
      for (let j = 0; j < d; j++) x[i * d + j] = (wte[t + j] as number) + (wpe[e + j] as number);
    }
    const lin = (src: F32, name: string, dst: F32, width: number, inner: number, gelu = false): void => {
      k.matmul(src, this.p(`${name}.w`), dst, m, width, inner, false);
      k.biasAct(dst, this.p(`${name}.b`), dst, width, gelu ? 'gelu' : 'none', m * width);
    };
    const eps = c.layerNormEps;
    const heads = c.nHead;
    headDim(c); // the config's head width must divide the model width (throws otherwise)
    for (let l = 0; l < c.nLayer; l++) {
      const pre = `h.${l}.`;
      k.layerNorm(x, this.p(`${pre}ln_1.g`), this.p(`${pre}ln_1.b`), a, s.stats, d, eps, m);
      lin(a, `${pre}attn.q`, q, d, d);
      lin(a, `${pre}attn.k`, kk, d, d);
      lin(a, `${pre}attn.v`, v, d, d);
      for (let i = 0; i < m; i++) {
        const seq = seqs[r0 + i] as SequenceCache;
        const at = (pos[r0 + i] as number) * d;
        (seq.keys[l] as F32).set(kk.subarray(i * d, (i + 1) * d), at);
        (seq.values[l] as F32).set(v.subarray(i * d, (i + 1) * d), at);
      }
      for (let i = 0; i < m; i++) {
        const seq = seqs[r0 + i] as SequenceCache;
        k.attendRow(
          q.subarray(i * d, (i + 1) * d),
          seq.keys[l] as F32,
          seq.values[l] as F32,
          att.subarray(i * d, (i + 1) * d),
          this.probs,
          pos[r0 + i] as number,
          heads,
        );
      }
      lin(att, `${pre}attn.o`, tmp, d, d);
      k.add(x, tmp, x, m * d);
      k.layerNorm(x, this.p(`${pre}ln_2.g`), this.p(`${pre}ln_2.b`), a, s.stats, d, eps, m);
      lin(a, `${pre}mlp.fc`, fc, 4 * d, d, true);
      lin(fc, `${pre}mlp.proj`, tmp, d, 4 * d);
      k.add(x, tmp, x, m * d);
    }
  }

  /** The logits of the wanted rows among r0..r1, into their places in `out`. */
  private head(r0: number, r1: number, wantAt: Map<number, number[]>, out: F32): void {
    const c = this.config;
    const d = c.nEmbd;
    const V = c.vocabSize;
    const picked: number[] = [];
    for (let r = r0; r < r1; r++) if (wantAt.has(r)) picked.push(r);
    if (picked.length === 0) return;
    const n = picked.length;
    const s = this.s;
    const h = s.h.subarray(0, n * d);
    picked.forEach((r, i) => h.set(s.x.subarray((r - r0) * d, (r - r0 + 1) * d), i * d));
    const a = s.a.subarray(0, n * d);
    this.kern.layerNorm(h, this.p('ln_f.g'), this.p('ln_f.b'), a, s.stats, d, c.layerNormEps, n);
    const logits = s.logits.subarray(0, n * V);
    this.kern.matmul(a, this.p('wte'), logits, n, V, d, true);
    picked.forEach((r, i) => {
      for (const o of wantAt.get(r) as number[]) out.set(logits.subarray(i * V, (i + 1) * V), o * V);
    });
  }
}
