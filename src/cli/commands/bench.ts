/**
 * `baton bench generate`: writes MASBench-style tasks as JSON Lines, or as a verl RL dataset
 * (Parquet, `--format verl`). The generation itself is the pure `src/masbench` layer and the verl
 * rows are `src/interop`'s; this file only parses arguments and writes the file.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  AXES,
  MAX_AXIS_VALUE,
  MIN_AXIS_VALUE,
  generateTasks,
  toJsonl,
  type Axis,
} from '../../masbench/index.ts';
import { verlParquet, verlRows } from '../../interop/index.ts';
import { type CliIO, type Command, parseCommandArgs } from '../command.ts';

/** Upper bound on --n, so a typo cannot fill the disk. */
export const MAX_TASKS = 100_000;

const usage = `Usage: baton bench generate --axis <${AXES.join('|')}> --value <${MIN_AXIS_VALUE}..${MAX_AXIS_VALUE}> --n <N> --seed <S> --out <file.jsonl>
       baton bench generate … --format verl [--dom high|low] --out <file.parquet>

Writes N MASBench-style tasks, one JSON object per line, varying one axis of the sub-task graph;
with --format verl, a verl RL dataset instead: Parquet with data_source, prompt (the orchestrator
prompt), ability, reward_model and extra_info (see docs/interop.md).

Options:
  --axis   the axis to vary: ${AXES.join(', ')}
  --value  its value, ${MIN_AXIS_VALUE}..${MAX_AXIS_VALUE}
  --n      number of tasks, 1..${MAX_TASKS} (default 1)
  --seed   base seed, an integer 0..4294967295 (default 0); task i uses
           mix32((seed + (i + 1) * 0x9E3779B9) mod 2^32), and its train/test split
           follows from that task seed (see docs/masbench.md)
  --out    output file (.jsonl, or .parquet with --format verl), relative to the working directory
  --format jsonl (default) or verl
  --dom    with --format verl: the Degree of MAS the orchestrator prompt asks for, high (default) or low`;

type Parsed =
  | {
      ok: true;
      axis: Axis;
      value: number;
      n: number;
      seed: number;
      out: string;
      format: 'jsonl' | 'verl';
      dom: 'high' | 'low';
    }
  | { ok: false; message: string };

function integer(
  raw: string | undefined,
  name: string,
  min: number,
  max: number,
  fallback?: number,
): number | string {
  if (raw === undefined) return fallback ?? `--${name} is required`;
  if (!/^\d+$/.test(raw.trim())) return `--${name} must be an integer from ${min} to ${max}, got "${raw}"`;
  const v = Number(raw);
  if (v < min || v > max) return `--${name} must be an integer from ${min} to ${max}, got ${raw}`;
  return v;
}

function parse(args: string[]): Parsed {
  let values: Record<string, string | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args,
      options: {
        axis: { type: 'string' },
        value: { type: 'string' },
        n: { type: 'string' },
        seed: { type: 'string' },
        out: { type: 'string' },
        format: { type: 'string' },
        dom: { type: 'string' },
      },
      allowPositionals: true,
      strict: true,
    }));
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
  const [sub, ...extra] = positionals;
  if (sub !== 'generate') {
    return {
      ok: false,
      message: sub === undefined ? 'missing subcommand "generate"' : `unknown subcommand "${sub}"`,
    };
  }
  if (extra.length > 0) return { ok: false, message: `unexpected argument "${extra[0]}"` };
  const axis = values.axis;
  if (axis === undefined) return { ok: false, message: '--axis is required' };
  if (!(AXES as readonly string[]).includes(axis)) {
    return { ok: false, message: `--axis must be one of ${AXES.join(', ')}, got "${axis}"` };
  }
  const value = integer(values.value, 'value', MIN_AXIS_VALUE, MAX_AXIS_VALUE);
  if (typeof value === 'string') return { ok: false, message: value };
  const n = integer(values.n, 'n', 1, MAX_TASKS, 1);
  if (typeof n === 'string') return { ok: false, message: n };
  const seed = integer(values.seed, 'seed', 0, 0xffffffff, 0);
  if (typeof seed === 'string') return { ok: false, message: seed };
  const out = values.out;
  if (out === undefined || out.trim() === '') return { ok: false, message: '--out is required' };
  const format = values.format ?? 'jsonl';
  if (format !== 'jsonl' && format !== 'verl') {
    return { ok: false, message: `--format must be jsonl or verl, got "${format}"` };
  }
  const dom = values.dom ?? 'high';
  if (dom !== 'high' && dom !== 'low')
    return { ok: false, message: `--dom must be high or low, got "${dom}"` };
  if (values.dom !== undefined && format !== 'verl')
    return { ok: false, message: '--dom goes with --format verl' };
  return { ok: true, axis: axis as Axis, value, n, seed, out, format, dom };
}

async function run(args: string[], io: CliIO): Promise<number> {
  const p = parseCommandArgs('bench', args, usage, parse, io);
  if (typeof p === 'number') return p;
  const tasks = generateTasks({ axis: p.axis, value: p.value, baseSeed: p.seed, count: p.n });
  const path = resolve(io.cwd, p.out);
  try {
    await mkdir(dirname(path), { recursive: true });
    if (p.format === 'verl') await writeFile(path, verlParquet(verlRows(tasks, { dom: p.dom })));
    else await writeFile(path, toJsonl(tasks), 'utf8');
  } catch (e) {
    io.err(`baton bench: cannot write ${path}: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
  const test = tasks.filter((t) => t.split === 'test').length;
  io.out(
    `wrote ${tasks.length} task${tasks.length === 1 ? '' : 's'}${p.format === 'verl' ? ' as a verl dataset' : ''} (${p.axis} ${p.value}, base seed ${p.seed}; ` +
      `${tasks.length - test} train, ${test} test) to ${path}`,
  );
  return 0;
}

export const benchCommand: Command = {
  name: 'bench',
  summary: 'generate MASBench-style tasks (JSON Lines, or a verl Parquet dataset)',
  usage,
  run,
};
