/**
 * Plan calls run on plain buffers, outside any model: the per-driver subgroup check
 * (subgroup-check.ts) and the kernel tests (testing/products.ts) hand-build a few calls and compare
 * what one value holds afterwards. A `value` ref with id i is bound to a buffer holding
 * `values[i]`; each temp (by its node and slot, as the model keys them) gets its own buffer of
 * `tempFill`; every call has its own uniform buffer. One submission; the buffers are destroyed
 * before this returns, whether the run succeeded or not.
 */
import type { PipelineCache } from './pipelines.ts';
import type { Call } from './plan-calls.ts';

export interface RunOnBuffersOptions {
  /** What temps hold before the first call (0; the tests use NaN to catch reads of unwritten words). */
  tempFill?: number;
}

/** Runs `calls` in one compute pass and returns the words of value `read` afterwards. */
export async function runOnBuffers(
  device: GPUDevice,
  cache: PipelineCache,
  calls: readonly Call[],
  values: readonly Float32Array[],
  read: number,
  opts: RunOnBuffersOptions = {},
): Promise<ArrayBuffer> {
  const owned: GPUBuffer[] = [];
  const S = GPUBufferUsage.STORAGE;
  // Bindings are whole 16-byte rows (uniforms must be), and never empty.
  const buffer = (data: Float32Array | Uint32Array, usage: number): GPUBuffer => {
    const b = device.createBuffer({
      size: 16 * Math.max(1, Math.ceil(data.byteLength / 16)),
      usage: usage | GPUBufferUsage.COPY_DST,
    });
    owned.push(b);
    if (data.byteLength > 0) device.queue.writeBuffer(b, 0, data);
    return b;
  };
  try {
    const bound = values.map((v, i) => buffer(v, i === read ? S | GPUBufferUsage.COPY_SRC : S));
    const out = bound[read];
    if (!out) throw new Error(`runOnBuffers: no value ${read} to read`);
    const temps = new Map<string, GPUBuffer>();
    const enc = device.createCommandEncoder();
    const pass = enc.beginComputePass();
    for (const call of calls) {
      const pipeline = cache.get(call.kernel, call.constants);
      const u = buffer(new Uint32Array(call.uniform), GPUBufferUsage.UNIFORM);
      const resources = call.refs.map((r) => {
        if (r.t === 'temp') {
          const key = `${r.id}:${r.slot}`;
          let t = temps.get(key);
          if (!t) temps.set(key, (t = buffer(new Float32Array(r.floats).fill(opts.tempFill ?? 0), S)));
          return t;
        }
        if (r.t !== 'value') throw new Error(`runOnBuffers: a ${r.t} binding has no buffer here`);
        const b = bound[r.id];
        if (!b) throw new Error(`runOnBuffers: no value ${r.id}`);
        return b;
      });
      pass.setPipeline(pipeline);
      pass.setBindGroup(
        0,
        device.createBindGroup({
          layout: pipeline.getBindGroupLayout(0),
          entries: [u, ...resources].map((b, binding) => ({ binding, resource: { buffer: b } })),
        }),
      );
      pass.dispatchWorkgroups(...call.wg);
    }
    pass.end();
    const bytes = (values[read] as Float32Array).byteLength;
    const back = buffer(new Float32Array(bytes / 4), GPUBufferUsage.MAP_READ);
    enc.copyBufferToBuffer(out, 0, back, 0, back.size);
    device.queue.submit([enc.finish()]);
    await back.mapAsync(GPUMapMode.READ);
    const words = back.getMappedRange().slice(0, bytes);
    back.unmap();
    return words;
  } finally {
    for (const b of owned) b.destroy();
  }
}
