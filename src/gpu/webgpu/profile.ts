/**
 * Helpers of the WebGPU model (model.ts) kept apart to hold it to one screenful of layout code:
 * the per-dispatch profiler behind `GpuModel.profileStep` and the changed-span comparison behind
 * `setInput`'s partial uploads.
 */
import type { KernelName } from './kernels.ts';
import type { Call } from './plan.ts';

/** A kernel call bound on one device: what a compute pass replays. */
export interface Encoded {
  pipeline: GPUComputePipeline;
  bindGroup: GPUBindGroup;
  wg: [number, number, number];
}

/** One dispatch of a profiled step (see GpuModel.profileStep). */
export interface DispatchTime {
  phase: 'forward' | 'backward' | 'update';
  kernel: KernelName;
  /** The first uniform words (sizes), to tell calls of one kernel apart. */
  uniform: number[];
  ms: number;
  /** How `ms` was measured: GPU timestamps around the dispatch's pass, or host wall time. */
  timer: 'timestamp' | 'wall';
}

/** At most this many dispatches per query set (two timestamps each; WebGPU allows 4096 queries). */
const PER_QUERY_SET = 2048;

/**
 * Like profileDispatches, with the device's own clock: every dispatch (`repeat` times) in its own
 * compute pass with `timestampWrites` at its beginning and end, all in one submission, the
 * timestamps resolved and read back once. Needs a device created with `timestamp-query`
 * (device.ts asks for it where the adapter offers it). Times are per dispatch, without the queue
 * round trip; adapters may quantise timestamps (tens of µs and more in browsers).
 */
export async function profileTimestamps(
  device: GPUDevice,
  clear: GPUBuffer[],
  repeat: number,
  phases: [DispatchTime['phase'], Encoded[], Call[]][],
): Promise<DispatchTime[]> {
  const all: [DispatchTime['phase'], Encoded, Call][] = [];
  for (const [phase, list, calls] of phases) list.forEach((e, i) => all.push([phase, e, calls[i] as Call]));
  const out: DispatchTime[] = [];
  for (let start = 0; start < all.length; start += PER_QUERY_SET) {
    const chunk = all.slice(start, start + PER_QUERY_SET);
    const count = chunk.length * 2;
    const querySet = device.createQuerySet({ type: 'timestamp', count });
    const resolve = device.createBuffer({
      size: count * 8,
      usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC,
    });
    const staging = device.createBuffer({
      size: count * 8,
      usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    });
    const enc = device.createCommandEncoder();
    if (start === 0) for (const b of clear) enc.clearBuffer(b);
    chunk.forEach(([, e], i) => {
      const pass = enc.beginComputePass({
        timestampWrites: { querySet, beginningOfPassWriteIndex: 2 * i, endOfPassWriteIndex: 2 * i + 1 },
      });
      pass.setPipeline(e.pipeline);
      pass.setBindGroup(0, e.bindGroup);
      for (let r = 0; r < repeat; r++) pass.dispatchWorkgroups(e.wg[0], e.wg[1], e.wg[2]);
      pass.end();
    });
    enc.resolveQuerySet(querySet, 0, count, resolve, 0);
    enc.copyBufferToBuffer(resolve, 0, staging, 0, count * 8);
    device.queue.submit([enc.finish()]);
    await staging.mapAsync(GPUMapMode.READ);
    const ns = new BigUint64Array(staging.getMappedRange().slice(0));
    staging.unmap();
    chunk.forEach(([phase, , c], i) => {
      const d = Number((ns[2 * i + 1] as bigint) - (ns[2 * i] as bigint));
      out.push({
        phase,
        kernel: c.kernel,
        uniform: c.uniform.slice(0, 4),
        ms: d / 1e6 / repeat,
        timer: 'timestamp',
      });
    });
    querySet.destroy();
    resolve.destroy();
    staging.destroy();
  }
  return out;
}

/**
 * Clears `clear`, then runs every dispatch of `phases` in its own submission, `repeat` times in a
 * row, and times each submission from submit to `onSubmittedWorkDone` (divided by `repeat`): where
 * a step's time goes, on adapters without timestamp queries (software ones). Repeats amortise the
 * queue round trip; the times still include a share of it.
 */
export async function profileDispatches(
  device: GPUDevice,
  clear: GPUBuffer[],
  repeat: number,
  phases: [DispatchTime['phase'], Encoded[], Call[]][],
): Promise<DispatchTime[]> {
  const enc = device.createCommandEncoder();
  for (const b of clear) enc.clearBuffer(b);
  device.queue.submit([enc.finish()]);
  await device.queue.onSubmittedWorkDone();
  const out: DispatchTime[] = [];
  for (const [phase, list, calls] of phases) {
    for (let i = 0; i < list.length; i++) {
      const e = list[i] as Encoded;
      const c = calls[i] as Call;
      const t0 = performance.now();
      const one = device.createCommandEncoder();
      const pass = one.beginComputePass();
      pass.setPipeline(e.pipeline);
      pass.setBindGroup(0, e.bindGroup);
      for (let r = 0; r < repeat; r++) pass.dispatchWorkgroups(e.wg[0], e.wg[1], e.wg[2]);
      pass.end();
      device.queue.submit([one.finish()]);
      await device.queue.onSubmittedWorkDone();
      out.push({
        phase,
        kernel: c.kernel,
        uniform: c.uniform.slice(0, 4),
        ms: (performance.now() - t0) / repeat,
        timer: 'wall',
      });
    }
  }
  return out;
}

/** The span [lo, hi) of words where two equally long arrays differ (lo = hi when none). */
export function changedSpan(a: Float32Array | Uint32Array, b: Float32Array | Uint32Array): [number, number] {
  const x = new Uint32Array(a.buffer, a.byteOffset, a.length);
  const y = new Uint32Array(b.buffer, b.byteOffset, b.length);
  let lo = 0;
  while (lo < x.length && x[lo] === y[lo]) lo++;
  let hi = x.length;
  while (hi > lo && x[hi - 1] === y[hi - 1]) hi--;
  return [lo, hi];
}
