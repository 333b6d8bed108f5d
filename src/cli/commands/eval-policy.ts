/**
 * `baton eval-policy`: scores a construction policy on held-out MASBench tasks (test-split seeds)
 * run by the simulated sub-agents: accuracy with a 95% Wilson interval, tokens, agents, edges,
 * reward, per axis (src/train/evaluate.ts). With `--structure` it also says what the policy builds
 * on those tasks, per axis and axis value (roles used, agents, edges, DAG depth; src/train/
 * structure.ts), and with `--against` the same for a second policy on the same tasks, before →
 * after.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import {
  DEFAULT_POOL,
  PolicyNetwork,
  priorCheckpoint,
  randomCheckpoint,
  type PolicyCheckpoint,
} from '../../policy/index.ts';
import {
  PRESETS,
  baselinesMarkdown,
  compareStructure,
  presetBaselines,
  heldOutRollouts,
  scoreHeldOut,
  structureMarkdown,
  structureOf,
  trainConfig,
  type HeldOutRow,
  type PresetName,
  type StructureTable,
} from '../../train/index.ts';
import type { BackendChoice } from '../../gpu/index.ts';
import { type CliIO, type Command, parseCommandArgs } from '../command.ts';
import { loadCheckpoint } from '../construct-inputs.ts';
import { computeBackend } from '../compute.ts';
import { choiceFlag, isUsageError, positiveIntFlag, readFlags, seedFlag, type UsageError } from '../flags.ts';
import { simulatedRunners } from './train.ts';

const usage = `Usage: baton eval-policy --policy <prior[@T]|random[:SEED]|ckpt.json> [--preset depth|parallel|robustness|mixed]
                         [--n N] [--seed S] [--sampled]
                         [--structure [--against <prior|random[:SEED]|ckpt.json>] [--out <structure.json>]]
       baton eval-policy --baselines [--n N] [--seed S] [--group G] [--out <baselines.json>]

Scores a policy on N held-out MASBench tasks (test-split seeds, never drawn by baton train) run by
simulated sub-agents; greedy constructions unless --sampled. Prints one JSON object.

With --structure it prints, per axis, what the policy builds on those tasks (share of designs using
each role, mean agents, edges and DAG depth, accuracy, tokens) as a markdown table, and writes the
full table (per axis value too) as JSON to --out. --against names the policy to compare with on the
same tasks: the table then reads "against → policy" in every cell.

--baselines scores, on every preset's held-out tasks, the greedy prior and random:0 policies and a
best-of-G ceiling (G sampled constructions of the prior per task, the one with the highest simulator
reward counted: an oracle pick), and prints a markdown table (src/train/baselines.ts).

Exit code 0 on success, 1 when a run fails, 2 on a usage error.`;

interface Options {
  policy: string;
  baselines: boolean;
  group: number;
  preset: PresetName;
  n: number;
  seed: number;
  sampled: boolean;
  structure: boolean;
  against: string | undefined;
  out: string | undefined;
}

function parse(args: string[]): { ok: true; o: Options } | UsageError {
  const f = readFlags(args, {
    policy: { type: 'string' },
    preset: { type: 'string' },
    n: { type: 'string' },
    seed: { type: 'string' },
    sampled: { type: 'boolean' },
    structure: { type: 'boolean' },
    against: { type: 'string' },
    out: { type: 'string' },
    baselines: { type: 'boolean' },
    group: { type: 'string' },
  });
  if (!f.ok) return f;
  const baselines = f.values.baselines === true;
  const policy = f.str('policy') ?? '';
  if (!policy && !baselines) return { ok: false, message: '--policy is required' };
  if (policy && baselines)
    return { ok: false, message: '--baselines scores its own policies: leave out --policy' };
  const group = positiveIntFlag('group', f.str('group'), '8');
  if (isUsageError(group)) return group;
  const preset = choiceFlag('preset', f.str('preset'), PRESETS, 'mixed');
  if (isUsageError(preset)) return preset;
  const n = positiveIntFlag('n', f.str('n'), '100');
  if (isUsageError(n)) return n;
  const seed = seedFlag(f.str('seed'));
  if (isUsageError(seed)) return seed;
  const structure = f.values.structure === true;
  if (!structure && f.str('against') !== undefined)
    return { ok: false, message: '--against goes with --structure' };
  if (!structure && !baselines && f.str('out') !== undefined)
    return { ok: false, message: '--out goes with --structure or --baselines' };
  return {
    ok: true,
    o: {
      policy,
      baselines,
      group,
      preset,
      n,
      seed,
      sampled: f.values.sampled === true,
      structure,
      against: f.str('against'),
      out: f.str('out'),
    },
  };
}

/** The held-out constructions of `cp` (the rows both the scores and the structure tables come from). */
async function heldOut(cp: PolicyCheckpoint, o: Options, choice: BackendChoice): Promise<HeldOutRow[]> {
  const net = await PolicyNetwork.create(cp, choice);
  try {
    return await heldOutRollouts({
      net,
      pool: DEFAULT_POOL,
      config: trainConfig({ preset: o.preset }),
      runners: simulatedRunners,
      n: o.n,
      seed: o.seed,
      greedy: !o.sampled,
    });
  } finally {
    net.dispose();
  }
}

async function structureTable(
  cp: PolicyCheckpoint,
  o: Options,
  choice: BackendChoice,
): Promise<StructureTable> {
  const rows = await heldOut(cp, o, choice);
  return structureOf(rows, DEFAULT_POOL, { policy: cp.name, preset: o.preset, greedy: !o.sampled });
}

async function baselines(o: Options, io: CliIO): Promise<number> {
  const choice = await computeBackend('cpu');
  const prior = priorCheckpoint(DEFAULT_POOL);
  try {
    const rows = await presetBaselines({
      pool: DEFAULT_POOL,
      choice,
      runners: simulatedRunners,
      presets: PRESETS,
      n: o.n,
      seed: o.seed,
      policies: [
        { name: 'prior', checkpoint: prior },
        { name: 'random:0', checkpoint: randomCheckpoint(DEFAULT_POOL, 0) },
      ],
      ceiling: { name: 'prior', checkpoint: prior, groupSize: o.group },
      onProgress: (q) => io.err(`${q.preset}: ${q.policy}`),
    });
    io.out(baselinesMarkdown(rows));
    if (o.out) {
      const path = resolve(io.cwd, o.out);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(
        path,
        JSON.stringify({ format: 'baton.baselines/1', n: o.n, seed: o.seed, rows }, null, 1),
      );
      io.err(`wrote ${path}`);
    }
    return 0;
  } catch (e) {
    io.err(`baton eval-policy: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
}

async function run(args: string[], io: CliIO): Promise<number> {
  const p = parseCommandArgs('eval-policy', args, usage, parse, io);
  if (typeof p === 'number') return p;
  const o = p.o;
  if (o.baselines) return baselines(o, io);
  const cp = await loadCheckpoint(o.policy, io.cwd, DEFAULT_POOL);
  if (typeof cp === 'string') {
    io.err(`baton eval-policy: ${cp}`);
    return 2;
  }
  const against = o.against === undefined ? null : await loadCheckpoint(o.against, io.cwd, DEFAULT_POOL);
  if (typeof against === 'string') {
    io.err(`baton eval-policy: ${against.replace('--policy', '--against')}`);
    return 2;
  }
  const choice = await computeBackend('cpu');
  try {
    if (o.structure) {
      const after = await structureTable(cp, o, choice);
      const before = against ? await structureTable(against, o, choice) : null;
      io.out(before ? structureMarkdown(before, after) : structureMarkdown(after));
      if (o.out) {
        const path = resolve(io.cwd, o.out);
        await mkdir(dirname(path), { recursive: true });
        const body = before
          ? { before, after, comparison: compareStructure(before, after) }
          : { structure: after };
        await writeFile(
          path,
          JSON.stringify({ format: 'baton.structure/1', n: o.n, seed: o.seed, ...body }, null, 1),
        );
        io.err(`wrote ${path}`);
      }
      return 0;
    }
    const r = scoreHeldOut(await heldOut(cp, o, choice));
    io.out(JSON.stringify({ policy: cp.name, preset: o.preset, greedy: !o.sampled, ...r }));
    return 0;
  } catch (e) {
    io.err(`baton eval-policy: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
}

export const evalPolicyCommand: Command = {
  name: 'eval-policy',
  summary: 'score a construction policy on held-out simulated MASBench tasks',
  usage,
  run,
};
