/**
 * Steps in flight: `Model.step` takes the inputs set before the call, so a caller may set the next
 * step's inputs and call it before the last one settles (the trainer keeps the device busy that
 * way). On every backend that gives, bit for bit, the numbers of steps awaited one by one. On
 * WebGPU the step is submitted before step() returns; when the device is lost with several steps
 * in flight, each runs again on the new device with its own inputs, in order.
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

/**
 * The schedule both ways run: training steps that read the edge head, and between them a pruned
 * pass that reads the node head (what the trainer's log π passes do), each on other inputs.
 */
const schedule: { k: number; train: boolean }[] = [
  { k: 1, train: true },
  { k: 2, train: false },
  { k: 3, train: true },
  { k: 3, train: true },
  { k: 4, train: false },
  { k: 5, train: true },
];

function call(m: Model, n: Net, s: { k: number; train: boolean }): Promise<StepResult> {
  feed(m, s.k);
  return s.train ? m.step({ read: [n.edge] }) : m.step({ read: [n.probs], backward: false, prune: true });
}

/** What a run gives: every step's loss, norm and read values as bits, and the final state. */
function summary(results: StepResult[], state: TrainState): unknown {
  return {
    steps: results.map((r) => ({
      loss: r.loss,
      gradNorm: r.gradNorm,
      values: (r.values ?? []).map(bits),
    })),
    t: state.t,
    params: bits(state.params),
    m: bits(state.m),
    v: bits(state.v),
  };
}

describe.each(backends)('steps in flight on %s', (name, make) => {
  it('give, bit for bit, what the same steps give awaited one by one', async () => {
    const n = net();
    const serial = await make(n);
    const results: StepResult[] = [];
    for (const s of schedule) results.push(await call(serial, n, s));
    const want = summary(results, await serial.exportState());

    const inFlight = await make(n);
    if (name === 'webgpu') context().resetCounters();
    const pending = schedule.map((s) => call(inFlight, n, s));
    if (name === 'webgpu') {
      // Every step was submitted when it was called: none waited for the one before.
      const c = context().counters;
      expect(c.submissions).toBe(schedule.length);
      expect(c.readbacks).toBe(0);
    }
    const got = summary(await Promise.all(pending), await inFlight.exportState());
    expect(got).toEqual(want);
    expect((want as { t: number }).t).toBe(4);
    serial.dispose();
    inFlight.dispose();
  });
});

describe('steps in flight on WebGPU, and a device loss', () => {
  it('run again on the new device in order, each with its own inputs', async () => {
    const gpu = await nodeGpu();
    const lostCtx = await GpuContext.create({ gpu });
    const refCtx = await GpuContext.create({ gpu });
    if (!lostCtx || !refCtx) throw new Error('no WebGPU adapter');
    const n = net();
    // A host copy after every update, so the rebuilt model resumes where the steps in flight began.
    const opts = { ...n.opts, hostSyncEvery: 1 };
    const ref = new GpuModel(refCtx, n.g, opts);
    const results: StepResult[] = [];
    for (const s of schedule) results.push(await call(ref, n, s));
    const want = summary(results, await ref.exportState());

    const m = new GpuModel(lostCtx, n.g, opts);
    const first = await call(m, n, schedule[0] as (typeof schedule)[number]);
    const rest = schedule.slice(1).map((s) => call(m, n, s));
    const lost = lostCtx.device.lost;
    lostCtx.device.destroy();
    await lost;
    const got = summary([first, ...(await Promise.all(rest))], await m.exportState());
    expect(m.recoveries).toBe(1);
    expect(got).toEqual(want);
    expect(refCtx.errors).toEqual([]);
    m.dispose();
    ref.dispose();
    lostCtx.dispose();
    refCtx.dispose();
  });

  it('keeps a step’s inputs when the caller changes them before it settles', async () => {
    // The second call's inputs overwrite the first's in the caller's arrays and in the model.
    const n = net();
    const m = new GpuModel(context(), n.g, n.opts);
    feed(m, 1);
    const a = m.step({ read: [n.probs], backward: false });
    feed(m, 2);
    const b = m.step({ read: [n.probs], backward: false });
    const ref = new GpuModel(context(), n.g, n.opts);
    feed(ref, 1);
    const want1 = await ref.step({ read: [n.probs], backward: false });
    feed(ref, 2);
    const want2 = await ref.step({ read: [n.probs], backward: false });
    const [got1, got2] = await Promise.all([a, b]);
    expect(bits((got1.values ?? [])[0] as Float32Array)).toEqual(
      bits((want1.values ?? [])[0] as Float32Array),
    );
    expect(bits((got2.values ?? [])[0] as Float32Array)).toEqual(
      bits((want2.values ?? [])[0] as Float32Array),
    );
    expect(bits((got1.values ?? [])[0] as Float32Array)).not.toEqual(
      bits((got2.values ?? [])[0] as Float32Array),
    );
    m.dispose();
    ref.dispose();
  });
});

describe('disposing a WebGPU model with steps in flight', () => {
  it('settles them with their numbers, and its buffers serve another model only afterwards', async () => {
    const ctx = await GpuContext.create({ gpu: await nodeGpu() });
    if (!ctx) throw new Error('no WebGPU adapter');
    const n = net();
    const ref = new GpuModel(ctx, n.g, n.opts);
    const want: StepResult[] = [];
    for (const s of schedule) want.push(await call(ref, n, s));
    ref.dispose();
    const m = new GpuModel(ctx, n.g, n.opts);
    const pending = schedule.map((s) => call(m, n, s));
    m.dispose();
    // A model compiled right away takes buffers from the same pool, read-backs of the same size
    // among them; it steps while the disposed model's read-backs are still mapping.
    const next = new GpuModel(ctx, n.g, n.opts);
    const theirs = schedule.map((s) => call(next, n, s));
    const numbers = (rs: StepResult[]) =>
      rs.map((r) => ({ loss: r.loss, gradNorm: r.gradNorm, values: (r.values ?? []).map(bits) }));
    expect(numbers(await Promise.all(pending))).toEqual(numbers(want));
    expect(numbers(await Promise.all(theirs))).toEqual(numbers(want));
    expect(ctx.errors).toEqual([]);
    next.dispose();
    ctx.dispose();
  });
});
