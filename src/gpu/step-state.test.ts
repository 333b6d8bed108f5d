/**
 * A step that reads the training state (`RunOptions.state`): it gives, bit for bit, what
 * exportState() gives right after that step, on every backend and with later steps already in
 * flight; on WebGPU it costs no submission or read-back of its own, and it is the host copy that a
 * lost device resumes from.
 */
import { describe, expect, it } from 'vitest';
import { CpuModel } from './cpu/model.ts';
import type { Model, StepResult } from './model.ts';
import type { TrainState } from './optimizer.ts';
import { createWasmModel } from './wasm/model.ts';
import { GpuContext } from './webgpu/device.ts';
import { GpuModel } from './webgpu/model.ts';
import { nodeGpu } from './node-gpu.ts';
import { useGpuContext } from './testing/gpu-context.ts';
import { bits, feed, net, type Net } from './testing/two-heads.ts';

const context = useGpuContext();

const backends: [string, (n: Net) => Promise<Model>][] = [
  ['cpu', (n) => Promise.resolve(new CpuModel(n.g, n.opts))],
  ['wasm', (n) => createWasmModel(n.g, n.opts)],
  ['webgpu', (n) => Promise.resolve(new GpuModel(context(), n.g, n.opts))],
];

/** Five training steps on inputs 1…5; the third reads the state. */
const STATE_AT = 2;
const run = (m: Model, n: Net, k: number, state: boolean): Promise<StepResult> => {
  feed(m, k + 1);
  return m.step({ read: [n.edge], state });
};

const stateBits = (s: TrainState | undefined) =>
  s && { t: s.t, params: bits(s.params), m: bits(s.m), v: bits(s.v) };

describe.each(backends)('a step that reads the state on %s', (name, make) => {
  it('gives what exportState gives right after it, with later steps in flight', async () => {
    const n = net();
    const serial = await make(n);
    let want: TrainState | null = null;
    for (let k = 0; k < 5; k++) {
      await run(serial, n, k, false);
      if (k === STATE_AT) want = await serial.exportState();
    }
    const last = await serial.exportState();

    const m = await make(n);
    if (name === 'webgpu') context().resetCounters();
    const pending = Array.from({ length: 5 }, (_, k) => run(m, n, k, k === STATE_AT));
    const results = await Promise.all(pending);
    expect(want?.t).toBe(STATE_AT + 1);
    expect(stateBits(results[STATE_AT]?.state)).toEqual(stateBits(want ?? undefined));
    expect(results.filter((r) => r.state !== undefined)).toHaveLength(1);
    // The state is a copy: the steps after it did not move it.
    expect(bits(results[STATE_AT]?.state?.params as Float32Array)).not.toEqual(bits(last.params));
    if (name === 'webgpu') {
      // One submission and one read-back per step, the state's included.
      expect(context().counters.submissions).toBe(5);
      expect(context().counters.readbacks).toBe(5);
    }
    expect(stateBits(await m.exportState())).toEqual(stateBits(last));
    serial.dispose();
    m.dispose();
  });
});

describe('the state a WebGPU step reads, and a device loss', () => {
  it('is where a lost device resumes from', async () => {
    const gpu = await nodeGpu();
    const lostCtx = await GpuContext.create({ gpu });
    const refCtx = await GpuContext.create({ gpu });
    if (!lostCtx || !refCtx) throw new Error('no WebGPU adapter');
    const n = net();
    // No host copies but the ones asked for: without the state read, recovery would start over.
    const opts = { ...n.opts, hostSyncEvery: 0 };
    const ref = new GpuModel(refCtx, n.g, opts);
    const want: StepResult[] = [];
    for (let k = 0; k < 5; k++) want.push(await run(ref, n, k, false));
    const m = new GpuModel(lostCtx, n.g, opts);
    const before: StepResult[] = [];
    for (let k = 0; k <= STATE_AT; k++) before.push(await run(m, n, k, k === STATE_AT));
    const rest = [3, 4].map((k) => run(m, n, k, false));
    const lost = lostCtx.device.lost;
    lostCtx.device.destroy();
    await lost;
    const got = [...before, ...(await Promise.all(rest))];
    expect(m.recoveries).toBe(1);
    expect(got.map((r) => [r.loss, r.gradNorm])).toEqual(want.map((r) => [r.loss, r.gradNorm]));
    expect(stateBits(await m.exportState())).toEqual(stateBits(await ref.exportState()));
    m.dispose();
    ref.dispose();
    lostCtx.dispose();
    refCtx.dispose();
  });
});
