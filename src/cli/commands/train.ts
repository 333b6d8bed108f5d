/**
 * `baton train`: trains a construction policy on generated MASBench tasks executed by the
 * simulated sub-agents (src/train, docs/train.md) and writes a baton.policy/1 checkpoint that
 * `baton construct --policy <file>` reads.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { simulatedRunners as simulatedTaskRunners } from '../../executor/train-runners.ts';
import {
  TrainBudgetExceeded,
  providerTrainRunners,
  type ProviderTrainRunners,
} from '../../executor/train-provider-runners.ts';
import type { BackendPreference } from '../../gpu/index.ts';
import { releaseNodeGpu } from '../../gpu/node-gpu.ts';
import { DEFAULT_POOL, serializeCheckpoint } from '../../policy/index.ts';
import { availableParallelism } from 'node:os';
import {
  createRolloutPool,
  createSimPool,
  nodeRolloutSpawner,
  nodeSimSpawner,
  simWorkersFor,
  type SimPool,
} from '../../workers/node.ts';
import {
  ALGOS,
  PRESETS,
  Trainer,
  iterationWorkload,
  parseTrainConfig,
  rolloutTimes,
  type RolloutWorkers,
  type RunnersFor,
  type UpdateMetrics,
} from '../../train/index.ts';
import { type CliIO, type Command, parseCommandArgs } from '../command.ts';
import { runTrainOrchestrator } from './train-orchestrator.ts';
import { loadCheckpoint, loadConfigFile } from '../construct-inputs.ts';
import { computeBackend } from '../compute.ts';
import {
  backendFlag,
  choiceFlag,
  isUsageError,
  positiveIntFlag,
  readFlags,
  seedFlag,
  type UsageError,
} from '../flags.ts';
import {
  PROVIDER_OPTIONS,
  openProvider,
  parseProviderArgs,
  providerFlagsIn,
  providerUsage,
  redactingIO,
  type ProviderArgs,
} from '../provider-args.ts';

const usage = `Usage: baton train --target orchestrator ... (GRPO of the orchestrator LM: baton train --target orchestrator --help)
       baton train [--target policy] [--preset depth|parallel|robustness|mixed] [--algo hrpo|grpo|reinforce]
                   [--from random|prior|<ckpt.json>] [--iterations N] [--seed S]
                   [--backend auto|cpu|webgpu] [--sim-threads N|auto] [--rollout-threads N|auto]
                   [--config <settings.json>] --out <ckpt.json>
                   [--log <metrics.jsonl>]
                   [--execute simulated|openai --base-url URL --model M --budget-tokens N [--budget-usd X]]

Trains the construction policy on generated MASBench tasks (train-split seeds) run by simulated
sub-agents (or, with --execute openai, by your OpenAI-compatible provider under a hard budget), and
writes the trained checkpoint (baton.policy/1). Progress goes to stderr, one JSON line per update
to --log.

Options:
  --preset      task distribution (default mixed)
  --algo        grpo (default), hrpo or reinforce
  --from        starting policy: random[:SEED], prior (default), prior@T (another
                node-head temperature) or a checkpoint file
  --iterations  iterations of B tasks x G constructions and K epochs of updates (default 10)
  --seed        seed of tasks, sampling and minibatch order (default 0)
  --backend     auto, cpu (default) or webgpu
  --sim-threads threads for the simulated sub-agents: 1 (default, this one), up to 8 (this one and
                simulator worker threads), or auto (a worker per core beyond two); the same numbers
                on any count
  --rollout-threads threads that sample rollouts: 1 (default, this one), up to 8 (this one and
                rollout worker threads, each sampling a block of every iteration's constructions
                whole, its policy passes on the CPU side), or auto (a worker per core beyond two,
                timed against this thread alone on the first iterations and kept only if faster);
                the same numbers on any count. Used when rollouts are sampled on the CPU side (cpu,
                or wasm as auto may pick beside WebGPU); not with --sim-threads
  --config      a JSON object of training settings (any field of the Train page's form, e.g.
                {"lambda": 0.3, "groupSize": 8}); --preset, --algo and --seed override it
  --out         where to write the checkpoint
  --log         where to write the metrics (JSON lines)
  --execute     simulated (default) or openai: every partial and final design of every rollout
                runs on the provider. Needs --budget-tokens (and takes --budget-usd): the budget is
                shown before the first call and checked before each request; a request that could
                cross it is not sent, training stops, and the checkpoint of the last finished
                iteration is written (exit code 3)
${providerUsage('--execute openai')}

Exit code 0 when the checkpoint is written, 1 when training fails, 2 on a usage error, 3 when the
provider budget stopped training.`;

/** The simulator as the trainer's runners (src/executor/train-runners.ts). */
export const simulatedRunners: RunnersFor = simulatedTaskRunners;

interface Options {
  config: Record<string, unknown>;
  configFile: string | undefined;
  from: string;
  iterations: number;
  backend: BackendPreference;
  /** Threads for the simulated sub-agents (1: this one only). */
  simThreads: number | 'auto';
  /** Threads that sample rollouts (1: this one only). */
  rolloutThreads: number | 'auto';
  out: string;
  log: string | undefined;
  /** Null: simulated sub-agents. */
  provider: ProviderArgs | null;
}

function parse(args: string[]): { ok: true; o: Options } | UsageError {
  const f = readFlags(args, {
    preset: { type: 'string' },
    algo: { type: 'string' },
    from: { type: 'string' },
    iterations: { type: 'string' },
    seed: { type: 'string' },
    backend: { type: 'string' },
    'sim-threads': { type: 'string' },
    'rollout-threads': { type: 'string' },
    config: { type: 'string' },
    out: { type: 'string' },
    log: { type: 'string' },
    execute: { type: 'string' },
    ...PROVIDER_OPTIONS,
  });
  if (!f.ok) return f;
  const execute = choiceFlag('execute', f.str('execute'), ['simulated', 'openai'] as const, 'simulated');
  if (isUsageError(execute)) return execute;
  let provider: ProviderArgs | null = null;
  if (execute === 'openai') {
    const pa = parseProviderArgs(f.values, '--execute openai');
    if (!pa.ok) return pa;
    if (pa.value.budget.totalTokens === undefined)
      return {
        ok: false,
        message: '--execute openai needs --budget-tokens: training on a provider is never unlimited',
      };
    provider = pa.value;
  } else {
    const stray = providerFlagsIn(f.values);
    if (stray.length > 0) return { ok: false, message: `${stray.join(', ')} go with --execute openai` };
  }
  const out = f.str('out');
  if (!out) return { ok: false, message: '--out is required' };
  const preset = choiceFlag('preset', f.str('preset'), PRESETS, 'mixed');
  if (isUsageError(preset)) return preset;
  const algo = choiceFlag('algo', f.str('algo'), ALGOS, 'hrpo');
  if (isUsageError(algo)) return algo;
  const given = (name: string): boolean => f.str(name) !== undefined;
  const iterations = positiveIntFlag('iterations', f.str('iterations'), '10');
  if (isUsageError(iterations)) return iterations;
  const seed = seedFlag(f.str('seed'));
  if (isUsageError(seed)) return seed;
  const backend = backendFlag(f.str('backend'), 'cpu');
  if (isUsageError(backend)) return backend;
  const threadsText = f.str('sim-threads') ?? '1';
  const simThreads = threadsText === 'auto' ? 'auto' : Number(threadsText);
  if (simThreads !== 'auto' && !(Number.isInteger(simThreads) && simThreads >= 1 && simThreads <= 8))
    return { ok: false, message: `--sim-threads must be 1 to 8 or auto, got "${threadsText}"` };
  if (simThreads !== 1 && provider)
    return { ok: false, message: '--sim-threads goes with the simulated sub-agents, not --execute openai' };
  const rolloutText = f.str('rollout-threads') ?? '1';
  const rolloutThreads = rolloutText === 'auto' ? 'auto' : Number(rolloutText);
  if (
    rolloutThreads !== 'auto' &&
    !(Number.isInteger(rolloutThreads) && rolloutThreads >= 1 && rolloutThreads <= 8)
  )
    return { ok: false, message: `--rollout-threads must be 1 to 8 or auto, got "${rolloutText}"` };
  if (rolloutThreads !== 1 && provider)
    return {
      ok: false,
      message: '--rollout-threads goes with the simulated sub-agents, not --execute openai',
    };
  if (rolloutThreads !== 1 && simThreads !== 1)
    return {
      ok: false,
      message:
        '--rollout-threads and --sim-threads: one or the other (rollout workers simulate their own blocks)',
    };
  return {
    ok: true,
    o: {
      // Flags given on the command line win over --config; defaults only fill what neither sets.
      config: {
        ...(given('preset') ? { preset } : {}),
        ...(given('algo') ? { algo } : {}),
        ...(given('seed') ? { seed } : {}),
      },
      configFile: f.str('config'),
      from: f.str('from') ?? 'prior',
      iterations,
      backend,
      simThreads,
      rolloutThreads,
      out,
      log: f.str('log'),
      provider,
    },
  };
}

/** `--target policy|orchestrator` (policy by default), and the other arguments. */
function targetOf(args: string[]): { target: string; rest: string[] } {
  const i = args.findIndex((a) => a === '--target' || a.startsWith('--target='));
  if (i < 0) return { target: 'policy', rest: args };
  const a = args[i] as string;
  const inline = a.startsWith('--target=');
  const target = inline ? a.slice('--target='.length) : (args[i + 1] ?? '');
  return { target, rest: [...args.slice(0, i), ...args.slice(i + (inline ? 1 : 2))] };
}

async function run(all: string[], io: CliIO): Promise<number> {
  const { target, rest: args } = targetOf(all);
  if (target === 'orchestrator') return runTrainOrchestrator(args, io);
  if (target !== 'policy') {
    io.err(`baton train: --target must be policy or orchestrator, got "${target}"`);
    return 2;
  }
  const p = parseCommandArgs('train', args, usage, parse, io);
  if (typeof p === 'number') return p;
  const o = p.o;
  const file = o.configFile === undefined ? {} : await loadConfigFile(o.configFile, io.cwd);
  if (typeof file === 'string') {
    io.err(`baton train: ${file}`);
    return 2;
  }
  const cfg = parseTrainConfig({ ...file, ...o.config });
  if (!cfg.ok) {
    io.err(`baton train: ${cfg.problems.join('; ')}`);
    return 2;
  }
  const cp = await loadCheckpoint(o.from, io.cwd, DEFAULT_POOL);
  if (typeof cp === 'string') {
    io.err(`baton train: ${cp.replace('--policy', '--from')}`);
    return 2;
  }
  let runners: RunnersFor = simulatedRunners;
  // The simulated sub-agents on this thread and worker threads (src/workers/sim-pool.ts).
  const workers = simWorkersFor(o.simThreads, availableParallelism());
  const sim: SimPool | null = workers > 0 ? createSimPool({ workers, spawn: nodeSimSpawner() }) : null;
  if (sim) runners = sim.runners;
  // Blocks of each iteration's constructions sampled whole on worker threads (src/workers/rollout-pool.ts).
  const rolloutWorkers = simWorkersFor(o.rolloutThreads, availableParallelism());
  const rollouts: RolloutWorkers | null =
    rolloutWorkers > 0 ? createRolloutPool({ workers: rolloutWorkers, spawn: nodeRolloutSpawner() }) : null;
  let paid: ProviderTrainRunners | null = null;
  let out = io;
  if (o.provider?.endpoint) {
    const prov = openProvider(o.provider.endpoint);
    out = redactingIO(io, prov.secrets);
    const b = o.provider.budget;
    paid = providerTrainRunners(
      prov.spec,
      { tokens: b.totalTokens as number, ...(b.totalUsd !== undefined ? { usd: b.totalUsd } : {}) },
      { concurrency: o.provider.concurrency },
    );
    runners = paid.runners;
    if (prov.note) out.err(prov.note);
    const c = cfg.config;
    out.err(
      `provider: ${prov.spec.model} at ${prov.spec.baseUrl} · budget ${b.totalTokens} tokens${b.totalUsd !== undefined ? `, $${b.totalUsd}` : ' (no dollar limit)'} for the whole run · up to ${o.iterations} iterations × ${c.tasksPerIteration} tasks × ${c.groupSize} constructions, each with ${c.intermediate ? 'an intermediate run per step and ' : ''}a final run`,
    );
  }
  // `auto` times one iteration of this config on each backend, always with the simulator's runners
  // (a provider's calls would spend the run's budget on the probe).
  const choice = await computeBackend(
    o.backend,
    iterationWorkload({
      start: cp,
      pool: DEFAULT_POOL,
      config: cfg.config,
      runners: sim?.runners ?? simulatedRunners,
    }),
  ).catch((e: unknown) => {
    // Its worker threads would keep the process alive.
    sim?.dispose();
    rollouts?.dispose();
    throw e;
  });
  out.err(
    `backend: ${choice.backend} (${choice.reason}) · from ${cp.name} · ${cfg.config.algo} on ${cfg.config.preset}${sim ? ` · simulated sub-agents on ${workers + 1} threads` : ''}${rollouts ? (choice.backend === 'webgpu' && !choice.samplerBackend ? ' · rollouts sampled on WebGPU in this thread (rollout workers sample on the CPU side only)' : ` · rollouts on ${rolloutWorkers + 1} threads`) : ''}`,
  );
  const lines: string[] = [];
  let updates = 0;
  let trainer: Trainer | null = null;
  const write = async (why: string): Promise<void> => {
    if (!trainer) return;
    const path = resolve(io.cwd, o.out);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, serializeCheckpoint(await trainer.trained()));
    if (o.log) await writeFile(resolve(io.cwd, o.log), lines.map((l) => l + '\n').join(''));
    out.out(`wrote ${path} (${updates} updates${why})`);
  };
  try {
    trainer = await Trainer.create({
      start: cp,
      pool: DEFAULT_POOL,
      config: cfg.config,
      choice,
      runners,
      ...(rollouts ? { rolloutWorkers: rollouts } : {}),
      ...(rollouts && o.rolloutThreads === 'auto' ? { rolloutProbe: () => performance.now() } : {}),
      onUpdate: (m: UpdateMetrics) => {
        updates++;
        lines.push(JSON.stringify(m));
        if (m.minibatch === 0 && m.epoch === 0)
          out.err(
            `iteration ${m.iteration + 1}/${o.iterations}: reward ${m.meanReward.toFixed(3)} · accuracy ${m.accuracy.toFixed(3)} · tokens ${m.tokens.toFixed(0)} · loss ${m.loss.toFixed(4)} · KL ${m.kl.toFixed(4)} · clip ${m.clipFraction.toFixed(2)} · |g| ${m.gradNorm.toFixed(3)}`,
          );
      },
    });
    let told = false;
    for (let i = 0; i < o.iterations; i++) {
      await trainer.iterate();
      const chosen = trainer.rolloutChoice;
      if (chosen && !told) {
        told = true;
        const where = chosen.pool ? `on ${chosen.threads} threads` : 'on this thread';
        out.err(`rollouts: ${where} from now on (${rolloutTimes(chosen)})`);
      }
    }
    const spent = paid?.spent();
    // A simulator worker that failed had its calls run here (the same numbers); say so.
    for (const p of sim?.problems ?? []) out.err(`baton train: ${p}`);
    for (const p of rollouts?.problems ?? []) out.err(`baton train: ${p}`);
    await write(
      spent
        ? `; provider spend ${spent.calls} requests, ${spent.tokens} tokens, $${spent.usd.toFixed(4)}`
        : '',
    );
    return 0;
  } catch (e) {
    if (e instanceof TrainBudgetExceeded) {
      out.err(`baton train: ${e.message}`);
      if (trainer && trainer.iteration > 0)
        await write(`; stopped by the budget after ${trainer.iteration} finished iterations`);
      else out.err('baton train: no iteration finished within the budget; no checkpoint written');
      return 3;
    }
    out.err(`baton train: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  } finally {
    trainer?.dispose();
    sim?.dispose();
    rollouts?.dispose();
    choice.ctx?.dispose();
    if (o.backend !== 'cpu') releaseNodeGpu();
  }
}

export const trainCommand: Command = {
  name: 'train',
  summary: 'train the construction policy on simulated MASBench tasks (HRPO, GRPO, REINFORCE)',
  usage,
  run,
};
