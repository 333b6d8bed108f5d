/**
 * `baton train --target orchestrator`: GRPO of the orchestrator LM (src/train/orchestrator-*.ts,
 * docs/train.md) headless, from an SFT model folder, on generated MASBench tasks run by the
 * simulated sub-agents' fast path. Prints one line of metrics per iteration, a before/after
 * held-out evaluation, and writes a model folder (fp32/q8/q4) that `baton orchestrate --model` and
 * the Orchestrate page load, with `grpo-report.json` (config, curves, evaluation) beside it.
 */
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { minimalTrace } from '../../core/trace-builders.ts';
import type { Design } from '../../core/trace.ts';
import { simulatedRunners } from '../../executor/train-runners.ts';
import type { BackendPreference } from '../../gpu/index.ts';
import { releaseNodeGpu } from '../../gpu/node-gpu.ts';
import { taskOfMasbench, type MasBenchTask } from '../../masbench/index.ts';
import { tinyDesignSampling, tinyVersionOf } from '../../orchestrator/index.ts';
import { DEFAULT_POOL } from '../../policy/index.ts';
import {
  orchestratorTrainConfig,
  parseOrchestratorCheckpoint,
  type OrchestratorIterationMetrics,
} from '../../train/orchestrator.ts';
import {
  OrchestratorTrainer,
  beforeAfter,
  orchestratorFolderFiles,
  readOrchestratorModel,
  type BeforeAfter,
  type OrchestratorModel,
} from '../../train/orchestrator.ts';
import type { CliIO } from '../command.ts';
import { loadConfigFile } from '../construct-inputs.ts';
import { computeBackend } from '../compute.ts';
import {
  backendFlag,
  isUsageError,
  positiveIntFlag,
  readFlags,
  seedFlag,
  type UsageError,
} from '../flags.ts';

export const DEFAULT_ORCHESTRATOR_FOLDER = fileURLToPath(
  new URL('../../../models/baton-orchestrator-tiny/', import.meta.url),
);

export const orchestratorUsage = `Usage: baton train --target orchestrator [--model <folder>] [--iterations N] [--seed S]
                   [--config <settings.json>] [--eval-tasks N] [--backend cpu|wasm|auto|webgpu]
                   [--resume <checkpoint.json>] [--checkpoint <checkpoint.json>] --out <folder>

GRPO of the orchestrator LM: per iteration, B train-split MASBench queries x G designs sampled
under constrained decoding, run by simulated sub-agents (reward = correct - lambda*cost), then PPO
updates with the group advantage, a KL term to the starting (SFT) model and an entropy bonus.
Writes a model folder (fp32, q8, q4) for baton orchestrate --model <folder>.

Options:
  --model       the SFT model folder (default models/baton-orchestrator-tiny)
  --iterations  iterations (default 10)
  --seed        seed of tasks, sampling and minibatch order (default 0)
  --config      a JSON object of settings (docs/train.md, "Training the orchestrator LM"), e.g.
                {"groupSize": 8, "lambda": 0.3}; --seed and --eval-tasks override it
  --eval-tasks  held-out test-split tasks, each in low and high DoM, scored before and after
                (default 20; 0 = no evaluation)
  --backend     cpu (default), wasm, auto or webgpu: where the updates run (sampling runs on the CPU)
  --resume      continue from a checkpoint written by --checkpoint
  --checkpoint  also write the trainer's checkpoint (parameters, Adam moments, curves)
  --out         the model folder to write`;

interface Options {
  model: string;
  iterations: number;
  config: Record<string, unknown>;
  configFile: string | undefined;
  backend: BackendPreference;
  resume: string | undefined;
  checkpoint: string | undefined;
  out: string;
}

function parse(args: string[]): { ok: true; o: Options } | UsageError {
  const f = readFlags(args, {
    model: { type: 'string' },
    iterations: { type: 'string' },
    seed: { type: 'string' },
    config: { type: 'string' },
    'eval-tasks': { type: 'string' },
    backend: { type: 'string' },
    resume: { type: 'string' },
    checkpoint: { type: 'string' },
    out: { type: 'string' },
  });
  if (!f.ok) return f;
  const out = f.str('out');
  if (!out) return { ok: false, message: '--out (the model folder to write) is required' };
  const iterations = positiveIntFlag('iterations', f.str('iterations'), '10');
  if (isUsageError(iterations)) return iterations;
  const seed = f.str('seed') === undefined ? undefined : seedFlag(f.str('seed'));
  if (isUsageError(seed)) return seed;
  const evalRaw = f.str('eval-tasks');
  if (evalRaw !== undefined && !/^\d+$/.test(evalRaw))
    return { ok: false, message: `--eval-tasks must be a whole number, got "${evalRaw}"` };
  const backend = backendFlag(f.str('backend'), 'cpu');
  if (isUsageError(backend)) return backend;
  return {
    ok: true,
    o: {
      model: f.str('model') ?? DEFAULT_ORCHESTRATOR_FOLDER,
      iterations,
      config: {
        ...(seed !== undefined ? { seed } : {}),
        ...(evalRaw !== undefined ? { evalTasks: Number(evalRaw) } : {}),
      },
      configFile: f.str('config'),
      backend,
      resume: f.str('resume'),
      checkpoint: f.str('checkpoint'),
      out,
    },
  };
}

/** The simulator's fast path (src/executor/train-runners.ts) as a design runner. */
export const simulatorDesignRun = (design: Design, task: MasBenchTask, seed: number) =>
  simulatedRunners(task, seed).final({
    ...minimalTrace({ query: task.question }),
    task: taskOfMasbench(task),
    design,
  });

/** Reads a model folder from disk (the files `readOrchestratorModel` validates). */
export async function loadOrchestratorFolder(dir: string): Promise<OrchestratorModel> {
  if (!(await stat(dir).catch(() => null))?.isDirectory()) throw new Error(`${dir} is not a folder`);
  const text = (name: string): Promise<string> =>
    readFile(join(dir, name), 'utf8').catch(() => {
      throw new Error(`${dir} has no ${name}: not a model folder`);
    });
  const config = await text('config.json');
  const fp32 = /"fp32"\s*:\s*"([^"]+)"/.exec(config)?.[1] ?? 'onnx/model.onnx';
  if (fp32.includes('..')) throw new Error(`config.json names the fp32 file ${fp32} outside the folder`);
  const onnx = await readFile(join(dir, fp32)).catch(() => {
    throw new Error(`${dir} has no ${fp32}: training needs the fp32 weights`);
  });
  return readOrchestratorModel({
    config,
    tokenizer: await text('tokenizer.json'),
    tokenizerConfig: await text('tokenizer_config.json'),
    onnx: new Uint8Array(onnx),
  });
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;

export function metricsLine(m: OrchestratorIterationMetrics, of: number): string {
  return [
    `iteration ${m.iteration}/${of}: reward ${m.reward.toFixed(3)}`,
    `accuracy ${m.accuracy.toFixed(3)}`,
    `tokens/task ${m.tokensPerTask.toFixed(0)}`,
    `agents ${m.agents.toFixed(2)}`,
    `low-DoM delegated ${m.lowDomDelegated === null ? '-' : pct(m.lowDomDelegated)}`,
    `KL ${m.kl.toFixed(4)}`,
    `entropy ${m.entropy.toFixed(3)}`,
    `clip ${m.clipFraction.toFixed(3)}`,
    `rollout ${(m.rolloutTokensPerSec ?? 0).toFixed(0)} tok/s`,
    `update ${(m.updateTokensPerSec ?? 0).toFixed(0)} tok/s`,
  ].join(' · ');
}

export function beforeAfterLines(ba: BeforeAfter): string[] {
  const row = (name: string, s: BeforeAfter['before']): string =>
    `${name.padEnd(6)} accuracy ${pct(s.accuracy)} [${pct(s.interval[0])}, ${pct(s.interval[1])}] · tokens/task ${s.tokens.toFixed(0)} · agents ${s.agents.toFixed(2)} · design tokens ${s.designTokens.toFixed(1)} (${pct(s.forcedShare)} forced) · low-DoM delegated ${s.lowDomDelegated === null ? '-' : pct(s.lowDomDelegated)}`;
  const d = (p: BeforeAfter['accuracy'], f: (x: number) => string): string =>
    `${f(p.difference)} [${f(p.interval[0])}, ${f(p.interval[1])}]`;
  return [
    `held-out (${ba.before.n} queries, test split, both DoM):`,
    row('SFT', ba.before),
    row('GRPO', ba.after),
    `after - before: accuracy ${d(ba.accuracy, (x) => `${(100 * x).toFixed(1)} pts`)} · tokens/task ${d(ba.tokens, (x) => x.toFixed(0))} (paired bootstrap 95%)`,
  ];
}

/**
 * Training settings a model folder needs beyond the config's defaults: v2 (`tiny2`) was trained on
 * axis values 2–12 and its designs (plan included) reach 372 tokens, so it trains on those values
 * with room for 448 design tokens (the Train page's settings for it, ORCH_SFT_MODELS); v1 keeps the
 * defaults.
 */
export function trainDefaultsOf(model: OrchestratorModel): { values?: number[]; maxNewTokens?: number } {
  return tinyVersionOf(model.config) === 2
    ? { values: [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], maxNewTokens: 448 }
    : {};
}

/** The prompt format and constraint of a model folder (tiny or tiny2, from its config.json). */
export function samplingFormatOf(model: OrchestratorModel): ReturnType<typeof tinyDesignSampling> {
  return tinyDesignSampling({
    tokenizer: model.tokenizer,
    vocabSize: model.weights.config.vocabSize,
    maxQueryTokens: model.maxQueryTokens,
    pool: DEFAULT_POOL,
    format: tinyVersionOf(model.config) === 2 ? 'tiny2' : 'tiny',
  });
}

/**
 * Writes the trained weights as a model folder (fp32, q8, q4) that `baton orchestrate --model` and
 * the Orchestrate page load, with `grpo-report.json` (config, curves, held-out evaluation) beside it.
 */
export async function writeTrainedOrchestrator(
  outDir: string,
  model: OrchestratorModel,
  trainer: OrchestratorTrainer,
  heldOut: BeforeAfter | null,
): Promise<void> {
  const name = model.config.baton.provenance.name;
  const format = tinyVersionOf(model.config) === 2 ? 'tiny2' : 'tiny';
  const files = orchestratorFolderFiles(model, trainer.weights, {
    meta: {
      name: `${name}-grpo`,
      description: `${name} after ${trainer.iteration} GRPO iterations on simulated MASBench tasks (baton train --target orchestrator).`,
      source: 'baton train --target orchestrator',
      seed: trainer.config.seed,
      training: {
        format,
        from: name,
        iterations: trainer.iteration,
        tasksPerIteration: trainer.config.tasksPerIteration,
        groupSize: trainer.config.groupSize,
        lambda: trainer.config.lambda,
        maxQueryTokens: model.maxQueryTokens,
      },
    },
  });
  for (const [path, data] of files) {
    const full = join(outDir, path);
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, data);
  }
  const report = { config: trainer.config, from: name, history: trainer.history, heldOut };
  await writeFile(join(outDir, 'grpo-report.json'), `${JSON.stringify(report, null, 2)}\n`);
}

export async function runTrainOrchestrator(args: string[], io: CliIO): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.out(orchestratorUsage);
    return 0;
  }
  const p = parse(args);
  if (!p.ok) {
    io.err(`baton train: ${p.message}`);
    io.err(orchestratorUsage);
    return 2;
  }
  const o = p.o;
  const file = o.configFile === undefined ? {} : await loadConfigFile(o.configFile, io.cwd);
  if (typeof file === 'string') {
    io.err(`baton train: ${file}`);
    return 2;
  }
  let config;
  let model: OrchestratorModel;
  let resume;
  try {
    config = orchestratorTrainConfig({ ...file, ...o.config });
    model = await loadOrchestratorFolder(resolve(io.cwd, o.model));
    if (o.resume) {
      const r = parseOrchestratorCheckpoint(await readFile(resolve(io.cwd, o.resume), 'utf8'));
      if (!r.ok) throw new Error(`bad checkpoint ${o.resume}: ${r.problems.slice(0, 3).join('; ')}`);
      resume = r.checkpoint;
    }
  } catch (e) {
    io.err(`baton train: ${e instanceof Error ? e.message : String(e)}`);
    return 2;
  }
  const choice = await computeBackend(o.backend);
  const name = model.config.baton.provenance.name;
  io.err(
    `backend: ${choice.backend} (${choice.reason}) · from ${name} · B ${config.tasksPerIteration} x G ${config.groupSize} · lambda ${config.lambda} · temperature ${config.temperature} (simulated sub-agents)`,
  );
  let trainer: OrchestratorTrainer | null = null;
  try {
    const format = samplingFormatOf(model);
    trainer = await OrchestratorTrainer.create({
      model,
      format,
      config,
      choice,
      run: simulatorDesignRun,
      clock: () => performance.now(),
      ...(resume ? { resume } : {}),
    });
    const evalTasks = trainer.config.evalTasks;
    const before = evalTasks > 0 ? await trainer.evaluate(evalTasks, 'sft') : null;
    const target = trainer.iteration + o.iterations;
    while (trainer.iteration < target) io.err(metricsLine(await trainer.iterate(), target));
    let ba: BeforeAfter | null = null;
    if (before) {
      ba = beforeAfter(before, await trainer.evaluate(evalTasks));
      for (const l of beforeAfterLines(ba)) io.out(l);
    }
    const outDir = resolve(io.cwd, o.out);
    await writeTrainedOrchestrator(outDir, model, trainer, ba);
    if (o.checkpoint) {
      const cp = resolve(io.cwd, o.checkpoint);
      await mkdir(dirname(cp), { recursive: true });
      await writeFile(cp, JSON.stringify(await trainer.checkpoint()));
      io.out(`wrote checkpoint ${cp}`);
    }
    io.out(`wrote ${outDir} (${trainer.iteration} iterations; baton orchestrate --model ${o.out})`);
    return 0;
  } catch (e) {
    io.err(`baton train: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  } finally {
    trainer?.dispose();
    choice.ctx?.dispose();
    if (o.backend !== 'cpu') releaseNodeGpu();
  }
}
