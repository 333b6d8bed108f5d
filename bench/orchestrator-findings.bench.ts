/**
 * MAS-Orchestra's training findings at small scale: several seeds of GRPO of the orchestrator LM
 * from one SFT model (default the v2 model), a fixed number of iterations each, in Node on the
 * compute core (wasm by default), on generated MASBench tasks run by simulated sub-agents (the
 * simulator's fast path, not a provider). Each seed is evaluated on the same held-out test-split
 * queries as the SFT model; src/train/orchestrator-findings.ts turns the rows into the delegation,
 * structure and accuracy/cost findings with 95% intervals over seeds. The first seed's weights can
 * be kept as a model folder (`--save`), e.g. for `npm run bench:orchestrator-quality -- --grpo`.
 *
 *   npm run bench:orchestrator-findings [-- --model models/baton-orchestrator-tiny-v2 --seeds 3
 *     --iterations 30 --eval-tasks 100 --backend wasm --config '{"lr":1e-4}' --save DIR --no-doc]
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  loadOrchestratorFolder,
  samplingFormatOf,
  simulatorDesignRun,
  trainDefaultsOf,
  writeTrainedOrchestrator,
} from '../src/cli/commands/train-orchestrator.ts';
import {
  OrchestratorTrainer,
  beforeAfter,
  findingsMarkdown,
  orchestratorFindings,
  orchestratorTrainConfig,
  type HeldOutDesign,
  type OrchestratorIterationMetrics,
  type SeedRun,
} from '../src/train/orchestrator.ts';
import { loadAverage, machine, writeDocSection, writeResults } from './report.ts';

const { values } = parseArgs({
  options: {
    model: { type: 'string', default: 'models/baton-orchestrator-tiny-v2' },
    seeds: { type: 'string', default: '3' },
    iterations: { type: 'string', default: '30' },
    'eval-tasks': { type: 'string', default: '100' },
    backend: { type: 'string', default: 'wasm' },
    config: { type: 'string', default: '{}' },
    save: { type: 'string' },
    'no-doc': { type: 'boolean', default: false },
  },
});
const int = (name: string, v: string, min: number): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer ≥ ${min}`);
  return n;
};
const seeds = int('seeds', values.seeds, 1);
const iterations = int('iterations', values.iterations, 1);
const evalTasks = int('eval-tasks', values['eval-tasks'], 1);
if (values.backend !== 'wasm' && values.backend !== 'cpu') throw new Error('--backend is wasm or cpu');
const choice = {
  backend: values.backend,
  reason: `benchmark: ${values.backend} backend`,
  adapter: null,
  ctx: null,
} as const;
const now = (): number => performance.now();

const model = await loadOrchestratorFolder(resolve(values.model));
const format = samplingFormatOf(model);
const extra = JSON.parse(values.config) as Record<string, unknown>;
const v2Defaults = trainDefaultsOf(model);
const name = model.config.baton.provenance.name;
const t0 = now();

let before: HeldOutDesign[] | null = null;
const runs: SeedRun[] = [];
const seedSeconds: number[] = [];
for (let s = 1; s <= seeds; s++) {
  const config = orchestratorTrainConfig({ ...v2Defaults, evalTasks, ...extra, seed: s });
  const trainer = await OrchestratorTrainer.create({
    model,
    format,
    config,
    choice,
    run: simulatorDesignRun,
    clock: now,
  });
  const ts = now();
  if (!before) {
    before = await trainer.evaluate(evalTasks, 'sft');
    console.log(`SFT held-out: ${before.length} queries in ${((now() - ts) / 1000).toFixed(0)} s`);
  }
  const curve: OrchestratorIterationMetrics[] = [];
  while (trainer.iteration < iterations) {
    const m = await trainer.iterate();
    curve.push(m);
    console.log(
      `seed ${s} iteration ${m.iteration}: reward ${m.reward.toFixed(3)} · accuracy ${m.accuracy.toFixed(3)} · tokens/task ${m.tokensPerTask.toFixed(0)} · agents ${m.agents.toFixed(2)} · delegated ${m.lowDomDelegated === null ? '–' : m.lowDomDelegated.toFixed(2)} · KL ${m.kl.toFixed(4)} · entropy ${m.entropy.toFixed(3)}`,
    );
  }
  const after = await trainer.evaluate(evalTasks);
  runs.push({ seed: s, curve, after });
  const ba = beforeAfter(before, after);
  console.log(
    `seed ${s}: accuracy ${(100 * ba.before.accuracy).toFixed(1)}% → ${(100 * ba.after.accuracy).toFixed(1)}%, tokens/task ${ba.before.tokens.toFixed(0)} → ${ba.after.tokens.toFixed(0)}`,
  );
  if (s === 1 && values.save) {
    await writeTrainedOrchestrator(resolve(values.save), model, trainer, ba);
    console.log(`wrote ${values.save} (seed 1)`);
  }
  seedSeconds.push((now() - ts) / 1000);
  trainer.dispose();
}
if (!before) throw new Error('no seed ran');

const findings = orchestratorFindings(before, runs);
const load = loadAverage();
const mach = machine();
const config = orchestratorTrainConfig({ ...v2Defaults, evalTasks, ...extra, seed: 1 });
writeResults('orchestrator-findings', {
  machine: mach,
  load,
  model: name,
  backend: values.backend,
  iterations,
  config,
  seedSeconds,
  findings,
  curves: runs.map((r) => ({ seed: r.seed, curve: r.curve })),
});
const body = [
  `MAS-Orchestra's training findings, measured at small scale: ${seeds} seeds of GRPO of the orchestrator LM from \`${name}\`, ${iterations} iterations each, in Node on the compute core's ${values.backend} backend, on generated MASBench tasks run by **simulated** sub-agents (the simulator's fast path). Command: \`npm run bench:orchestrator-findings -- --model ${values.model} --seeds ${seeds} --iterations ${iterations} --eval-tasks ${evalTasks}${values.config !== '{}' ? ` --config '${values.config}'` : ''}\` (bench/orchestrator-findings.bench.ts; writes \`bench/results/orchestrator-findings.json\`).`,
  '',
  `- Measured ${new Date().toISOString().slice(0, 10)} on ${mach.cores} × ${mach.cpu}, Node ${mach.node}; ${((now() - t0) / 60_000).toFixed(1)} min in all (per seed: ${seedSeconds.map((x) => x.toFixed(0)).join(', ')} s); load average at the end ${load.join(' / ')}.`,
  `- Settings (seed s = 1…${seeds}): B ${config.tasksPerIteration} × G ${config.groupSize}, DoM ${config.dom}, axis values ${config.values.join(', ')}, τ ${config.temperature}, λ ${config.lambda}, advantage ${config.advantageNorm}, ε ${config.clipEps}, β_KL ${config.klCoef}, β_H ${config.entropyCoef}, lr ${config.lr}, ${config.epochs} epoch(s), at most ${config.maxNewTokens} design tokens. Held out: ${evalTasks} test-split tasks × low and high DoM, greedy, one fixed simulator seed per task (the same queries for the SFT model and every seed).`,
  '',
  findingsMarkdown(findings),
].join('\n');
if (!values['no-doc']) writeDocSection('Orchestrator LM: what GRPO changes (seeds)', body);
console.log(body);
