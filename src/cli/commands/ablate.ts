/**
 * `baton ablate`: the ablation study headless (src/train/ablation.ts). Every variant — HRPO, GRPO,
 * REINFORCE and HRPO without exemption time, action-wise rewards, JPSS or intermediate answers —
 * trains from the same start on the same preset and budget once per seed, on simulated
 * sub-agents; each trained policy is scored greedily on the same held-out tasks. Progress goes to
 * stderr, a markdown table (means with 95% t-intervals over seeds) to stdout, the whole study
 * (per-run curves included) to --out as JSON.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { DEFAULT_POOL } from '../../policy/index.ts';
import {
  ABLATION_VARIANTS,
  PRESETS,
  ablationMarkdown,
  parseTrainConfig,
  runAblation,
} from '../../train/index.ts';
import { type CliIO, type Command, parseCommandArgs } from '../command.ts';
import { loadCheckpoint } from '../construct-inputs.ts';
import { computeBackend } from '../compute.ts';
import { choiceFlag, isUsageError, positiveIntFlag, readFlags, seedFlag, type UsageError } from '../flags.ts';
import { simulatedRunners } from './train.ts';

const usage = `Usage: baton ablate [--preset depth|parallel|robustness|mixed] [--from prior|random[:SEED]|<ckpt.json>]
                    [--seeds K] [--first-seed S] [--iterations N] [--tasks B] [--group G]
                    [--variants id,id,...] [--eval-n N] [--eval-seed S] --out <ablation.json>

Trains every variant (${ABLATION_VARIANTS.map((v) => v.id).join(', ')})
from the same start, on the same preset and budget, once per training seed (S, S+1, … S+K−1), on
simulated sub-agents, and scores each trained policy greedily on the same held-out tasks. Prints a
markdown table (mean over seeds with a 95% Student-t interval over seeds); writes the study with
per-run curves to --out. Progress on stderr.

Options:
  --preset      task distribution (default mixed)
  --from        starting policy (default prior)
  --seeds       training seeds per variant (default 5)
  --first-seed  the first training seed (default 0)
  --iterations  iterations per run (default 20)
  --tasks       B, tasks per iteration (default: the config's)
  --group       G, constructions per task (default: the config's)
  --variants    a comma-separated subset of the variants (default all)
  --eval-n      held-out tasks per evaluation (default 100)
  --eval-seed   seed of the held-out tasks (default 1)

Exit code 0 when the study is written, 1 when a run fails, 2 on a usage error.`;

interface Options {
  config: Record<string, unknown>;
  from: string;
  seeds: number[];
  iterations: number;
  variants: string[];
  evalN: number;
  evalSeed: number;
  out: string;
}

function parse(args: string[]): { ok: true; o: Options } | UsageError {
  const f = readFlags(args, {
    preset: { type: 'string' },
    from: { type: 'string' },
    seeds: { type: 'string' },
    'first-seed': { type: 'string' },
    iterations: { type: 'string' },
    tasks: { type: 'string' },
    group: { type: 'string' },
    variants: { type: 'string' },
    'eval-n': { type: 'string' },
    'eval-seed': { type: 'string' },
    out: { type: 'string' },
  });
  if (!f.ok) return f;
  const out = f.str('out');
  if (!out) return { ok: false, message: '--out is required' };
  const preset = choiceFlag('preset', f.str('preset'), PRESETS, 'mixed');
  if (isUsageError(preset)) return preset;
  const seeds = positiveIntFlag('seeds', f.str('seeds'), '5');
  if (isUsageError(seeds)) return seeds;
  const first = seedFlag(f.str('first-seed'));
  if (isUsageError(first)) return first;
  const iterations = positiveIntFlag('iterations', f.str('iterations'), '20');
  if (isUsageError(iterations)) return iterations;
  const evalN = positiveIntFlag('eval-n', f.str('eval-n'), '100');
  if (isUsageError(evalN)) return evalN;
  const evalSeed = seedFlag(f.str('eval-seed'), '1');
  if (isUsageError(evalSeed)) return evalSeed;
  const config: Record<string, unknown> = { preset };
  for (const [flag, key] of [
    ['tasks', 'tasksPerIteration'],
    ['group', 'groupSize'],
  ] as const) {
    if (f.str(flag) === undefined) continue;
    const v = positiveIntFlag(flag, f.str(flag), '1');
    if (isUsageError(v)) return v;
    config[key] = v;
  }
  const known = ABLATION_VARIANTS.map((v) => v.id);
  const variants =
    f
      .str('variants')
      ?.split(',')
      .map((s) => s.trim()) ?? known;
  const unknown = variants.filter((v) => !known.includes(v));
  if (unknown.length > 0 || variants.length === 0)
    return {
      ok: false,
      message: `--variants must name some of ${known.join(', ')}; unknown: ${unknown.join(', ')}`,
    };
  return {
    ok: true,
    o: {
      config,
      from: f.str('from') ?? 'prior',
      seeds: Array.from({ length: seeds }, (_, i) => first + i),
      iterations,
      variants,
      evalN,
      evalSeed,
      out,
    },
  };
}

async function run(args: string[], io: CliIO): Promise<number> {
  const p = parseCommandArgs('ablate', args, usage, parse, io);
  if (typeof p === 'number') return p;
  const o = p.o;
  const cfg = parseTrainConfig(o.config);
  if (!cfg.ok) {
    io.err(`baton ablate: ${cfg.problems.join('; ')}`);
    return 2;
  }
  const cp = await loadCheckpoint(o.from, io.cwd, DEFAULT_POOL);
  if (typeof cp === 'string') {
    io.err(`baton ablate: ${cp.replace('--policy', '--from')}`);
    return 2;
  }
  const choice = await computeBackend('cpu');
  const variants = ABLATION_VARIANTS.filter((v) => o.variants.includes(v.id));
  io.err(
    `ablation: ${variants.length} variants × ${o.seeds.length} seeds × ${o.iterations} iterations (B = ${cfg.config.tasksPerIteration}, G = ${cfg.config.groupSize}) on ${cfg.config.preset} from ${cp.name}; held-out n = ${o.evalN}`,
  );
  try {
    const study = await runAblation({
      start: cp,
      pool: DEFAULT_POOL,
      choice,
      runners: simulatedRunners,
      base: cfg.config,
      variants,
      seeds: o.seeds,
      iterations: o.iterations,
      evalN: o.evalN,
      evalSeed: o.evalSeed,
      onProgress: (q) => {
        const run = `[${q.runsDone + (q.iteration > q.iterations ? 0 : 1)}/${q.runsTotal}] ${q.variant} seed ${q.seed}`;
        if (q.metrics)
          io.err(
            `${run} iteration ${q.iteration}/${q.iterations}: reward ${q.metrics.meanReward.toFixed(3)} · accuracy ${q.metrics.accuracy.toFixed(3)} · tokens ${q.metrics.tokens.toFixed(0)}`,
          );
        else io.err(`${run}: evaluated on held-out tasks`);
      },
    });
    const path = resolve(io.cwd, o.out);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, JSON.stringify(study));
    io.out(ablationMarkdown(study));
    io.err(`wrote ${path}`);
    return 0;
  } catch (e) {
    io.err(`baton ablate: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
}

export const ablateCommand: Command = {
  name: 'ablate',
  summary: 'run the ablation study (HRPO, GRPO, REINFORCE, HRPO without its parts) over several seeds',
  usage,
  run,
};
