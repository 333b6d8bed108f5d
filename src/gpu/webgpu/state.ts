/**
 * The device side of a WebGPU model (model.ts): everything it holds on one device, and where each
 * kernel binding (plan-calls.ts `Ref`) points in it. Byte layouts are documented in model.ts.
 */
import type { Graph } from '../graph.ts';
import { size } from '../graph.ts';
import type { ParamLayout } from '../layout.ts';
import { maxChunks, type Csr } from './csr.ts';
import { PipelineCache } from './pipelines.ts';
import type { Call, Ref } from './plan.ts';
import { BufferPool } from './pool.ts';
import type { Encoded } from './profile.ts';

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
  csr: Map<
    string,
    {
      offsets: GPUBuffer;
      sources: GPUBuffer;
      chunks: GPUBuffer;
      chunkRow: GPUBuffer;
      host: Csr | null;
      count: number;
    }
  >;
  /** The uniform arena's words as last written (live.ts rewrites a call's sizes when live rows change). */
  words: Uint32Array;
  /** Live rows of every node as the encoded calls are sized (null: not applied yet). */
  live: Int32Array | null;
  arenas: Record<'params' | 'grads' | 'm' | 'v', GPUBuffer>;
  norm: GPUBuffer;
  ones: GPUBuffer;
  zeros: GPUBuffer;
  sink: GPUBuffer;
  uniforms: GPUBuffer;
  readback: GPUBuffer;
  /** Read-back buffers of steps that also read tensors (RunOptions.read), by byte size. */
  readbacks: Map<number, GPUBuffer>;
  forward: Encoded[];
  backward: Encoded[];
  update: Encoded[];
  /** Gradient buffers zeroed at the start of every backward pass (the loss seed is not among them). */
  clear: GPUBuffer[];
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
  const staging = device.createBuffer({
    size: Math.max(4, bytes),
    usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
  });
  const enc = device.createCommandEncoder();
  enc.copyBufferToBuffer(buf, offset, staging, 0, bytes);
  device.queue.submit([enc.finish()]);
  counters.submissions += 1;
  await staging.mapAsync(GPUMapMode.READ);
  counters.readbacks += 1;
  const out = new Float32Array(staging.getMappedRange().slice(0, bytes));
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
