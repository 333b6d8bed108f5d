/**
 * `npm run bench:gpu-profile`: where one training step of the construction policy spends its time
 * on the compute core's WebGPU backend, in Node (Dawn; SwiftShader when the machine has no GPU).
 * The software adapter has no usable per-dispatch timer, so `GpuModel.profileStep` runs the step
 * with every dispatch in its own submission and times each from submit to completion (wall time,
 * including one queue round trip per dispatch), keeping each dispatch's minimum over the repetitions
 * (other processes share the cores). Each dispatch runs `--repeat` times in its submission, which
 * amortises the round trip; the profiled model is thrown away afterwards (repeats garble its
 * values). First it prints what one minibatch update and one log-probability pass ask of the device
 * (submissions, read-backs, dispatches, workgroups, uploads: `GpuContext.counters`, hardware-
 * independent), then the kernels by total time; writes nothing.
 *
 *   npm run bench:gpu-profile [-- --minibatch 64 --reps 3 --repeat 8]
 */
import { allowWgslImports } from '../src/cli/wgsl-loader.ts';
import { nodeGpu, releaseNodeGpu } from '../src/gpu/node-gpu.ts';
import { chooseBackend } from '../src/gpu/index.ts';
import type { GpuContext, GpuCounters } from '../src/gpu/webgpu/device.ts';
import type { DispatchTime, GpuModel } from '../src/gpu/webgpu/model.ts';
import { DEFAULT_POOL, priorCheckpoint } from '../src/policy/index.ts';
import { Learner, trainConfig } from '../src/train/index.ts';
import { sampleBatch } from './train-tfjs/episodes.ts';

const argv = process.argv.slice(2);
const opt = (name: string, dflt: number): number => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : dflt;
};
const M = opt('minibatch', 64);
const REPS = opt('reps', 3);
/** Each dispatch runs this many times per submission (amortises the queue round trip). */
const REPEAT = opt('repeat', 8);

allowWgslImports();
const pool = DEFAULT_POOL;
const checkpoint = priorCheckpoint(pool);
const config = trainConfig({ minibatch: M });
const choice = await chooseBackend('webgpu', { gpu: await nodeGpu() });
console.log(`adapter: ${choice.reason}`);
const data = await sampleBatch(checkpoint, pool, config, M, 17);
const learner = await Learner.create(checkpoint, checkpoint, pool, config, choice);
const pick = Array.from({ length: M }, (_, i) => i);
const ctx = choice.ctx as GpuContext;
ctx.resetCounters();
const logp = await learner.logProbs(data.full);
const passes = Math.ceil(data.full.batch / M);
const lpCounts = ctx.resetCounters();
const refLogp = await learner.logProbs(data.full, 'reference');
ctx.resetCounters();
// One real update feeds the minibatch; the profiled steps then run on those inputs.
await learner.update(data.full, pick, logp, refLogp, data.advantages);
const upCounts = ctx.resetCounters();
// The same minibatch again: setInput finds the inputs unchanged and uploads only what differs.
await learner.update(data.full, pick, logp, refLogp, data.advantages);
const again = ctx.resetCounters();
const fmtCounts = (c: GpuCounters, per = 1): string =>
  `${+(c.submissions / per).toFixed(1)} submissions, ${+(c.readbacks / per).toFixed(1)} read-backs, ` +
  `${+(c.dispatches / per).toFixed(1)} dispatches, ` +
  `${+(c.workgroups / per).toFixed(0)} workgroups, ${+(c.writes / per).toFixed(1)} uploads of ${(c.writeBytes / per / 1024).toFixed(1)} KiB`;
console.log(`per minibatch update:        ${fmtCounts(upCounts)}`);
console.log(`same minibatch again:        ${fmtCounts(again)}`);
console.log(`per log-probability pass:    ${fmtCounts(lpCounts, passes)} (${passes} passes)`);
const model = learner.model as GpuModel;
const stepMs: number[] = [];
for (let r = 0; r < REPS; r++) {
  const t0 = performance.now();
  await model.step();
  stepMs.push(performance.now() - t0);
}
console.log(`step(): ${stepMs.map((x) => x.toFixed(1)).join(', ')} ms (one submission)`);
let last: DispatchTime[] = [];
for (let r = 0; r < REPS; r++) {
  const times = await model.profileStep(REPEAT);
  const sum = times.reduce((a, d) => a + d.ms, 0);
  console.log(`profile ${r}: ${times.length} dispatches one by one, ${sum.toFixed(1)} ms in all`);
  last = r === 0 ? times : last.map((d, i) => ({ ...d, ms: Math.min(d.ms, (times[i] as DispatchTime).ms) }));
}
const total = last.reduce((a, d) => a + d.ms, 0);
const byKernel = new Map<string, { ms: number; calls: number }>();
for (const d of last) {
  const k = `${d.phase} ${d.kernel}`;
  const e = byKernel.get(k) ?? { ms: 0, calls: 0 };
  e.ms += d.ms;
  e.calls += 1;
  byKernel.set(k, e);
}
console.log(
  `\nminibatch ${M}, minimum per dispatch over ${REPS} reps of ${REPEAT} runs, by phase and kernel (${total.toFixed(1)} ms in all):`,
);
console.table(
  [...byKernel.entries()]
    .sort((a, b) => b[1].ms - a[1].ms)
    .map(([k, e]) => ({
      kernel: k,
      calls: e.calls,
      ms: +e.ms.toFixed(1),
      share: `${((100 * e.ms) / total).toFixed(1)}%`,
    })),
);
console.log('slowest dispatches:');
console.table(
  [...last]
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 12)
    .map((d) => ({ phase: d.phase, kernel: d.kernel, uniform: d.uniform.join(','), ms: +d.ms.toFixed(1) })),
);
learner.dispose();
choice.ctx?.dispose();
releaseNodeGpu();
process.exit(0);
