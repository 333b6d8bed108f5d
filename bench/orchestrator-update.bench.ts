/**
 * The update phase of a GRPO iteration of the orchestrator LM on the compute core's CPU backend,
 * with the designs packed into the training window (`packRows` rows, several designs per row, each
 * its own attention segment) against one design per row padded to the model's positions
 * (`packRows: 0`, the earlier layout), on the same sampled designs, alternating within one run.
 * The update phase is what `OrchestratorTrainer.iterate` times as such: the reference model's
 * log-probs of every design, then the PPO minibatch updates. Live tokens are prompt + design
 * tokens of the designs.
 *
 * `--backend wasm` runs both on the WebAssembly SIMD backend (one thread) instead of TypeScript, and
 * also times the sampling of the same 16 designs with the CPU decoder and with `WasmDecoder`;
 * `--model` picks the model folder (default: the shipped v1). Also prints the process CPU time of
 * each layout's median round.
 *
 *   npm run bench:orchestrator-update [-- --rounds 2 --pack-rows 5 --seed 1 --backend cpu|wasm --model DIR]
 */
import { parseArgs } from 'node:util';
import {
  DEFAULT_ORCHESTRATOR_FOLDER,
  loadOrchestratorFolder,
} from '../src/cli/commands/train-orchestrator.ts';
import { createRng } from '../src/core/rng.ts';
import { tinyDesignSampling } from '../src/orchestrator/index.ts';
import { drawSplitTasks } from '../src/train/orchestrator-eval.ts';
import { DEFAULT_POOL } from '../src/policy/index.ts';
import { CpuExactDecoder, type Decoder } from '../src/train/orchestrator-decode.ts';
import { WasmDecoder } from '../src/train/orchestrator-decode-wasm.ts';
import { OrchestratorLearner, windowFor } from '../src/train/orchestrator-learner.ts';
import { sampleDesigns, type Sample } from '../src/train/orchestrator-sampler.ts';
import { orchestratorTrainConfig } from '../src/train/orchestrator.ts';
import { loadAverage, machine, writeResults } from './report.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '2' },
    'pack-rows': { type: 'string', default: '5' },
    seed: { type: 'string', default: '1' },
    backend: { type: 'string', default: 'cpu' },
    model: { type: 'string' },
  },
});
const rounds = Number(values.rounds);
const packRows = Number(values['pack-rows']);
const seed = Number(values.seed);
if (values.backend !== 'cpu' && values.backend !== 'wasm') throw new Error('--backend is cpu or wasm');
const CHOICE = {
  backend: values.backend,
  reason: `benchmark: ${values.backend === 'wasm' ? 'WebAssembly SIMD' : 'TypeScript CPU'} backend`,
  adapter: null,
  ctx: null,
} as const;

const modelDir = values.model ?? DEFAULT_ORCHESTRATOR_FOLDER;
const model = await loadOrchestratorFolder(modelDir);
const format = tinyDesignSampling({
  tokenizer: model.tokenizer,
  vocabSize: model.weights.config.vocabSize,
  maxQueryTokens: model.maxQueryTokens,
  pool: DEFAULT_POOL,
});
// One iteration's rollouts at the default B 4 × G 4, τ 1.
const tasks = drawSplitTasks({ count: 4, baseSeed: seed, split: 'train', values: [2, 3, 4, 5, 6] });
const sample = (decoder: Decoder): Promise<Sample[]> =>
  sampleDesigns({
    decoder,
    format,
    queries: tasks.map((task, i) => ({ task, dom: i % 2 === 0 ? 'low' : 'high' })),
    group: 4,
    temperature: 1,
    greedy: false,
    rng: createRng(seed),
    maxNewTokens: 256,
  });
const samples: Sample[] = await sample(new CpuExactDecoder(model.weights));

// On wasm, the sampling phase on both decoders, alternating: what the trainer samples with on the
// TypeScript backend (CpuExactDecoder) and on wasm (WasmDecoder).
const sampling: { decoder: string; ms: number[]; cpuMs: number[] }[] = [];
if (values.backend === 'wasm') {
  const decoders: [string, Decoder][] = [
    ['CpuExactDecoder (TypeScript)', new CpuExactDecoder(model.weights)],
    ['WasmDecoder', await WasmDecoder.create(model.weights, 16)],
  ];
  for (const [name] of decoders) sampling.push({ decoder: name, ms: [], cpuMs: [] });
  for (let r = 0; r < rounds; r++)
    for (const i of r % 2 === 0 ? [0, 1] : [1, 0]) {
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      await sample(decoders[i]![1]);
      const c = process.cpuUsage(c0);
      sampling[i]!.ms.push(performance.now() - t0);
      sampling[i]!.cpuMs.push((c.user + c.system) / 1000);
    }
}
const live = samples.reduce((a, s) => a + s.prompt.length + s.tokens.length, 0);
const seq = model.weights.config.nPositions;
const adv = samples.map((_, i) => (i % 2 === 0 ? 0.5 : -0.5));

interface Layout {
  name: string;
  packRows: number;
  learner: OrchestratorLearner;
  ms: number[];
  cpuMs: number[];
  updates: number;
  windowPositions: number;
}
const layouts: Layout[] = [];
for (const [name, rows] of [
  ['one design per row (packRows 0)', 0],
  [`packed (packRows ${packRows})`, packRows],
] as const) {
  const config = orchestratorTrainConfig({ packRows: rows });
  const learner = await OrchestratorLearner.create(model.weights, model.weights, config, CHOICE);
  layouts.push({ name, packRows: rows, learner, ms: [], cpuMs: [], updates: 0, windowPositions: 0 });
}

async function updatePhase(l: Layout): Promise<void> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const ref = await l.learner.logProbs(samples, 'reference');
  let updates = 0;
  let positions = 0;
  for (let start = 0; start < samples.length;) {
    const k = l.learner.fit(samples, start, 8);
    const part = samples.slice(start, start + k);
    await l.learner.update(
      part,
      part.map((s) => s.logp),
      ref.slice(start, start + k),
      adv.slice(start, start + k),
    );
    start += k;
    updates++;
    // Positions the learner computes: the window's rows that hold a design (the rest are skipped).
    positions +=
      windowFor(part, l.learner.rows, seq, model.weights.config.vocabSize, l.packRows > 0).rowsUsed * seq;
  }
  l.ms.push(performance.now() - t0);
  const c = process.cpuUsage(c0);
  l.cpuMs.push((c.user + c.system) / 1000);
  l.updates = updates;
  l.windowPositions = positions;
}

for (let r = 0; r < rounds; r++)
  for (const l of r % 2 === 0 ? layouts : [...layouts].reverse()) {
    await updatePhase(l);
    console.log(`round ${r + 1}: ${l.name}: ${(l.ms.at(-1)! / 1000).toFixed(1)} s`);
  }

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const rowsPacked = windowFor(
  samples.slice(0, layouts[1]!.learner.fit(samples, 0, 8)),
  packRows,
  seq,
  model.weights.config.vocabSize,
  true,
).rowsUsed;
const out = layouts.map((l) => ({
  layout: l.name,
  packRows: l.packRows,
  updates: l.updates,
  windowPositions: l.windowPositions,
  medianSeconds: Math.round(median(l.ms)) / 1000,
  medianCpuSeconds: Math.round(median(l.cpuMs)) / 1000,
  liveTokensPerSec: Math.round((10 * 1000 * live) / median(l.ms)) / 10,
}));
const ratio = out[0]!.medianSeconds / out[1]!.medianSeconds;
const load = loadAverage();
const mach = machine();
writeResults(values.backend === 'cpu' ? 'orchestrator-update' : 'orchestrator-update-wasm', {
  backend: values.backend,
  model: modelDir,
  machine: mach,
  load,
  rounds,
  designs: samples.length,
  live,
  out,
  ratio,
  sampling: sampling.map((x) => ({
    decoder: x.decoder,
    medianSeconds: Math.round(median(x.ms)) / 1000,
    medianCpuSeconds: Math.round(median(x.cpuMs)) / 1000,
  })),
});
console.log(
  `${samples.length} designs, ${live} live tokens (mean ${(live / samples.length).toFixed(0)} per design); first packed minibatch in ${rowsPacked} rows`,
);
for (const o of out)
  console.log(
    `| ${values.backend} | ${o.layout} | ${o.updates} | ${o.windowPositions} | ${o.medianSeconds.toFixed(2)} | ${o.medianCpuSeconds.toFixed(2)} | ${o.liveTokensPerSec} |`,
  );
console.log(`speed-up (median update phase, unpacked ÷ packed): ${ratio.toFixed(2)}×`);
for (const x of sampling)
  console.log(
    `sampling the 16 designs, ${x.decoder}: median ${(median(x.ms) / 1000).toFixed(2)} s wall, ${(median(x.cpuMs) / 1000).toFixed(2)} s CPU (${x.ms.map((v) => (v / 1000).toFixed(2)).join(', ')})`,
  );
console.log(
  `machine: ${mach.cores} × ${mach.cpu}, Node ${mach.node}; load average at the end ${load.join(' / ')}`,
);
for (const l of layouts) l.learner.dispose();
