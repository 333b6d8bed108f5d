/**
 * `npm run bench:gpu-dispatches`: how many WebGPU dispatches the construction policy asks for, counted
 * by `GpuContext.counters` (hardware-independent: the same on SwiftShader and on a real GPU), for one
 * trainer update (`Learner.update`) at each minibatch size, one log-probability pass, and one
 * batched sampler pass (`BatchedPolicy` via `constructMany`: the node and edge passes of every
 * construction step of B·G = 64 episodes, averaged), and the old and reference log π of a whole
 * batch a minibatch per pass and in the trainer's passes of up to 512 rows (`Learner.passRows`). On a real GPU a small update is bound by the
 * number of dispatches (docs/benchmarks.md); the kernels' fusion (src/gpu/webgpu/plan-fuse.ts) is
 * what moves these numbers. Writes nothing.
 *
 * `--lanes on|off` plans small products on matmul_lanes.wgsl or not (default: on a hardware adapter).
 *
 *   npm run bench:gpu-dispatches [-- --minibatch 64,256 --lanes on]
 */
import { allowWgslImports } from '../src/cli/wgsl-loader.ts';
import { mix32 } from '../src/core/rng.ts';
import { chooseBackend } from '../src/gpu/index.ts';
import { nodeGpu, releaseNodeGpu } from '../src/gpu/node-gpu.ts';
import type { GpuContext } from '../src/gpu/webgpu/device.ts';
import { taskOfMasbench } from '../src/masbench/index.ts';
import { BatchedPolicy, constructMany, DEFAULT_POOL, priorCheckpoint } from '../src/policy/index.ts';
import { drawTasks, Learner, PRESET_TABLE, Trainer, trainConfig } from '../src/train/index.ts';
import { simulatedRunners } from '../src/executor/train-runners.ts';
import { sampleBatch } from './train-tfjs/episodes.ts';

const argv = process.argv.slice(2);
const at = argv.indexOf('--minibatch');
const SIZES = (at >= 0 ? (argv[at + 1] ?? '') : '64,256').split(',').map(Number);

allowWgslImports();
const pool = DEFAULT_POOL;
const checkpoint = priorCheckpoint(pool);
// --lanes on / off: lanes products (matmul_lanes.wgsl) whatever the adapter; default: the model's.
const li = argv.indexOf('--lanes');
const lanes = li >= 0 ? argv[li + 1] === 'on' : undefined;
const choice = await chooseBackend('webgpu', { gpu: await nodeGpu() });
if (lanes !== undefined) choice.lanes = lanes;
const ctx = choice.ctx as GpuContext;
console.log(`adapter: ${choice.reason}; lanes products: ${choice.lanes ?? !choice.ctx?.adapter.software}`);

for (const M of SIZES) {
  const config = trainConfig({ minibatch: M });
  const data = await sampleBatch(checkpoint, pool, config, M, 17);
  const learner = await Learner.create(checkpoint, checkpoint, pool, config, choice);
  // Log π passes of one minibatch each (the trainer runs them over up to Learner.passRows rows).
  learner.passRows = 0;
  const pick = Array.from({ length: M }, (_, i) => i);
  ctx.resetCounters();
  const logp = await learner.logProbs(data.full);
  const passes = Math.ceil(data.full.batch / M);
  const lp = ctx.resetCounters();
  const lpPer = (x: number): number => +(x / passes).toFixed(1);
  const ref = await learner.logProbs(data.full, 'reference');
  ctx.resetCounters();
  await learner.update(data.full, pick, logp, ref, data.advantages);
  const up = ctx.resetCounters();
  console.log(
    `minibatch ${M}: ${up.dispatches} dispatches per update, ` +
      `${lpPer(lp.dispatches)} per log-probability pass (${passes} passes; ` +
      `${lpPer(lp.submissions)} submissions and ${lpPer(lp.readbacks)} read-backs each)`,
  );
  // The trainer's old and reference passes over the whole batch: a minibatch per pass, then on the
  // pass graphs of up to Learner.passRows rows (a warm-up on another batch first: the pass graphs
  // compile then, and a pass runs only what changed since the last).
  const warm = await sampleBatch(checkpoint, pool, config, M, 18);
  for (const rows of [0, 512]) {
    learner.passRows = rows;
    await learner.oldAndReference(warm.full);
    ctx.resetCounters();
    await learner.oldAndReference(data.full);
    const c = ctx.resetCounters();
    console.log(
      `  old and reference log π of ${data.full.batch} rows, ${rows === 0 ? 'a minibatch' : `up to ${rows} rows`} per pass: ` +
        `${c.dispatches} dispatches, ${c.submissions} submissions, ${c.readbacks} read-backs`,
    );
  }
  learner.dispose();
}

// The trainer's sampler: tasksPerIteration × groupSize episodes, one batched pass per step and head.
const config = trainConfig({});
const B = config.tasksPerIteration * config.groupSize;
const policy = BatchedPolicy.create(checkpoint, choice, { maxBatch: B });
const tasks = drawTasks(PRESET_TABLE.mixed, mix32(5), config.tasksPerIteration, 'train');
const episodes = tasks.flatMap((t, ti) =>
  Array.from({ length: config.groupSize }, (_, gi) => ({
    task: taskOfMasbench(t),
    seed: mix32(ti * 256 + gi),
  })),
);
// Passes counted at the policy: a node or edge pass that has work to do.
let passes = 0;
for (const k of ['nodePass', 'edgePass'] as const) {
  const f = policy[k].bind(policy) as (items: never[]) => Promise<unknown>;
  (policy as unknown as Record<string, unknown>)[k] = (items: never[]) => {
    const before = ctx.counters.submissions;
    return f(items).finally(() => {
      if (ctx.counters.submissions > before) passes++;
    });
  };
}
ctx.resetCounters();
await constructMany({ policy, pool, episodes, maxSteps: config.maxSteps });
const s = ctx.resetCounters();
const per = (x: number): number => +(x / passes).toFixed(1);
console.log(
  `sampler (B·G = ${B}): ${per(s.dispatches)} dispatches per batched pass ` +
    `(${s.dispatches} over ${passes} passes; ${per(s.submissions)} submissions and ` +
    `${per(s.readbacks)} read-backs each)`,
);
policy.dispose();

// A whole training iteration (the default config) with the learner on WebGPU and the rollouts
// sampled on the CPU, so that every count is the learner's: the old and reference log π passes,
// the updates, and the parameter arena that the next iteration's sampler loads (read with the
// last update since it asks for it: `Learner.update`'s `readArena`).
const trainer = await Trainer.create({
  start: checkpoint,
  pool,
  config: trainConfig({ preset: 'mixed', seed: 3 }),
  choice,
  samplerChoice: { backend: 'cpu', reason: 'bench', adapter: null, ctx: null },
  runners: simulatedRunners,
});
await trainer.iterate();
ctx.resetCounters();
const m = await trainer.iterate();
const it = ctx.resetCounters();
const total = Math.round(m.steps * B);
const updates = Math.ceil(total / config.minibatch) * config.epochs;
console.log(
  `one training iteration (B·G = ${B}, ${total} steps, ${updates} minibatch updates; rollouts on the CPU): ` +
    `${it.submissions} submissions and ${it.readbacks} read-backs on the learner's device`,
);
trainer.dispose();
choice.ctx?.dispose();
releaseNodeGpu();
process.exit(0);
