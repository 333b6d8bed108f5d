/**
 * Where the host's time of the trainer's old and reference log π goes on WebGPU
 * (`Learner.oldAndReference` at the default config: passes of up to `Learner.passRows` rows, both
 * policies in one graph when they are shaped alike): per call, the time in every model's
 * `setInput`, its row lists (`writeCsr`) and the rest of `applyLive`, and encoding (from
 * createCommandEncoder to `submit`), with the submissions, uploads and uploaded bytes counted. Two
 * batches of real episodes take turns, so every call uploads rows that changed, as an iteration's
 * does. Used by `npm run bench:gpu-host`.
 */
import type { BackendChoice } from '../src/gpu/index.ts';
import { DEFAULT_POOL, priorCheckpoint } from '../src/policy/index.ts';
import { Learner, trainConfig } from '../src/train/index.ts';
import { sampleBatch } from './train-tfjs/episodes.ts';

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;
const round = (x: number): number => Math.round(x * 1000) / 1000;

type Method = (...a: unknown[]) => unknown;

/**
 * Times every encoding on `device`, from createCommandEncoder to `queue.submit`, into `add`; the
 * returned function takes the timers off.
 */
export function timeEncoding(device: GPUDevice, add: (ms: number) => void): () => void {
  const encoder = device.createCommandEncoder.bind(device);
  const submit = device.queue.submit.bind(device.queue);
  let began = 0;
  device.createCommandEncoder = (d?: GPUCommandEncoderDescriptor) => {
    began = performance.now();
    return encoder(d);
  };
  device.queue.submit = (cbs: Iterable<GPUCommandBuffer>) => {
    add(performance.now() - began);
    submit(cbs);
  };
  return () => {
    delete (device as Partial<GPUDevice>).createCommandEncoder;
    delete (device.queue as Partial<GPUQueue>).submit;
  };
}

export async function passHostSplit(
  choice: BackendChoice,
  reps: number,
): Promise<Record<string, number | string>> {
  const ctx = choice.ctx;
  if (choice.backend !== 'webgpu' || !ctx) throw new Error('passHostSplit: a WebGPU choice');
  const device = ctx.device;
  const cp = priorCheckpoint(DEFAULT_POOL);
  const config = trainConfig({});
  // Two iterations' worth of steps (358 and 372 rows: one pass each at 512 rows).
  const batches = [
    await sampleBatch(cp, DEFAULT_POOL, config, 358, 17),
    await sampleBatch(cp, DEFAULT_POOL, config, 358, 23),
  ];
  const learner = await Learner.create(cp, cp, DEFAULT_POOL, config, choice);
  // Timers on every WebGPU model (the pass graphs are the learner's own), restored afterwards.
  const { GpuModel } = await import('../src/gpu/webgpu/model.ts');
  const proto = GpuModel.prototype as unknown as Record<string, Method>;
  const t = { setInput: 0, csr: 0, live: 0, encode: 0 };
  const saved = new Map<string, Method>();
  const time = (name: string, add: (ms: number) => void): void => {
    const f = proto[name] as Method;
    saved.set(name, f);
    proto[name] = function (this: unknown, ...a: unknown[]) {
      const t0 = performance.now();
      try {
        return f.apply(this, a);
      } finally {
        add(performance.now() - t0);
      }
    };
  };
  time('setInput', (ms) => (t.setInput += ms));
  time('writeCsr', (ms) => (t.csr += ms));
  time('applyLive', (ms) => (t.live += ms));
  const unwrap = timeEncoding(device, (ms) => (t.encode += ms));
  const per: Record<'setInput' | 'csr' | 'live' | 'encode' | 'host' | 'wall', number[]> = {
    setInput: [],
    csr: [],
    live: [],
    encode: [],
    host: [],
    wall: [],
  };
  let counted = { submissions: 0, writes: 0, writeBytes: 0 };
  try {
    for (let i = 0; i < 2; i++) await learner.oldAndReference((batches[i % 2] as (typeof batches)[0]).full);
    for (let r = 0; r < 2 * reps; r++) {
      Object.assign(t, { setInput: 0, csr: 0, live: 0, encode: 0 });
      ctx.resetCounters();
      const t0 = performance.now();
      await learner.oldAndReference((batches[r % 2] as (typeof batches)[0]).full);
      per.wall.push(performance.now() - t0);
      const c = ctx.resetCounters();
      counted = { submissions: c.submissions, writes: c.writes, writeBytes: c.writeBytes };
      per.setInput.push(t.setInput);
      per.csr.push(t.csr);
      // applyLive builds the row lists: its own part is the rest.
      per.live.push(t.live - t.csr);
      per.encode.push(t.encode);
      per.host.push(t.setInput + t.live + t.encode);
    }
  } finally {
    for (const [name, f] of saved) proto[name] = f;
    unwrap();
    learner.dispose();
  }
  return {
    rows: batches.map((b) => b.full.batch).join(' / '),
    submissions: counted.submissions,
    uploads: counted.writes,
    upload_kb: round(counted.writeBytes / 1024),
    set_input_ms: round(median(per.setInput)),
    row_lists_ms: round(median(per.csr)),
    live_ms: round(median(per.live)),
    encode_ms: round(median(per.encode)),
    host_ms: round(median(per.host)),
    wall_ms: round(median(per.wall)),
  };
}
