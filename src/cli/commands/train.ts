/**
 * `baton train`: trains a construction policy on generated MASBench tasks executed by the
 * simulated sub-agents (src/train, docs/train.md) and writes a baton.policy/1 checkpoint that
 * `baton construct --policy <file>` reads.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { simulatedRunners as simulatedTaskRunners } from '../../executor/train-runners.ts';
import type { BackendPreference } from '../../gpu/index.ts';
import { releaseNodeGpu } from '../../gpu/node-gpu.ts';
import { DEFAULT_POOL, serializeCheckpoint } from '../../policy/index.ts';
import { ALGOS, PRESETS, parseTrainConfig, train, type RunnersFor } from '../../train/index.ts';
import { type CliIO, type Command, parseCommandArgs } from '../command.ts';
import { loadCheckpoint } from '../construct-inputs.ts';
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

const usage = `Usage: baton train [--preset depth|parallel|robustness|mixed] [--algo hrpo|grpo|reinforce]
                   [--from random|prior|<ckpt.json>] [--iterations N] [--seed S]
                   [--backend auto|cpu|webgpu] --out <ckpt.json> [--log <metrics.jsonl>]

Trains the construction policy on generated MASBench tasks (train-split seeds) run by simulated
sub-agents, and writes the trained checkpoint (baton.policy/1). Progress goes to stderr, one JSON
line per update to --log.

Options:
  --preset      task distribution (default mixed)
  --algo        hrpo (default), grpo or reinforce
  --from        starting policy: random[:SEED], prior (default) or a checkpoint file
  --iterations  iterations of B tasks x G constructions and K epochs of updates (default 10)
  --seed        seed of tasks, sampling and minibatch order (default 0)
  --backend     auto, cpu (default) or webgpu
  --out         where to write the checkpoint
  --log         where to write the metrics (JSON lines)

Exit code 0 when the checkpoint is written, 1 when training fails, 2 on a usage error.`;

/** The simulator as the trainer's runners (src/executor/train-runners.ts). */
export const simulatedRunners: RunnersFor = simulatedTaskRunners;

interface Options {
  config: Record<string, unknown>;
  from: string;
  iterations: number;
  backend: BackendPreference;
  out: string;
  log: string | undefined;
}

function parse(args: string[]): { ok: true; o: Options } | UsageError {
  const f = readFlags(args, {
    preset: { type: 'string' },
    algo: { type: 'string' },
    from: { type: 'string' },
    iterations: { type: 'string' },
    seed: { type: 'string' },
    backend: { type: 'string' },
    out: { type: 'string' },
    log: { type: 'string' },
  });
  if (!f.ok) return f;
  const out = f.str('out');
  if (!out) return { ok: false, message: '--out is required' };
  const preset = choiceFlag('preset', f.str('preset'), PRESETS, 'mixed');
  if (isUsageError(preset)) return preset;
  const algo = choiceFlag('algo', f.str('algo'), ALGOS, 'hrpo');
  if (isUsageError(algo)) return algo;
  const iterations = positiveIntFlag('iterations', f.str('iterations'), '10');
  if (isUsageError(iterations)) return iterations;
  const seed = seedFlag(f.str('seed'));
  if (isUsageError(seed)) return seed;
  const backend = backendFlag(f.str('backend'), 'cpu');
  if (isUsageError(backend)) return backend;
  return {
    ok: true,
    o: {
      config: { preset, algo, seed },
      from: f.str('from') ?? 'prior',
      iterations,
      backend,
      out,
      log: f.str('log'),
    },
  };
}

async function run(args: string[], io: CliIO): Promise<number> {
  const p = parseCommandArgs('train', args, usage, parse, io);
  if (typeof p === 'number') return p;
  const o = p.o;
  const cfg = parseTrainConfig(o.config);
  if (!cfg.ok) {
    io.err(`baton train: ${cfg.problems.join('; ')}`);
    return 2;
  }
  const cp = await loadCheckpoint(o.from, io.cwd, DEFAULT_POOL);
  if (typeof cp === 'string') {
    io.err(`baton train: ${cp.replace('--policy', '--from')}`);
    return 2;
  }
  const choice = await computeBackend(o.backend);
  io.err(
    `backend: ${choice.backend} (${choice.reason}) · from ${cp.name} · ${cfg.config.algo} on ${cfg.config.preset}`,
  );
  const lines: string[] = [];
  try {
    const r = await train({
      checkpoint: cp,
      pool: DEFAULT_POOL,
      config: cfg.config,
      choice,
      runners: simulatedRunners,
      iterations: o.iterations,
      onUpdate: (m) => {
        lines.push(JSON.stringify(m));
        if (m.minibatch === 0 && m.epoch === 0)
          io.err(
            `iteration ${m.iteration + 1}/${o.iterations}: reward ${m.meanReward.toFixed(3)} · accuracy ${m.accuracy.toFixed(3)} · tokens ${m.tokens.toFixed(0)} · loss ${m.loss.toFixed(4)} · KL ${m.kl.toFixed(4)} · clip ${m.clipFraction.toFixed(2)} · |g| ${m.gradNorm.toFixed(3)}`,
          );
      },
    });
    const out = resolve(io.cwd, o.out);
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, serializeCheckpoint(r.checkpoint));
    if (o.log) await writeFile(resolve(io.cwd, o.log), lines.map((l) => l + '\n').join(''));
    io.out(`wrote ${out} (${r.updates.length} updates)`);
    return 0;
  } catch (e) {
    io.err(`baton train: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  } finally {
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
