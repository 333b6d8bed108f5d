/**
 * `baton eval-policy`: scores a construction policy on held-out MASBench tasks (test-split seeds)
 * run by the simulated sub-agents: accuracy with a 95% Wilson interval, tokens, agents, edges,
 * reward, per axis (src/train/evaluate.ts).
 */
import { DEFAULT_POOL, PolicyNetwork } from '../../policy/index.ts';
import { PRESETS, evaluatePolicy, trainConfig, type PresetName } from '../../train/index.ts';
import { type CliIO, type Command, parseCommandArgs } from '../command.ts';
import { loadCheckpoint } from '../construct-inputs.ts';
import { computeBackend } from '../compute.ts';
import { choiceFlag, isUsageError, positiveIntFlag, readFlags, seedFlag, type UsageError } from '../flags.ts';
import { simulatedRunners } from './train.ts';

const usage = `Usage: baton eval-policy --policy <prior|random[:SEED]|ckpt.json> [--preset depth|parallel|robustness|mixed]
                         [--n N] [--seed S] [--sampled]

Scores a policy on N held-out MASBench tasks (test-split seeds, never drawn by baton train) run by
simulated sub-agents; greedy constructions unless --sampled. Prints one JSON object.

Exit code 0 on success, 1 when a run fails, 2 on a usage error.`;

interface Options {
  policy: string;
  preset: PresetName;
  n: number;
  seed: number;
  sampled: boolean;
}

function parse(args: string[]): { ok: true; o: Options } | UsageError {
  const f = readFlags(args, {
    policy: { type: 'string' },
    preset: { type: 'string' },
    n: { type: 'string' },
    seed: { type: 'string' },
    sampled: { type: 'boolean' },
  });
  if (!f.ok) return f;
  const policy = f.str('policy');
  if (!policy) return { ok: false, message: '--policy is required' };
  const preset = choiceFlag('preset', f.str('preset'), PRESETS, 'mixed');
  if (isUsageError(preset)) return preset;
  const n = positiveIntFlag('n', f.str('n'), '100');
  if (isUsageError(n)) return n;
  const seed = seedFlag(f.str('seed'));
  if (isUsageError(seed)) return seed;
  return { ok: true, o: { policy, preset, n, seed, sampled: f.values.sampled === true } };
}

async function run(args: string[], io: CliIO): Promise<number> {
  const p = parseCommandArgs('eval-policy', args, usage, parse, io);
  if (typeof p === 'number') return p;
  const o = p.o;
  const cp = await loadCheckpoint(o.policy, io.cwd, DEFAULT_POOL);
  if (typeof cp === 'string') {
    io.err(`baton eval-policy: ${cp}`);
    return 2;
  }
  const net = await PolicyNetwork.create(cp, await computeBackend('cpu'));
  try {
    const r = await evaluatePolicy({
      net,
      pool: DEFAULT_POOL,
      config: trainConfig({ preset: o.preset }),
      runners: simulatedRunners,
      n: o.n,
      seed: o.seed,
      greedy: !o.sampled,
    });
    io.out(JSON.stringify({ policy: cp.name, preset: o.preset, greedy: !o.sampled, ...r }));
    return 0;
  } catch (e) {
    io.err(`baton eval-policy: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  } finally {
    net.dispose();
  }
}

export const evalPolicyCommand: Command = {
  name: 'eval-policy',
  summary: 'score a construction policy on held-out simulated MASBench tasks',
  usage,
  run,
};
