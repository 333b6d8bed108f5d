/**
 * Where the host's time of a WebGPU minibatch update goes (`Learner.update` on the trainer's
 * default config at minibatch `M`, on real episodes): shared by `npm run bench:gpu-host` and the
 * device benchmark (bench/device/run.ts, `update_host`), so that a GPU machine reports the same
 * split as this one. A small update on a real GPU is bound by the host (docs/benchmarks.md): this
 * says by which part of it.
 *
 * Per update, from the call until the step is in flight (everything before `update()` hands back
 * its promise; the step is then encoded and submitted):
 * - `learner_ms`: the learner's part before it calls the model's step (packing the minibatch's rows
 *   and setting the model's inputs);
 * - `live_ms`: the model's `applyLive` (row lists of changed index inputs, the calls' sizes for the
 *   live rows, the uniform words that changed);
 * - `encode_ms`: from createCommandEncoder to `finish()` (the dispatches' setPipeline,
 *   setBindGroup and dispatchWorkgroups, and the read-back's copies);
 * - `finish_submit_ms`: `finish()` and `queue.submit`;
 * - `other_ms`: the rest (the step's bookkeeping, promise chains).
 * Then `wall_ms`, the whole update awaited alone, and `overlapped_ms`, per update with the next one
 * submitted before the last is awaited (as the trainer runs its minibatches, `overlap` 2); and
 * `encode_idle_ms`, the update's clears (`clears_per_update`) and dispatches encoded again with the
 * device idle and nothing submitted: Dawn's part of `encode_ms` alone. With the overlapped
 * updates, `input_copies_new` and `input_copies_reused`: per update, the inputs a step in flight
 * held that were copied into a new array, and into one no step held any more.
 * Medians of `reps` updates over minibatches that take turns (every update sees other rows and
 * live counts).
 */
import type { BackendChoice } from '../src/gpu/index.ts';
import type { DeviceState } from '../src/gpu/webgpu/state.ts';
import { DEFAULT_POOL, priorCheckpoint } from '../src/policy/index.ts';
import { Learner, trainConfig } from '../src/train/index.ts';
import { sampleBatch } from './train-tfjs/episodes.ts';

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;
const round = (x: number): number => Math.round(x * 1000) / 1000;

/** The model's encoded calls and the gradient buffers it clears per backward pass. */
type IdleEncode = Pick<DeviceState, 'forward' | 'backward' | 'update' | 'clear'>;

type Split = Record<'host' | 'learner' | 'live' | 'encode' | 'finishSubmit' | 'wall', number>;

/** One row: the split's medians (ms) at minibatch `M` on the WebGPU choice `choice`. */
export async function updateHostSplit(
  choice: BackendChoice,
  M: number,
  reps: number,
): Promise<Record<string, number>> {
  const device = choice.ctx?.device;
  if (choice.backend !== 'webgpu' || !device) throw new Error('updateHostSplit: a WebGPU choice');
  const cp = priorCheckpoint(DEFAULT_POOL);
  const config = trainConfig({ minibatch: M });
  const data = await sampleBatch(cp, DEFAULT_POOL, config, M, 17);
  const learner = await Learner.create(cp, cp, DEFAULT_POOL, config, choice);
  const full = data.full;
  const old = await learner.logProbs(full);
  const picks = Array.from({ length: Math.max(2, Math.floor(full.batch / M)) }, (_, p) =>
    Array.from({ length: M }, (_, i) => (p * M + i) % full.batch),
  );
  // Timers around the model's step, its private applyLive, and the device's encoder and queue.
  const model = (learner as unknown as { train: { model: Record<string, (...a: unknown[]) => unknown> } })
    .train.model;
  const t = { start: 0, step: 0, live: 0, began: 0, finish: 0, finished: 0, submitted: 0 };
  const wrap = (name: string, before: () => void, after: (ms: number) => void): void => {
    const f = (model[name] as (...a: unknown[]) => unknown).bind(model);
    model[name] = (...a: unknown[]) => {
      before();
      const s = performance.now();
      try {
        return f(...a);
      } finally {
        after(performance.now() - s);
      }
    };
  };
  wrap(
    'step',
    () => (t.step = performance.now()),
    () => undefined,
  );
  wrap(
    'applyLive',
    () => undefined,
    (ms) => (t.live = ms),
  );
  const createEncoder = device.createCommandEncoder.bind(device);
  const submit = device.queue.submit.bind(device.queue);
  device.createCommandEncoder = (d?: GPUCommandEncoderDescriptor) => {
    t.began = performance.now();
    const enc = createEncoder(d);
    const finish = enc.finish.bind(enc);
    enc.finish = (fd?: GPUCommandBufferDescriptor) => {
      t.finish = performance.now();
      const cb = finish(fd);
      t.finished = performance.now();
      return cb;
    };
    return enc;
  };
  device.queue.submit = (cbs: Iterable<GPUCommandBuffer>) => {
    const s = performance.now();
    submit(cbs);
    t.submitted = performance.now() - s;
  };
  const run = async (k: number): Promise<Split> => {
    t.start = performance.now();
    const p = learner.update(full, picks[k % picks.length] as number[], old, null, data.advantages);
    const host = performance.now() - t.start;
    await p;
    return {
      host,
      learner: t.step - t.start,
      live: t.live,
      encode: t.finish - t.began,
      finishSubmit: t.finished - t.finish + t.submitted,
      wall: performance.now() - t.start,
    };
  };
  const row: Record<string, number> = { minibatch: M, dispatches_per_update: 0 };
  try {
    for (let k = 0; k < 4; k++) await run(k);
    choice.ctx?.resetCounters();
    await run(0);
    row.dispatches_per_update = choice.ctx?.resetCounters().dispatches ?? 0;
    const splits: Split[] = [];
    for (let k = 0; k < reps; k++) splits.push(await run(k));
    const m = (key: keyof Split): number => round(median(splits.map((s) => s[key])));
    row.host_ms = m('host');
    row.learner_ms = m('learner');
    row.live_ms = m('live');
    row.encode_ms = m('encode');
    row.finish_submit_ms = m('finishSubmit');
    row.other_ms = round(median(splits.map((s) => s.host - s.learner - s.live - s.encode - s.finishSubmit)));
    row.wall_ms = m('wall');
    // Two in flight, as the trainer's epochs run them: per update. An input set while a step holds
    // its array is copied: into a new array, or one no step holds any more (held-inputs.ts).
    const held = (model as unknown as { held?: { counts: { fresh: number; reused: number } } }).held;
    const copies0 = { ...(held?.counts ?? { fresh: 0, reused: 0 }) };
    const t0 = performance.now();
    let last: Promise<unknown> | null = null;
    for (let k = 0; k < reps; k++) {
      const p = learner.update(full, picks[k % picks.length] as number[], old, null, data.advantages);
      if (last) await last;
      last = p;
    }
    await last;
    row.overlapped_ms = round((performance.now() - t0) / reps);
    if (held) {
      row.input_copies_new = round((held.counts.fresh - copies0.fresh) / reps);
      row.input_copies_reused = round((held.counts.reused - copies0.reused) / reps);
    }
    // The same update's commands encoded again with the device idle, not submitted: what Dawn's
    // encoding of its clears and dispatches costs alone, next to `encode_ms` (the same work while
    // the device may be running the update before it, and with the pass's own bookkeeping).
    const dev = (model as unknown as { dev: IdleEncode | null }).dev;
    if (dev) {
      await device.queue.onSubmittedWorkDone();
      const list = [...dev.forward, ...dev.backward, ...dev.update].filter((e) => e.wg[0] !== 0);
      const times: number[] = [];
      for (let k = 0; k < 2 * reps; k++) {
        const s = performance.now();
        const enc = device.createCommandEncoder();
        for (const b of dev.clear) enc.clearBuffer(b);
        const pass = enc.beginComputePass();
        for (const e of list) {
          pass.setPipeline(e.pipeline);
          pass.setBindGroup(0, e.bindGroup);
          pass.dispatchWorkgroups(e.wg[0], e.wg[1], e.wg[2]);
        }
        pass.end();
        enc.finish();
        times.push(performance.now() - s);
      }
      row.clears_per_update = dev.clear.length;
      row.encode_idle_ms = round(median(times));
    }
  } finally {
    delete (device as Partial<GPUDevice>).createCommandEncoder;
    delete (device.queue as Partial<GPUQueue>).submit;
    learner.dispose();
  }
  return row;
}
