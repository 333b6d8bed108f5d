/**
 * `npm run bench:gpu-host`: the host's share of the construction-policy trainer's WebGPU forward
 * (log-probability) passes, per minibatch: of each pass's wall time, how much the host spends
 * setting its inputs (`GpuModel.setInput`), and of that how much building the scatter's row lists
 * (its private `writeCsr`, wrapped here: a diagnostic), and encoding the pass (createCommandEncoder
 * to submit). On a real GPU the rest is mostly the device's time; on SwiftShader the device's time
 * is CPU time, so read the host figures, not the totals. Medians of `--reps` log-probability calls
 * over the same batch; writes nothing.
 *
 *   npm run bench:gpu-host [-- --reps 5]
 */
import { allowWgslImports } from '../src/cli/wgsl-loader.ts';
import { nodeGpu, releaseNodeGpu } from '../src/gpu/node-gpu.ts';
import { chooseBackend } from '../src/gpu/index.ts';
import { DEFAULT_POOL, priorCheckpoint } from '../src/policy/index.ts';
import { Learner, trainConfig } from '../src/train/index.ts';
import { sampleBatch } from './train-tfjs/episodes.ts';

const argv = process.argv.slice(2);
const at = argv.indexOf('--reps');
const REPS = at >= 0 ? Number(argv[at + 1]) : 5;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;

allowWgslImports();
const choice = await chooseBackend('webgpu', { gpu: await nodeGpu() });
console.log(`adapter: ${choice.reason}`);
const device = (choice.ctx as NonNullable<typeof choice.ctx>).device;
const cp = priorCheckpoint(DEFAULT_POOL);
const rows: Record<string, string | number>[] = [];
for (const M of [64, 256, 1024]) {
  const config = trainConfig({ minibatch: M });
  const data = await sampleBatch(cp, DEFAULT_POOL, config, M, 17);
  const learner = await Learner.create(cp, cp, DEFAULT_POOL, config, choice);
  await learner.logProbs(data.full);
  const t = { setInput: 0, csr: 0, encode: 0, began: 0 };
  const timed =
    <A extends unknown[], R>(f: (...a: A) => R, add: (ms: number) => void) =>
    (...a: A): R => {
      const t0 = performance.now();
      const r = f(...a);
      add(performance.now() - t0);
      return r;
    };
  const model = learner.model as unknown as Record<string, (...a: unknown[]) => unknown>;
  model.setInput = timed(
    (model.setInput as (...a: unknown[]) => unknown).bind(model),
    (ms) => (t.setInput += ms),
  );
  model.writeCsr = timed((model.writeCsr as (...a: unknown[]) => unknown).bind(model), (ms) => (t.csr += ms));
  const encoder = device.createCommandEncoder.bind(device);
  const submit = device.queue.submit.bind(device.queue);
  device.createCommandEncoder = (d?: GPUCommandEncoderDescriptor) => {
    t.began = performance.now();
    return encoder(d);
  };
  device.queue.submit = (cbs: Iterable<GPUCommandBuffer>) => {
    t.encode += performance.now() - t.began;
    submit(cbs);
  };
  const per = {
    total: [] as number[],
    setInput: [] as number[],
    csr: [] as number[],
    encode: [] as number[],
  };
  const passes = Math.ceil(data.full.batch / M);
  for (let r = 0; r < REPS; r++) {
    Object.assign(t, { setInput: 0, csr: 0, encode: 0 });
    const t0 = performance.now();
    await learner.logProbs(data.full);
    per.total.push((performance.now() - t0) / passes);
    per.setInput.push(t.setInput / passes);
    per.csr.push(t.csr / passes);
    per.encode.push(t.encode / passes);
  }
  delete (device as Partial<GPUDevice>).createCommandEncoder;
  delete (device.queue as Partial<GPUQueue>).submit;
  learner.dispose();
  const f = (x: number): number => +x.toFixed(2);
  rows.push({
    minibatch: M,
    'rows (passes)': `${data.full.batch} (${passes})`,
    'pass ms': f(median(per.total)),
    'setInput ms': f(median(per.setInput)),
    'of it row lists ms': f(median(per.csr)),
    'encode ms': f(median(per.encode)),
    'host share': `${((100 * (median(per.setInput) + median(per.encode))) / median(per.total)).toFixed(1)}%`,
  });
}
console.table(rows);
choice.ctx?.dispose();
releaseNodeGpu();
