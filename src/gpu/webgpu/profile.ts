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
