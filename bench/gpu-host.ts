/**
 * `npm run bench:gpu-host`: the host's share of the construction-policy trainer's WebGPU forward
 * (log-probability) passes, per minibatch: of each pass's wall time, how much the host spends
 * setting its inputs (`GpuModel.setInput`), building the scatters' row lists (its private
 * `writeCsr`, wrapped here: a diagnostic; inside setInput in older code, before the step's
 * encoding now, counted once either way), and encoding the pass (createCommandEncoder to submit).
 * On a real GPU the rest is mostly the device's time; on SwiftShader the device's time is CPU
 * time, so read the host figures, not the totals. Medians of `--reps` log-probability calls over
 * the same batch. Then where a minibatch update's host time goes (bench/update-host.ts: the
 * learner's packing, applyLive, encoding, finish and submit; minibatches taking turns, medians of
 * 2 × `--reps`), and of the trainer's old and reference log π passes (bench/pass-host.ts: every
 * model's setInput, row lists, applyLive and encoding, medians of 2 × `--reps` calls over two
 * batches taking turns). With `--browser`, the same updates at minibatch 64 and 256 in a Chromium tab
 * (bench/train-tfjs's page, WebGPU through the browser's GPU process, which validates and runs
 * the commands away from the tab's thread): the host cost the Train page pays. Writes nothing.
 *
 *   npm run bench:gpu-host [-- --reps 5] [--browser] [--trainer-passes]
 */
import { join } from 'node:path';
import { allowWgslImports } from '../src/cli/wgsl-loader.ts';
import { onBenchPage } from './browser-page.ts';
import { nodeGpu, releaseNodeGpu } from '../src/gpu/node-gpu.ts';
import { chooseBackend } from '../src/gpu/index.ts';
import { DEFAULT_POOL, priorCheckpoint } from '../src/policy/index.ts';
import { Learner, trainConfig } from '../src/train/index.ts';
import { sampleBatch } from './train-tfjs/episodes.ts';
import { passHostSplit, timeEncoding } from './pass-host.ts';
import { updateHostSplit } from './update-host.ts';

const argv = process.argv.slice(2);
const at = argv.indexOf('--reps');
const REPS = at >= 0 ? Number(argv[at + 1]) : 5;
const SIZES = [64, 256, 1024];
/** In the browser on a software adapter, an update at 1024 takes seconds: the two smaller only. */
const BROWSER_SIZES = [64, 256];
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;

allowWgslImports();
const choice = await chooseBackend('webgpu', { gpu: await nodeGpu() });
console.log(`adapter: ${choice.reason}`);
const device = (choice.ctx as NonNullable<typeof choice.ctx>).device;
const cp = priorCheckpoint(DEFAULT_POOL);
const rows: Record<string, string | number>[] = [];
const updates: Record<string, number>[] = [];
// --trainer-passes: only the trainer's old and reference log π (the last table).
const ONLY_PASSES = argv.includes('--trainer-passes');
for (const M of ONLY_PASSES ? [] : SIZES) {
  const config = trainConfig({ minibatch: M });
  const data = await sampleBatch(cp, DEFAULT_POOL, config, M, 17);
  const learner = await Learner.create(cp, cp, DEFAULT_POOL, config, choice);
  // Log π passes of one minibatch each (the trainer runs them over up to Learner.passRows rows).
  learner.passRows = 0;
  await learner.logProbs(data.full);
  const t = { setInput: 0, csr: 0, csrApart: 0, encode: 0, inSet: false };
  const model = learner.model as unknown as Record<string, (...a: unknown[]) => unknown>;
  const setInput = (model.setInput as (...a: unknown[]) => unknown).bind(model);
  model.setInput = (...a: unknown[]) => {
    const t0 = performance.now();
    t.inSet = true;
    try {
      return setInput(...a);
    } finally {
      t.inSet = false;
      t.setInput += performance.now() - t0;
    }
  };
  const writeCsr = (model.writeCsr as (...a: unknown[]) => unknown).bind(model);
  model.writeCsr = (...a: unknown[]) => {
    const t0 = performance.now();
    const r = writeCsr(...a);
    const ms = performance.now() - t0;
    t.csr += ms;
    // Built inside setInput, or before the step's encoding (applyLive): counted once in the host's time.
    if (!t.inSet) t.csrApart += ms;
    return r;
  };
  const unwrap = timeEncoding(device, (ms) => (t.encode += ms));
  const per = {
    total: [] as number[],
    setInput: [] as number[],
    csr: [] as number[],
    host: [] as number[],
    encode: [] as number[],
  };
  const passes = Math.ceil(data.full.batch / M);
  for (let r = 0; r < REPS; r++) {
    Object.assign(t, { setInput: 0, csr: 0, csrApart: 0, encode: 0 });
    const t0 = performance.now();
    await learner.logProbs(data.full);
    per.total.push((performance.now() - t0) / passes);
    per.setInput.push(t.setInput / passes);
    per.csr.push(t.csr / passes);
    per.encode.push(t.encode / passes);
    per.host.push((t.setInput + t.csrApart + t.encode) / passes);
  }
  unwrap();
  learner.dispose();
  const f = (x: number): number => +x.toFixed(2);
  updates.push(await updateHostSplit(choice, M, 2 * REPS));
  rows.push({
    minibatch: M,
    'rows (passes)': `${data.full.batch} (${passes})`,
    'pass ms': f(median(per.total)),
    'setInput ms': f(median(per.setInput)),
    'row lists ms': f(median(per.csr)),
    'encode ms': f(median(per.encode)),
    'host ms': f(median(per.host)),
    'host share': `${((100 * median(per.host)) / median(per.total)).toFixed(1)}%`,
  });
}
if (!ONLY_PASSES) {
  console.log('log π passes:');
  console.table(rows);
  console.log('minibatch updates (Node, Dawn through its Node binding):');
  console.table(updates);
}
console.log("the trainer's old and reference log π at the default config (Learner.oldAndReference):");
console.table([await passHostSplit(choice, REPS)]);
choice.ctx?.dispose();
releaseNodeGpu();

// --browser: the same updates in a Chromium tab (WebGPU through the browser's GPU process), on the
// benchmark page of bench/train-tfjs.
if (argv.includes('--browser')) {
  const config = join(import.meta.dirname, 'train-tfjs/vite.config.ts');
  const got = await onBenchPage(config, 'runUpdateHost', { timeoutMs: 900_000 }, (page) =>
    page.evaluate(([s, r]) => window.runUpdateHost(s, r), [BROWSER_SIZES, 2 * REPS] as const),
  );
  console.log(`minibatch updates (Chromium, ${got.adapter}):`);
  console.table(got.rows);
}
