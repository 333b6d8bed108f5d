/**
 * GRPO of the orchestrator LM from the shipped SFT model (models/baton-orchestrator-tiny), in Node
 * on the compute core's CPU backend, for a wall-clock training budget (default 10 minutes): the
 * per-iteration curves, then held-out accuracy and tokens against the SFT model on the same
 * test-split queries (paired bootstrap 95% intervals), and the iteration's throughput (rollout
 * tokens/s, update tokens/s, the share of each phase). Simulated sub-agents (the simulator's fast
 * path), not a provider.
 *
 *   npm run bench:orchestrator-train [-- --minutes 10 --eval-tasks 40 --seed 1 --config '{"lr":1e-4}']
 */
import { parseArgs } from 'node:util';
import {
  DEFAULT_ORCHESTRATOR_FOLDER,
  beforeAfterLines,
  loadOrchestratorFolder,
  simulatorDesignRun,
} from '../src/cli/commands/train-orchestrator.ts';
import { tinyDesignSampling } from '../src/orchestrator/index.ts';
import { DEFAULT_POOL } from '../src/policy/index.ts';
import { orchestratorTrainConfig, type OrchestratorIterationMetrics } from '../src/train/orchestrator.ts';
import { OrchestratorTrainer, beforeAfter } from '../src/train/orchestrator.ts';
import { loadAverage, machine, writeDocSection, writeResults } from './report.ts';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    'eval-tasks': { type: 'string', default: '40' },
    seed: { type: 'string', default: '1' },
    config: { type: 'string', default: '{}' },
    'no-doc': { type: 'boolean', default: false },
  },
});
const minutes = Number(values.minutes);
const evalTasks = Number(values['eval-tasks']);
const CPU = { backend: 'cpu', reason: 'benchmark: CPU backend', adapter: null, ctx: null } as const;
const now = (): number => performance.now();
const r = (x: number, d = 3): number => Math.round(x * 10 ** d) / 10 ** d;

const model = await loadOrchestratorFolder(DEFAULT_ORCHESTRATOR_FOLDER);
const config = orchestratorTrainConfig({
  evalTasks,
  seed: Number(values.seed),
  ...(JSON.parse(values.config) as Record<string, unknown>),
});
const format = tinyDesignSampling({
  tokenizer: model.tokenizer,
  vocabSize: model.weights.config.vocabSize,
  maxQueryTokens: model.maxQueryTokens,
  pool: DEFAULT_POOL,
});
const trainer = await OrchestratorTrainer.create({
  model,
  format,
  config,
  choice: CPU,
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

const sum = (f: (m: OrchestratorIterationMetrics) => number): number => curve.reduce((a, m) => a + f(m), 0);
const rolloutMs = sum((m) => m.timings?.rolloutMs ?? 0);
const runMs = sum((m) => m.timings?.runMs ?? 0);
const updateMs = sum((m) => m.timings?.updateMs ?? 0);
const genTokens = sum((m) => m.designTokens * m.samples);
const windowTokens = sum((m) => ((m.updateTokensPerSec ?? 0) * (m.timings?.updateMs ?? 0)) / 1000);
const phases = rolloutMs + runMs + updateMs;
const throughput = {
  rolloutTokensPerSec: r((1000 * genTokens) / rolloutMs, 1),
  updateTokensPerSec: r((1000 * windowTokens) / updateMs, 1),
  rolloutShare: r(rolloutMs / phases),
  runShare: r(runMs / phases),
  updateShare: r(updateMs / phases),
  iterationSeconds: r(phases / curve.length / 1000, 2),
};
const load = loadAverage();
const mach = machine();
writeResults('orchestrator-train', {
  machine: mach,
  load,
  minutes,
  trainSeconds: r(trainMs / 1000, 1),
  config,
  curve,
  heldOut: ba,
  throughput,
});

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
const ci = (p: { difference: number; interval: [number, number] }, f: (x: number) => string): string =>
  `${f(p.difference)} [${f(p.interval[0])}, ${f(p.interval[1])}]`;
const every = Math.max(1, Math.ceil(curve.length / 15));
const rows = curve
  .filter((_, i) => i % every === 0 || i === curve.length - 1)
  .map(
    (m) =>
      `| ${m.iteration} | ${m.reward.toFixed(3)} | ${m.accuracy.toFixed(3)} | ${m.tokensPerTask.toFixed(0)} | ${m.agents.toFixed(2)} | ${m.lowDomDelegated === null ? '–' : pct(m.lowDomDelegated)} | ${m.kl.toFixed(4)} | ${m.entropy.toFixed(3)} | ${m.clipFraction.toFixed(3)} |`,
  );
const row = (name: string, s: typeof ba.before): string =>
  `| ${name} | ${pct(s.accuracy)} [${pct(s.interval[0])}, ${pct(s.interval[1])}] | ${s.tokens.toFixed(0)} | ${s.agents.toFixed(2)} | ${s.designTokens.toFixed(1)} | ${pct(s.forcedShare)} | ${s.lowDomDelegated === null ? '–' : pct(s.lowDomDelegated)} | ${pct(s.validity)} |`;
const body = [
  `GRPO of the orchestrator LM (\`src/train/orchestrator-*.ts\`) from the shipped SFT model \`models/baton-orchestrator-tiny\`, in Node on the compute core's CPU backend (sampling with the CPU-exact KV-cache decoder, updates through the compiled training graph), on simulated sub-agents (the simulator's fast path). Not in headless Chromium: the same loop, run in Node. Command: \`npm run bench:orchestrator-train\` (writes \`bench/results/orchestrator-train.json\`).`,
  '',
  `- Measured ${new Date().toISOString().slice(0, 10)} on ${mach.cores} × ${mach.cpu}, Node ${mach.node}; load average at the end ${load.join(' / ')} (the cores are shared with other processes, so times are noisy).`,
  `- Settings: B ${config.tasksPerIteration} queries × G ${config.groupSize} designs per iteration (DoM ${config.dom}), τ ${config.temperature}, λ ${config.lambda}, advantage ${config.advantageNorm}, ε ${config.clipEps}, β_KL ${config.klCoef}, β_H ${config.entropyCoef}, Adam lr ${config.lr}, ${config.epochs} epoch(s), minibatch ${config.minibatch} designs, seed ${config.seed}; training budget ${minutes} min: ${curve.length} iterations in ${(trainMs / 1000).toFixed(0)} s.`,
  '',
  "**Curves** (sampled designs of each iteration; accuracy and tokens are the simulator's):",
  '',
  '| iteration | reward | accuracy | tokens/task | agents | low-DoM delegated | KL | entropy | clip fraction |',
  '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...rows,
  '',
  `**Held-out** (${ba.before.n} queries: ${evalTasks} test-split tasks × low and high DoM, greedy, one fixed simulator seed per task):`,
  '',
  '| model | accuracy [95% Wilson] | tokens/task | agents | design tokens | forced | low-DoM delegated | valid |',
  '|---|---:|---:|---:|---:|---:|---:|---:|',
  row('SFT', ba.before),
  row('after GRPO', ba.after),
  '',
  `After − SFT, paired bootstrap 95% over the same queries: accuracy ${ci(ba.accuracy, (x) => `${(100 * x).toFixed(1)} pts`)}, tokens/task ${ci(ba.tokens, (x) => x.toFixed(0))}.`,
  '',
  '**Throughput** of the iteration on the CPU backend:',
  '',
  '| rollout tokens/s | update tokens/s | rollout share | simulator share | update share | s per iteration |',
  '|---:|---:|---:|---:|---:|---:|',
  `| ${throughput.rolloutTokensPerSec} | ${throughput.updateTokensPerSec} | ${pct(throughput.rolloutShare)} | ${pct(throughput.runShare)} | ${pct(throughput.updateShare)} | ${throughput.iterationSeconds} |`,
  '',
  "Rollout tokens are the tokens the model wrote (forced ones included); update tokens are prompt + design tokens of the designs the updates trained on (the reference pass for the KL term included in the update phase); the designs are packed into the training window, `packRows` rows of the model's 256 positions (the rest of a row is padding, computed too).",
].join('\n');
if (!values['no-doc']) writeDocSection('Orchestrator LM: GRPO training', body);
console.log(body);
trainer.dispose();
