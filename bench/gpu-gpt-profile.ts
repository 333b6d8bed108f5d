/**
 * `npm run bench:gpu-gpt-profile`: where one GPT-2-style training step (src/lm/graph.ts) spends
 * its time on the compute core's WebGPU backend in Node (Dawn; SwiftShader when the machine has no
 * GPU), per kernel: `GpuModel.profileStep` (GPU timestamps where the device has `timestamp-query`,
 * otherwise wall time per dispatch in its own submission), minimum of `--reps` profiles. Prints the
 * dispatch count, the step's wall time and the kernels by total time; writes nothing.
 *
 *   npm run bench:gpu-gpt-profile [-- --embd 64 --heads 4 --layers 2 --batch 4 --seq 64 --reps 2]
 */
import { allowWgslImports } from '../src/cli/wgsl-loader.ts';
import { nodeGpu, releaseNodeGpu } from '../src/gpu/node-gpu.ts';
import { chooseBackend, compile } from '../src/gpu/index.ts';
import type { DispatchTime, GpuModel } from '../src/gpu/webgpu/model.ts';
import { buildTinyGptGraph, initWeights } from '../src/lm/index.ts';
import { TinyGptConfigSchema } from '../src/lm/spec.ts';
import { ADAM, window } from './lm-common.ts';

const argv = process.argv.slice(2);
const opt = (name: string, dflt: number): number => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : dflt;
};
const s = {
  vocab: opt('vocab', 256),
  embd: opt('embd', 64),
  layers: opt('layers', 2),
  heads: opt('heads', 4),
  batch: opt('batch', 4),
  seq: opt('seq', 64),
};
const REPS = opt('reps', 2);

allowWgslImports();
const choice = await chooseBackend('webgpu', { gpu: await nodeGpu() });
console.log(`adapter: ${choice.reason}`);
const config = TinyGptConfigSchema.parse({
  vocabSize: s.vocab,
  nPositions: s.seq,
  nEmbd: s.embd,
  nHead: s.heads,
  nLayer: s.layers,
});
const weights = initWeights(config, 1);
const { inputs } = window(config, s);
const tg = buildTinyGptGraph(config, { batch: s.batch, seq: s.seq, weights });
const m = (await compile(choice, tg.graph, { loss: tg.loss, optimizer: ADAM })) as GpuModel;
for (const [k, x] of Object.entries(inputs)) m.setInput(k, x);
console.log(`first loss ${(await m.step()).loss}`);
const wall: number[] = [];
for (let r = 0; r < REPS; r++) {
  const t0 = performance.now();
  await m.step();
  wall.push(performance.now() - t0);
}
console.log(`step(): ${wall.map((x) => x.toFixed(1)).join(', ')} ms`);
let last: DispatchTime[] = [];
for (let r = 0; r < REPS; r++) {
  const times = await m.profileStep(1, { timestamps: true });
  last = r === 0 ? times : last.map((d, i) => ({ ...d, ms: Math.min(d.ms, (times[i] as DispatchTime).ms) }));
}
const total = last.reduce((a, d) => a + d.ms, 0);
const by = new Map<string, { ms: number; calls: number }>();
for (const d of last) {
  const e = by.get(d.kernel) ?? { ms: 0, calls: 0 };
  e.ms += d.ms;
  e.calls += 1;
  by.set(d.kernel, e);
}
console.log(
  `${JSON.stringify(s)}: ${last.length} dispatches, ${total.toFixed(1)} ms in all (${last[0]?.timer ?? '-'} timer)`,
);
console.table(
  [...by.entries()]
    .sort((a, b) => b[1].ms - a[1].ms)
    .map(([kernel, e]) => ({
      kernel,
      calls: e.calls,
      ms: +e.ms.toFixed(2),
      share: `${((100 * e.ms) / total).toFixed(1)}%`,
    })),
);
m.dispose();
choice.ctx?.dispose();
releaseNodeGpu();
process.exit(0);
