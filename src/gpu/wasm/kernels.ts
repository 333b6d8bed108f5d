/**
 * The WebAssembly SIMD kernels from the host's side: the module (compiled once, on first use), an
 * arena (one memory per model, sized once so views into it never detach) and `wasmKernels`, which
 * has the signatures of the TypeScript kernels (src/gpu/cpu/ops.ts) and runs the ported ones in
 * the module. A call whose arrays do not all live in the arena's memory runs the TypeScript kernel
 * instead, as do the kernels that were not ported (binary, unary, pick, reduce, ...).
 */
import type { Activation, BinaryOp, UnaryOp } from '../graph.ts';
import { TS_KERNELS, type Kernels } from '../cpu/runtime.ts';
import * as ops from '../cpu/ops.ts';
import { adamStep, clipScale } from '../optimizer.ts';
import type { Exports } from './exports.ts';
import { CTRL_SLOTS, MatmulThreads, THREAD_SOURCE, type ThreadSpawner } from './threads.ts';

const ACT: Record<Activation, number> = { none: 0, relu: 1, tanh: 2, gelu: 3, sigmoid: 4 };
const BINARY: Record<BinaryOp, number> = { add: 0, sub: 1, mul: 2 };
/** Unary ops the module runs (log runs the TypeScript kernel). */
const UNARY: Partial<Record<UnaryOp, number>> = { scale: 0, exp: 1, sigmoid: 2, tanh: 3 };
/** Products with at most this many columns or this depth run `sparseRows` instead of the tiled matmul. */
const SMALL = 2;
/** The matmul's `transB` value for "B is op(B) packed whole" (assembly/matmul.ts). */
const PACKED = 2;

/** Floats of op(B) [k, n] packed whole (assembly/matmul.ts `packedBFloats`: NR = 8). */
export function packedBFloats(n: number, k: number): number {
  return k * Math.ceil(n / 8) * 8;
}

/** A weight's op(B) packed whole, and the weights version it was packed at. */
interface Pack {
  ptr: number;
  n: number;
  k: number;
  version: number;
}
const PAGE = 65536;

let compiled: Promise<WebAssembly.Module> | null = null;

/** The compiled module; its bytes (a separate chunk in the app) load on the first call. */
export function kernelsModule(): Promise<WebAssembly.Module> {
  compiled ??= import('./kernels-bytes.ts').then(({ KERNELS_WASM_BASE64 }) =>
    WebAssembly.compile(decodeBase64(KERNELS_WASM_BASE64)),
  );
  return compiled;
}

let compiledShared: Promise<WebAssembly.Module> | null = null;

/** The shared-memory build of the same kernels (for a second thread); loads on the first call. */
export function sharedKernelsModule(): Promise<WebAssembly.Module> {
  compiledShared ??= import('./kernels-shared-bytes.ts').then(({ KERNELS_SHARED_WASM_BASE64 }) =>
    WebAssembly.compile(decodeBase64(KERNELS_SHARED_WASM_BASE64)),
  );
  return compiledShared;
}

function decodeBase64(b64: string): Uint8Array<ArrayBuffer> {
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

/** One memory with an instance of the kernels and a bump allocator of 16-byte-aligned arrays. */
export class WasmArena {
  private next: number;
  private readonly end: number;
  /** The matmul's packing workspace. */
  readonly work: number;
  /** Kernel calls the module ran, by kernel name (the rest ran in TypeScript): tests, profiling. */
  readonly calls = new Map<string, number>();
  /** The second matmul thread, when the arena was created with a spawner. */
  threads: MatmulThreads | null = null;
  /** Byte range of the model's weights (`setWeights`): a product whose B lies in it uses a cached pack. */
  private weightsLo = 0;
  private weightsHi = 0;
  /** Bumped by `weightsChanged` (each optimizer step, each import): packs of older versions are stale. */
  private weightsVersion = 0;
  /** Packs by B's byte offset, transB and shape. */
  private readonly packs = new Map<string, Pack>();

  private constructor(
    readonly memory: WebAssembly.Memory,
    readonly exports: Exports,
    floats: number,
    threaded: boolean,
  ) {
    this.next = align(exports.heapBase(), 64);
    this.work = this.next;
    this.next += align(exports.matmulWorkBytes(), 64) * (threaded ? 2 : 1) + (threaded ? 4 * CTRL_SLOTS : 0);
    this.end = this.next + floats * 4;
  }

  /**
   * An arena with room for `floats` floats of arrays (each rounded up to 4) besides the workspace.
   * With `spawn`, the memory is shared and large products run on two threads (threads.ts).
   */
  static async create(floats: number, spawn?: ThreadSpawner): Promise<WasmArena> {
    const module = await (spawn ? sharedKernelsModule() : kernelsModule());
    // Static data, workspace(s), control block and arrays; the module's data sits below heapBase (a few kB).
    const probe = spawn
      ? new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true })
      : new WebAssembly.Memory({ initial: 1 });
    const bare = (await WebAssembly.instantiate(module, { env: { memory: probe } })) as unknown as {
      exports: Exports;
    };
    const work = align(bare.exports.matmulWorkBytes(), 64);
    const bytes =
      align(bare.exports.heapBase(), 64) + (spawn ? 2 * work + 4 * CTRL_SLOTS : work) + floats * 4;
    const pages = Math.ceil(bytes / PAGE) + 1;
    if (pages > 65536) throw new Error(`the wasm backend needs ${bytes} bytes, more than 4 GiB`);
    const memory = spawn
      ? new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true })
      : new WebAssembly.Memory({ initial: pages });
    const inst = (await WebAssembly.instantiate(module, { env: { memory } })) as unknown as {
      exports: Exports;
    };
    const arena = new WasmArena(memory, inst.exports, floats, !!spawn);
    if (spawn) {
      const workerWork = arena.work + work;
      const ctrl = workerWork + work;
      const worker = await spawn(THREAD_SOURCE, { module, memory, ctrl, work: workerWork });
      arena.threads = new MatmulThreads(memory, ctrl, inst.exports.matmulRows, arena.work, worker);
    }
    return arena;
  }

  /** Stops the second thread, if any (the arena stays usable on one thread). */
  close(): void {
    this.threads?.close();
    this.threads = null;
  }

  private take(len: number): number {
    const at = this.next;
    this.next += align(len * 4, 16);
    if (this.next > this.end) throw new Error('wasm arena exhausted (sizing error)');
    return at;
  }

  /** Marks `weights` (an array of this arena) as the model's weights: products reading them as B pack them once per version. */
  setWeights(weights: Float32Array): void {
    this.weightsLo = this.ptr(weights);
    this.weightsHi = this.weightsLo < 0 ? 0 : this.weightsLo + weights.byteLength;
    this.weightsChanged();
  }

  /** The weights were written (optimizer step, import): every pack is repacked on its next use. */
  weightsChanged(): void {
    this.weightsVersion++;
  }

  /**
   * The byte offset of op(B) packed whole for a B of the weights (packed now when stale or new),
   * or −1 when B is not a weight or no room is left for its pack (then the product packs B itself).
   */
  packedB(b: number, bytes: number, n: number, k: number, transB: boolean): number {
    if (b < this.weightsLo || b + bytes > this.weightsHi) return -1;
    const key = `${b}:${+transB}:${n}:${k}`;
    let pack = this.packs.get(key);
    if (!pack) {
      const floats = this.exports.packedBFloats(n, k);
      if (this.next + floats * 4 > this.end) return -1;
      pack = { ptr: this.take(floats), n, k, version: -1 };
      this.packs.set(key, pack);
    }
    if (pack.version !== this.weightsVersion) {
      this.exports.packBAll(b, pack.ptr, n, k, +transB);
      pack.version = this.weightsVersion;
      this.calls.set('packB', (this.calls.get('packB') ?? 0) + 1);
    }
    return pack.ptr;
  }
  f32(len: number): Float32Array {
    return new Float32Array(this.memory.buffer, this.take(len), len);
  }
  u32(len: number): Uint32Array {
    return new Uint32Array(this.memory.buffer, this.take(len), len);
  }
  /** Byte offset of an array in this memory, or −1 when it lives elsewhere. */
  ptr(a: Float32Array | Uint32Array | null): number {
    if (a === null) return 0;
    return a.buffer === this.memory.buffer ? a.byteOffset : -1;
  }
}

function align(n: number, to: number): number {
  return Math.ceil(n / to) * to;
}

/** Floats an arena needs for arrays of these lengths (each rounded up to 4). */
export function arenaFloats(lengths: Iterable<number>): number {
  let total = 0;
  for (const n of lengths) total += align(n, 4);
  return total;
}

/** The kernel table of the wasm backend: the TypeScript kernels with the ported ones replaced. */
export function wasmKernels(arena: WasmArena): Kernels {
  const x = arena.exports;
  /** Pointers of all arrays, or null when one is outside the arena (then the TypeScript kernel runs). */
  const ptrs = (...arrays: (Float32Array | Uint32Array | null)[]): number[] | null => {
    const out = arrays.map((a) => arena.ptr(a));
    return out.includes(-1) ? null : out;
  };
  const ran = (name: string): void => {
    arena.calls.set(name, (arena.calls.get(name) ?? 0) + 1);
  };
  return {
    ...TS_KERNELS,
    matmul(A, B, C, batch, m, n, k, transA, transB, accumulate) {
      const p = ptrs(A, B, C);
      if (!p) return ops.matmul(A, B, C, batch, m, n, k, transA, transB, accumulate);
      ran('matmul');
      // A product with one or two columns or a depth of one or two (a column of ones summing a
      // row, a weight column widened to a matrix) would be mostly padding in 8-column panels.
      if (batch === 1 && !transA && !transB && (n <= SMALL || k <= SMALL)) {
        ran('matmulSmall');
        return x.sparseRows(p[0]!, p[1]!, p[2]!, m, n, k, 0, k, +accumulate);
      }
      let [b, tb] = [p[1]!, +transB];
      const packed = batch === 1 ? arena.packedB(b, B.byteLength, n, k, transB) : -1;
      if (packed >= 0) {
        [b, tb] = [packed, PACKED];
        ran('matmulPacked');
      }
      const args = [p[0]!, b, p[2]!, batch, m, n, k, +transA, tb, +accumulate];
      if (arena.threads?.matmul(args, m, n, k, batch)) return ran('matmul2');
      x.matmul(p[0]!, b, p[2]!, batch, m, n, k, +transA, tb, +accumulate, arena.work);
    },
    matmulSharedPrefix(A, B, C, m, n, k, d, ids, partials) {
      const p = ptrs(A, B, C);
      if (!p) return ops.matmulSharedPrefix(A, B, C, m, n, k, d, ids, partials);
      ran('matmulSharedPrefix');
      const [a, b, c] = [p[0]!, p[1]!, p[2]!];
      // Each distinct prefix summed once (then copied), then every row's other columns on top.
      for (let i = 0; i < m; i++) {
        const id = ids[i] as number;
        const hit = partials[id];
        if (hit) C.set(hit, i * n);
        else {
          x.sparseRows(a + i * k * 4, b, c + i * n * 4, 1, n, k, 0, d, 0);
          partials[id] = C.slice(i * n, (i + 1) * n);
        }
      }
      x.sparseRows(a, b, c, m, n, k, d, k, 1);
    },
    binary(op, a, b, y, count = y.length) {
      const p = ptrs(a, b, y);
      if (!p) return ops.binary(op, a, b, y, count);
      ran('binary');
      x.binary(BINARY[op], p[0]!, p[1]!, p[2]!, count);
    },
    binaryGrad(op, which, a, b, gy, g, count = gy.length) {
      const p = ptrs(a, b, gy, g);
      if (!p) return ops.binaryGrad(op, which, a, b, gy, g, count);
      ran('binaryGrad');
      x.binaryGrad(BINARY[op], which, p[0]!, p[1]!, p[2]!, p[3]!, count);
    },
    unary(op, xs, y, alpha, count = xs.length) {
      const p = ptrs(xs, y);
      const code = UNARY[op];
      if (!p || code === undefined) return ops.unary(op, xs, y, alpha, count);
      ran('unary');
      x.unary(code, p[0]!, p[1]!, alpha, count);
    },
    unaryGrad(op, xs, y, gy, gx, alpha, count = xs.length) {
      const p = ptrs(y, gy, gx);
      const code = UNARY[op];
      if (!p || code === undefined) return ops.unaryGrad(op, xs, y, gy, gx, alpha, count);
      ran('unaryGrad');
      x.unaryGrad(code, p[0]!, p[1]!, p[2]!, alpha, count);
    },
    biasAct(xs, bias, y, cols, act, count = xs.length) {
      const p = ptrs(xs, bias, y);
      if (!p) return ops.biasAct(xs, bias, y, cols, act, count);
      ran('biasAct');
      x.biasAct(p[0]!, p[1]!, p[2]!, cols, ACT[act], count);
    },
    biasActGrad(xs, bias, gy, gx, gb, cols, act, count = xs.length) {
      const p = ptrs(xs, bias, gy, gx, gb);
      if (!p) return ops.biasActGrad(xs, bias, gy, gx, gb, cols, act, count);
      ran('biasActGrad');
      x.biasActGrad(p[0]!, p[1]!, p[2]!, p[3]!, p[4]!, cols, ACT[act], count);
    },
    softmax(xs, mask, maskRows, y, cols, log, rows = xs.length / cols) {
      const p = ptrs(xs, mask, y);
      if (!p) return ops.softmax(xs, mask, maskRows, y, cols, log, rows);
      ran('softmax');
      x.softmax(p[0]!, p[1]!, maskRows, p[2]!, cols, +log, rows);
    },
    softmaxGrad(y, gy, mask, maskRows, gx, cols, log, rows = y.length / cols) {
      const p = ptrs(y, gy, mask, gx);
      if (!p) return ops.softmaxGrad(y, gy, mask, maskRows, gx, cols, log, rows);
      ran('softmaxGrad');
      x.softmaxGrad(p[0]!, p[1]!, p[2]!, maskRows, p[3]!, cols, +log, rows);
    },
    gatherRows(table, idx, out, cols, accumulate, count = idx.length) {
      const p = ptrs(table, idx, out);
      if (!p || !indicesBelow(idx, count, table.length / cols))
        return ops.gatherRows(table, idx, out, cols, accumulate, count);
      ran('gatherRows');
      x.gatherRows(p[0]!, p[1]!, p[2]!, cols, +accumulate, count);
    },
    scatterAddRows(src, idx, out, cols, accumulate, count = idx.length) {
      const p = ptrs(src, idx, out);
      if (!p || !indicesBelow(idx, count, out.length / cols))
        return ops.scatterAddRows(src, idx, out, cols, accumulate, count);
      ran('scatterAddRows');
      x.scatterAddRows(p[0]!, p[1]!, p[2]!, cols, +accumulate, count, out.length);
    },
    layerNorm(xs, gamma, beta, y, stats, cols, eps, rows = xs.length / cols) {
      const p = ptrs(xs, gamma, beta, y, stats);
      if (!p) return ops.layerNorm(xs, gamma, beta, y, stats, cols, eps, rows);
      ran('layerNorm');
      x.layerNorm(p[0]!, p[1]!, p[2]!, p[3]!, p[4]!, cols, eps, rows);
    },
    layerNormGrad(xs, gamma, stats, gy, gx, gGamma, gBeta, cols, rows = xs.length / cols) {
      const p = ptrs(xs, gamma, stats, gy, gx, gGamma, gBeta);
      if (!p) return ops.layerNormGrad(xs, gamma, stats, gy, gx, gGamma, gBeta, cols, rows);
      ran('layerNormGrad');
      x.layerNormGrad(p[0]!, p[1]!, p[2]!, p[3]!, p[4]!, p[5]!, p[6]!, cols, rows);
    },
    crossEntropy(xs, targets, weights, stats, cols) {
      const p = ptrs(xs, targets, weights, stats);
      // Out-of-range targets: the TypeScript kernel throws the error.
      if (!p || !indicesBelow(targets, targets.length, cols))
        return ops.crossEntropy(xs, targets, weights, stats, cols);
      ran('crossEntropy');
      return x.crossEntropy(p[0]!, p[1]!, p[2]!, p[3]!, cols, targets.length);
    },
    crossEntropyGrad(xs, targets, weights, stats, gy, gx, cols) {
      const p = ptrs(xs, targets, weights, stats, gx);
      if (!p || !indicesBelow(targets, targets.length, cols))
        return ops.crossEntropyGrad(xs, targets, weights, stats, gy, gx, cols);
      ran('crossEntropyGrad');
      x.crossEntropyGrad(p[0]!, p[1]!, p[2]!, p[3]!, gy, p[4]!, cols, targets.length);
    },
    causalAttention(q, k, v, out, probs, batch, seq, heads, segments = null) {
      const p = ptrs(q, k, v, out, probs, segments);
      if (!p) return ops.causalAttention(q, k, v, out, probs, batch, seq, heads, segments);
      ran('causalAttention');
      x.causalAttention(
        p[0]!,
        p[1]!,
        p[2]!,
        p[3]!,
        p[4]!,
        batch,
        seq,
        heads,
        q.length / (batch * seq),
        p[5]!,
      );
    },
    causalAttentionGrad(q, k, v, out, probs, gOut, gq, gk, gv, batch, seq, heads) {
      const p = ptrs(q, k, v, out, probs, gOut, gq, gk, gv);
      if (!p) return ops.causalAttentionGrad(q, k, v, out, probs, gOut, gq, gk, gv, batch, seq, heads);
      const d = q.length / (batch * seq);
      ran('causalAttentionGrad');
      x.causalAttentionGrad(
        p[0]!,
        p[1]!,
        p[2]!,
        p[3]!,
        p[4]!,
        p[5]!,
        p[6]!,
        p[7]!,
        p[8]!,
        batch,
        seq,
        heads,
        d,
      );
    },
    adamStep(params, g, m, v, t, c) {
      const p = ptrs(params, g, m, v);
      if (!p) return adamStep(params, g, m, v, t, c);
      const norm = Math.sqrt(x.sumSquares(p[1]!, g.length));
      const s = clipScale(norm, c.clipNorm);
      const bc1 = 1 - Math.pow(c.beta1, t);
      const bc2 = 1 - Math.pow(c.beta2, t);
      ran('adam');
      x.adam(
        p[0]!,
        p[1]!,
        p[2]!,
        p[3]!,
        params.length,
        s,
        c.beta1,
        c.beta2,
        bc1,
        bc2,
        c.lr,
        c.eps,
        c.weightDecay,
      );
      return norm;
    },
  };
}

/** True when the first `count` indices are below `rows` (the module does not bounds-check). */
function indicesBelow(idx: Uint32Array, count: number, rows: number): boolean {
  for (let i = 0; i < count; i++) if ((idx[i] as number) >= rows) return false;
  return true;
}
