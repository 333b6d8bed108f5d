/**
 * GRPO of the orchestrator LM from an SFT model folder (default models/baton-orchestrator-tiny), in
 * Node on the compute core's CPU backend (`--backend cpu`, the TypeScript kernels, or `wasm`, the
 * WebAssembly SIMD ones), for a wall-clock training budget (default 10 minutes): the per-iteration
 * curves, then held-out accuracy and tokens against the SFT model on the same test-split queries
 * (paired bootstrap 95% intervals), and the iteration's throughput (rollout tokens/s, update
 * tokens/s, the share of each phase). Simulated sub-agents (the simulator's fast path), not a
 * provider. The same loop in headless Chromium, driven through the Train page: `npm run
 * bench:orchestrator-train` (bench/orchestrator-train.bench.ts).
 *
 *   npm run bench:orchestrator-train-node [-- --model models/baton-orchestrator-tiny-v2 --backend wasm
 *     --minutes 10 --eval-tasks 40 --seed 1 --config '{"lr":1e-4}']
 */
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { computeBackend } from '../src/cli/compute.ts';
import {
  DEFAULT_ORCHESTRATOR_FOLDER,
  beforeAfterLines,
  loadOrchestratorFolder,
  samplingFormatOf,
  simulatorDesignRun,
  trainDefaultsOf,
} from '../src/cli/commands/train-orchestrator.ts';
import { orchestratorTrainConfig, type OrchestratorIterationMetrics } from '../src/train/orchestrator.ts';
import { OrchestratorTrainer, beforeAfter } from '../src/train/orchestrator.ts';
import { curveTable, heldOutTable, throughputOf, throughputTable } from './orchestrator-train-report.ts';
import { loadAverage, machine, writeDocSection, writeResults } from './report.ts';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    'eval-tasks': { type: 'string', default: '40' },
    seed: { type: 'string', default: '1' },
    model: { type: 'string' },
    backend: { type: 'string', default: 'cpu' },
    config: { type: 'string', default: '{}' },
    'no-doc': { type: 'boolean', default: false },
  },
});
const minutes = Number(values.minutes);
const evalTasks = Number(values['eval-tasks']);
if (values.backend !== 'cpu' && values.backend !== 'wasm')
  throw new Error(`--backend must be cpu or wasm, got "${values.backend}"`);
const choice = await computeBackend(values.backend);
const now = (): number => performance.now();
const r = (x: number, d = 3): number => Math.round(x * 10 ** d) / 10 ** d;

const folder = values.model === undefined ? DEFAULT_ORCHESTRATOR_FOLDER : resolve(values.model);
const model = await loadOrchestratorFolder(folder);
const modelPath = relative(process.cwd(), folder) || folder;
console.log(`backend: ${choice.backend} (${choice.reason}) · from ${modelPath}`);
const config = orchestratorTrainConfig({
  ...trainDefaultsOf(model),
  evalTasks,
  seed: Number(values.seed),
  ...(JSON.parse(values.config) as Record<string, unknown>),
});
const format = samplingFormatOf(model);
const trainer = await OrchestratorTrainer.create({
  model,
  format,
  config,
  choice,
  run: simulatorDesignRun,
  clock: now,
});

const te0 = now();
const before = await trainer.evaluate(evalTasks, 'sft');
const evalMs = now() - te0;
console.log(`SFT held-out evaluation: ${before.length} queries in ${(evalMs / 1000).toFixed(0)} s`);

const budgetMs = minutes * 60_000;
const t0 = now();
let last = 0;
const curve: OrchestratorIterationMetrics[] = [];
while (now() - t0 + last < budgetMs) {
  const ti = now();
  const m = await trainer.iterate();
  last = now() - ti;
  curve.push(m);
  console.log(
    `iteration ${m.iteration}: reward ${m.reward.toFixed(3)} · accuracy ${m.accuracy.toFixed(3)} · tokens/task ${m.tokensPerTask.toFixed(0)} · agents ${m.agents.toFixed(2)} · KL ${m.kl.toFixed(4)} · entropy ${m.entropy.toFixed(3)} · clip ${m.clipFraction.toFixed(3)} · ${(last / 1000).toFixed(1)} s`,
  );
}
const trainMs = now() - t0;
const after = await trainer.evaluate(evalTasks);
const ba = beforeAfter(before, after);
for (const l of beforeAfterLines(ba)) console.log(l);

const throughput = throughputOf(curve);
const load = loadAverage();
const mach = machine();
writeResults('orchestrator-train-node', {
  machine: mach,
  model: modelPath,
  backend: { backend: choice.backend, reason: choice.reason },
  load,
  minutes,
  trainSeconds: r(trainMs / 1000, 1),
  config,
  curve,
  heldOut: ba,
  throughput,
});

const body = [
  `GRPO of the orchestrator LM (\`src/train/orchestrator-*.ts\`) from the SFT model \`${modelPath}\`, in Node on the compute core's ${choice.backend} backend (${choice.reason}; sampling with the CPU-exact KV-cache decoder, updates through the compiled training graph), on simulated sub-agents (the simulator's fast path). Not in headless Chromium: the same loop, run in Node (the Chromium run through the Train page is the next section). Command: \`npm run bench:orchestrator-train-node${values.model === undefined ? '' : ` -- --model ${modelPath}`}${values.backend === 'cpu' ? '' : `${values.model === undefined ? ' --' : ''} --backend ${values.backend}`}\` (writes \`bench/results/orchestrator-train-node.json\`).`,
  '',
  `- Measured ${new Date().toISOString().slice(0, 10)} on ${mach.cores} × ${mach.cpu}, Node ${mach.node}; load average at the end ${load.join(' / ')} (the cores are shared with other processes, so times are noisy).`,
  `- Settings: B ${config.tasksPerIteration} queries × G ${config.groupSize} designs per iteration (DoM ${config.dom}), τ ${config.temperature}, λ ${config.lambda}, advantage ${config.advantageNorm}, ε ${config.clipEps}, β_KL ${config.klCoef}, β_H ${config.entropyCoef}, Adam lr ${config.lr}, ${config.epochs} epoch(s), minibatch ${config.minibatch} designs, axis values ${config.values.join(',')}, at most ${config.maxNewTokens} design tokens, seed ${config.seed}; training budget ${minutes} min: ${curve.length} iterations in ${(trainMs / 1000).toFixed(0)} s.`,
  '',
  "**Curves** (sampled designs of each iteration; accuracy and tokens are the simulator's):",
  '',
  ...curveTable(curve),
  '',
  `**Held-out** (${ba.before.n} queries: ${evalTasks} test-split tasks × low and high DoM, greedy, one fixed simulator seed per task):`,
  '',
  ...heldOutTable(ba),
  '',
  `**Throughput** of the iteration on the ${choice.backend} backend:`,
  '',
  ...throughputTable(throughput),
  '',
  `Rollout tokens are the tokens the model wrote (forced ones included); update tokens are prompt + design tokens of the designs the updates trained on (the reference pass for the KL term included in the update phase); the designs are packed into the training window, \`packRows\` rows of the model's ${model.weights.config.nPositions} positions (the rest of a row is padding, computed too).`,
].join('\n');
if (!values['no-doc']) writeDocSection('Orchestrator LM: GRPO training', body);
console.log(body);
trainer.dispose();
