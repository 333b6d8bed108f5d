/**
 * The device side of a WebGPU model (model.ts): everything it holds on one device, and where each
 * kernel binding (plan-calls.ts `Ref`) points in it.
 *
 * Buffer byte layouts (all little-endian, 4-byte elements):
 * - params / grads / m / v arenas: f32[layout.total]; parameter p occupies floats
 *   [offset(p), offset(p) + size(p)), offsets aligned to 64 floats = 256 bytes (see layout.ts).
 * - one buffer per input and per op output: row-major f32 (u32 for index inputs), size(shape) × 4 bytes.
 * - one gradient buffer per non-parameter node on the loss path, same layout as its value.
 * - uniform arena: one 256-byte slot per kernel call (minUniformBufferOffsetAlignment), the first
 *   64 bytes bound; words are u32, f32 fields stored as their bit patterns (plan.ts f32Bits).
 * - norm: f32[2] = [‖g‖₂ before clipping, clip scale].
 * - a step's read-back: f32[2 + Σ read sizes] = [loss, ‖g‖₂, then each tensor of RunOptions.read
 *   in the order asked]; one mappable buffer per step in flight (takeReadback).
 */
import type { Graph } from '../graph.ts';
import { size } from '../graph.ts';
import type { ParamLayout } from '../layout.ts';
import { maxChunks, type Csr, type CsrScratch } from './csr.ts';
import { PipelineCache } from './pipelines.ts';
import type { Call, Plan, Ref } from './plan.ts';
import { BufferPool } from './pool.ts';
import type { GpuCounters } from './device.ts';
import { changedSpan, type Encoded } from './profile.ts';

/** One 256-byte uniform slot per kernel call (minUniformBufferOffsetAlignment), the first 64 bytes bound. */
export const UNIFORM_SLOT = 256;
export const UNIFORM_BIND = 64;

/** Everything that lives on one device; rebuilt from the plan and the host copy after a loss. */
export interface DeviceState {
  generation: number;
  pool: BufferPool;
  pipelines: PipelineCache;
  /** Every buffer this model took from the pool; released back to it by dispose(). */
  owned: GPUBuffer[];
  take: (bytes: number, usage: GPUBufferUsageFlags, label: string) => GPUBuffer;
  values: (GPUBuffer | null)[];
  grads: (GPUBuffer | null)[];
  temps: Map<string, GPUBuffer>;
  /** Per-row lists of each index input used by a scatter, by `idx:rows` (see csr.ts). */
  csr: Map<string, CsrBuffers>;
  /** The uniform arena's words as last written (live.ts rewrites a call's sizes when live rows change). */
  words: Uint32Array;
  /** Room of `words`' length where the next sizes are worked out (allocated once, not per step). */
  nextWords: Uint32Array;
  /** Live rows of every node as the encoded calls are sized (null: not applied yet). */
  live: Int32Array | null;
  arenas: Record<'params' | 'grads' | 'm' | 'v', GPUBuffer>;
  norm: GPUBuffer;
  ones: GPUBuffer;
  zeros: GPUBuffer;
  sink: GPUBuffer;
  uniforms: GPUBuffer;
  /**
   * Free mappable buffers for steps' read-backs, by byte size (takeReadback): a step in flight
   * holds its own until it has read it, so several steps can be in flight.
   */
  readbacks: Map<number, GPUBuffer[]>;
  forward: Encoded[];
  backward: Encoded[];
  update: Encoded[];
  /** Gradient buffers zeroed at the start of every backward pass (the loss seed is not among them). */
  clear: GPUBuffer[];
}

/** The device copy of one index input's row lists for one scatter shape, and what it holds. */
export interface CsrBuffers {
  offsets: GPUBuffer;
  sources: GPUBuffer;
  chunks: GPUBuffer;
  chunkRow: GPUBuffer;
  /** The lists as last uploaded (null: none yet): views of one of `rooms`. */
  host: Csr | null;
  /** Two rooms the lists are built in by turns (the last upload's stays intact to compare with). */
  rooms: [CsrScratch, CsrScratch] | null;
  /** The live positions of the index the lists were built from. */
  count: number;
}

/** The buffer range a binding of call refs points at. */
export function bindingOf(graph: Graph, layout: ParamLayout, s: DeviceState, r: Ref): GPUBufferBinding {
  const paramSlice = (buf: GPUBuffer, id: number): GPUBufferBinding => ({
    buffer: buf,
    offset: (layout.offsets.get(id) ?? 0) * 4,
    size: size(graph.node(id).shape) * 4,
  });
  switch (r.t) {
    case 'value': {
      if (graph.node(r.id).op.kind === 'param') return paramSlice(s.arenas.params, r.id);
      return { buffer: s.values[r.id] as GPUBuffer, size: size(graph.node(r.id).shape) * 4 };
    }
    case 'grad': {
      if (graph.node(r.id).op.kind === 'param') return paramSlice(s.arenas.grads, r.id);
      const g = s.grads[r.id];
      if (!g) throw new Error(`node ${r.id} has no gradient buffer`);
      return { buffer: g, size: size(graph.node(r.id).shape) * 4 };
    }
    case 'temp': {
      const key = `${r.id}:${r.slot}`;
      let buf = s.temps.get(key);
      if (!buf) {
        const S = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC;
        buf = s.take(r.floats * 4, S, `temp ${key}`);
        s.temps.set(key, buf);
      }
      return { buffer: buf, size: r.floats * 4 };
    }
    case 'csr': {
      const bufs = s.csr.get(`${r.idx}:${r.rows}`);
      if (!bufs) throw new Error(`no CSR lists for index ${r.idx}`);
      const count = size(graph.node(r.idx).shape);
      if (r.part === 'offsets') return { buffer: bufs.offsets, size: (r.rows + 1) * 4 };
      if (r.part === 'chunks') return { buffer: bufs.chunks, size: (r.rows + 1) * 4 };
      if (r.part === 'chunkRow') return { buffer: bufs.chunkRow, size: maxChunks(count, r.rows) * 4 };
      return { buffer: bufs.sources, size: Math.max(1, count) * 4 };
    }
    case 'arena':
      return { buffer: s.arenas[r.which], size: layout.total * 4 };
    case 'norm':
      return { buffer: s.norm, size: 8 };
    case 'ones':
      return { buffer: s.ones, size: r.floats * 4 };
    case 'zeros':
      return { buffer: s.zeros, size: r.floats * 4 };
    case 'sink':
      return { buffer: s.sink };
  }
}

/**
 * One buffer pool and one pipeline cache per device, shared by every model on it: a new model
 * compiles no kernel another model already compiled, and a disposed model's buffers serve the next.
 * A recovered context has a new device, hence fresh caches.
 */
const perDevice = new WeakMap<GPUDevice, { pool: BufferPool; pipelines: PipelineCache }>();

export function deviceCaches(device: GPUDevice): { pool: BufferPool; pipelines: PipelineCache } {
  let c = perDevice.get(device);
  if (!c) {
    c = { pool: new BufferPool(device), pipelines: new PipelineCache(device) };
    perDevice.set(device, c);
  }
  return c;
}

/** Copies `bytes` of `buf` from `offset` into a new mappable buffer and reads them (one submission, one read-back, counted). */
export async function readBack(
  device: GPUDevice,
  counters: { submissions: number; readbacks: number },
  buf: GPUBuffer,
  offset: number,
  bytes: number,
): Promise<Float32Array> {
  return (await readBackMany(device, counters, [{ buf, offset, bytes }]))[0] as Float32Array;
}

/**
 * Several ranges read back together: one staging buffer, one submission, one map. Each range's
 * bytes (a multiple of 4) come back as their own array, in the order given.
 */
export async function readBackMany(
  device: GPUDevice,
  counters: { submissions: number; readbacks: number },
  ranges: readonly { buf: GPUBuffer; offset: number; bytes: number }[],
): Promise<Float32Array[]> {
  const total = ranges.reduce((n, r) => n + r.bytes, 0);
  const staging = device.createBuffer({
    size: Math.max(4, total),
    usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
  });
  const enc = device.createCommandEncoder();
  let at = 0;
  for (const r of ranges) {
    if (r.bytes > 0) enc.copyBufferToBuffer(r.buf, r.offset, staging, at, r.bytes);
    at += r.bytes;
  }
  device.queue.submit([enc.finish()]);
  counters.submissions += 1;
  await staging.mapAsync(GPUMapMode.READ);
  counters.readbacks += 1;
  const mapped = staging.getMappedRange();
  at = 0;
  const out = ranges.map((r) => {
    const a = new Float32Array(mapped.slice(at, at + r.bytes));
    at += r.bytes;
    return a;
  });
  staging.unmap();
  staging.destroy();
  return out;
}

/** Call `c`'s pipeline and bind group on `s` (its uniform words at slot `slot`), and its workgroups. */
export function encodeCall(
  device: GPUDevice,
  graph: Graph,
  layout: ParamLayout,
  s: DeviceState,
  c: Call,
  slot: number,
): Encoded {
  const pipeline = s.pipelines.get(c.kernel, c.constants);
  const entries: GPUBindGroupEntry[] = [
    { binding: 0, resource: { buffer: s.uniforms, offset: slot * UNIFORM_SLOT, size: UNIFORM_BIND } },
    ...c.refs.map((r, i) => ({ binding: i + 1, resource: bindingOf(graph, layout, s, r) })),
  ];
  const bindGroup = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries });
  return { pipeline, bindGroup, wg: c.wg };
}

/** What a model's device state is built from (model.ts). */
export interface StateSpec {
  graph: Graph;
  layout: ParamLayout;
  plan: Plan;
  /** Nodes on the loss path: each gets a gradient buffer. */
  backwardIds: readonly number[];
  lossId: number | null;
  /** The (index input, destination rows) pairs whose CSR lists the scatter calls read. */
  csrKeys: readonly { idx: number; rows: number }[];
}

/**
 * Every buffer of one model on `device`, its uniform arena written with the plan's words and every
 * call bound (encodeCall). Parameters, Adam moments, inputs and CSR lists are left for the model to
 * restore from its host copies.
 */
export function buildDeviceState(device: GPUDevice, generation: number, spec: StateSpec): DeviceState {
  const { graph, layout, plan } = spec;
  const { pool, pipelines } = deviceCaches(device);
  const owned: GPUBuffer[] = [];
  const take = (bytes: number, usage: GPUBufferUsageFlags, label: string): GPUBuffer => {
    const b = pool.acquire(bytes, usage, label);
    owned.push(b);
    return b;
  };
  const S = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
  const total = layout.total * 4;
  const arenas = {
    params: take(total, S, 'params'),
    grads: take(total, S, 'grads'),
    m: take(total, S, 'adam m'),
    v: take(total, S, 'adam v'),
  };
  const values: (GPUBuffer | null)[] = [];
  const grads: (GPUBuffer | null)[] = [];
  const clear: GPUBuffer[] = [arenas.grads];
  for (const n of graph.nodes) {
    const bytes = size(n.shape) * 4;
    if (n.op.kind === 'param') {
      values.push(null);
      grads.push(null);
      continue;
    }
    values.push(take(bytes, S, `value ${n.id} ${n.op.kind}`));
    const g = spec.backwardIds.includes(n.id) ? take(bytes, S, `grad ${n.id}`) : null;
    grads.push(g);
    if (g && n.id !== spec.lossId) clear.push(g);
  }
  const maxCols = Math.max(
    1,
    ...graph.nodes.map((n) => (n.shape.length ? (n.shape[n.shape.length - 1] as number) : 1)),
  );
  const maxLen = Math.max(1, ...graph.nodes.map((n) => size(n.shape)));
  const ones = take(maxCols * 4, S, 'ones');
  device.queue.writeBuffer(ones, 0, new Float32Array(ones.size / 4).fill(1));
  const zeros = take(maxCols * 4, S, 'zeros');
  device.queue.writeBuffer(zeros, 0, new Float32Array(zeros.size / 4));
  const calls = [...plan.forward, ...plan.backward, ...plan.update];
  const uniforms = take(
    Math.max(1, calls.length) * UNIFORM_SLOT,
    GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
    'uniforms',
  );
  const words = new Uint32Array((calls.length * UNIFORM_SLOT) / 4);
  calls.forEach((c, i) => words.set(c.uniform, (i * UNIFORM_SLOT) / 4));
  device.queue.writeBuffer(uniforms, 0, words);
  const csrBuffers = ({ idx, rows }: { idx: number; rows: number }): CsrBuffers => {
    const count = size(graph.node(idx).shape);
    return {
      offsets: take((rows + 1) * 4, S, `csr offsets ${idx}:${rows}`),
      sources: take(Math.max(1, count) * 4, S, `csr sources ${idx}:${rows}`),
      chunks: take((rows + 1) * 4, S, `csr chunks ${idx}:${rows}`),
      chunkRow: take(maxChunks(count, rows) * 4, S, `csr chunk rows ${idx}:${rows}`),
      host: null,
      rooms: null,
      count,
    };
  };
  const state: DeviceState = {
    generation,
    pool,
    pipelines,
    owned,
    take,
    values,
    grads,
    temps: new Map(),
    csr: new Map(spec.csrKeys.map((k) => [`${k.idx}:${k.rows}`, csrBuffers(k)])),
    arenas,
    norm: take(8, S, 'norm'),
    ones,
    zeros,
    sink: take(maxLen * 4, S, 'sink'),
    uniforms,
    readbacks: new Map(),
    words,
    nextWords: new Uint32Array(words.length),
    live: null,
    forward: [],
    backward: [],
    update: [],
    clear,
  };
  let slot = 0;
  const encode = (list: Call[]): Encoded[] =>
    list.map((c) => encodeCall(device, graph, layout, state, c, slot++));
  state.forward = encode(plan.forward);
  state.backward = encode(plan.backward);
  state.update = encode(plan.update);
  return state;
}

/** A mappable buffer of `bytes` for one step's read-back: a free one of that size, or a new one. */
export function takeReadback(s: DeviceState, bytes: number): GPUBuffer {
  return (
    s.readbacks.get(bytes)?.pop() ??
    s.take(bytes, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST, 'readback')
  );
}

/** Returns a read-back buffer, unmapped, to the free ones of its size. */
export function giveReadback(s: DeviceState, bytes: number, buf: GPUBuffer): void {
  const free = s.readbacks.get(bytes);
  if (free) free.push(buf);
  else s.readbacks.set(bytes, [buf]);
}

/** Counted queue.writeBuffer of `data` into `buf` (the whole buffer, or from word `at`). */
export function writeWords(
  device: GPUDevice,
  counters: GpuCounters,
  buf: GPUBuffer,
  data: Float32Array | Uint32Array,
  at = 0,
): void {
  device.queue.writeBuffer(buf, at * 4, data.buffer, data.byteOffset, data.byteLength);
  counters.writes += 1;
  counters.writeBytes += data.byteLength;
}

/** Uploads the words where `next` differs from `prev` (the device copy) as one span; all of it without `prev`. */
export function writeChangedWords(
  device: GPUDevice,
  counters: GpuCounters,
  buf: GPUBuffer,
  prev: Float32Array | Uint32Array | null,
  next: Float32Array | Uint32Array,
): void {
  if (!prev || prev.length !== next.length) return writeWords(device, counters, buf, next);
  const [lo, hi] = changedSpan(prev, next);
  if (lo < hi) writeWords(device, counters, buf, next.subarray(lo, hi), lo);
}
