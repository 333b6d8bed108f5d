/**
 * The files `baton construct` reads, each parsed and checked before use: the role pool
 * (`--roles`), the policy (`--policy`: prior, prior@T (another node-head temperature), random[:SEED] or a checkpoint file), the task
 * (`--task`: text, a task object or a MASBench task file) and the user's choices (`--choices`).
 * Every loader returns the value or a sentence saying why not.
 */
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { z } from 'zod';
import { TaskSchema, type Task } from '../core/trace.ts';
import { MasBenchTaskSchema, taskOfMasbench, type MasBenchTask } from '../masbench/index.ts';
import {
  actionNames,
  incompatibility,
  parseCheckpoint,
  type PolicyCheckpoint,
  randomCheckpoint,
  priorCheckpoint,
  DEFAULT_POOL,
  MAX_ROLE_POOL_CHARS,
  parseRolePool,
  type RolePool,
} from '../policy/index.ts';
import type { StepChoice } from '../policy/index.ts';

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

const MAX_FILE_BYTES = 64_000_000;
const MAX_CHOICES_BYTES = 1_000_000;

const problemsOf = (errors: readonly { path?: string; message: string }[]): string =>
  errors.map((e) => `${e.path ? `${e.path}: ` : ''}${e.message}`).join('; ');

export async function loadRoles(spec: string | undefined, cwd: string): Promise<RolePool | string> {
  if (spec === undefined) return DEFAULT_POOL;
  const path = resolve(cwd, spec);
  if (!(await isFile(path))) return `--roles "${spec}" is not a file`;
  if ((await stat(path)).size > MAX_ROLE_POOL_CHARS * 4) return `${path} is too large for a role pool`;
  const r = parseRolePool(await readFile(path, 'utf8'));
  if (!r.ok) return `${path} is not a valid role pool: ${problemsOf(r.errors)}`;
  return r.value;
}

export async function loadCheckpoint(
  spec: string,
  cwd: string,
  pool: RolePool,
): Promise<PolicyCheckpoint | string> {
  if (spec === 'prior') return priorCheckpoint(pool);
  // prior@T: the prior with node-head temperature T (the same greedy choices, sharper or flatter samples).
  const tempered = /^prior@(\d+(?:\.\d+)?)$/.exec(spec);
  if (tempered) {
    const temperature = Number(tempered[1]);
    if (!(temperature > 0)) return `--policy "${spec}": the prior's temperature must be above 0`;
    return { ...priorCheckpoint(pool, {}, { temperature }), name: spec };
  }
  const random = /^random(?::(\d+))?$/.exec(spec);
  if (random) return randomCheckpoint(pool, Number(random[1] ?? '0'));
  const path = resolve(cwd, spec);
  if (!(await isFile(path)))
    return `--policy "${spec}" is not prior, prior@T, random[:SEED] or a checkpoint file`;
  if ((await stat(path)).size > MAX_FILE_BYTES) return `${path} is larger than 64 MB`;
  const r = parseCheckpoint(await readFile(path, 'utf8'));
  if (!r.ok) return `${path} is not a valid policy checkpoint: ${problemsOf(r.errors)}`;
  const why = incompatibility(
    r.value,
    pool.roles.map((x) => x.name),
  );
  return why ?? r.value;
}

/** Largest `--config` file read (a training config is a few hundred bytes). */
const MAX_CONFIG_BYTES = 64 * 1024;

/**
 * The fields of a `--config` JSON file (any subset of the trainer's config; the trainer's schema
 * checks them together with the flags), or why the file cannot be used.
 */
export async function loadConfigFile(spec: string, cwd: string): Promise<Record<string, unknown> | string> {
  const path = resolve(cwd, spec);
  if (!(await isFile(path))) return `--config "${spec}" is not a file`;
  if ((await stat(path)).size > MAX_CONFIG_BYTES) return `${path} is larger than 64 KB`;
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, 'utf8'));
  } catch (e) {
    return `${path} is not JSON: ${(e as Error).message}`;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return `${path} must hold a JSON object of training settings, e.g. {"lambda": 0.3}`;
  return value as Record<string, unknown>;
}

export interface LoadedTask {
  task: Task;
  masbench: MasBenchTask | null;
}

async function readJson(path: string, maxBytes: number): Promise<{ value: unknown } | string> {
  if ((await stat(path)).size > maxBytes) return `${path} is larger than ${maxBytes / 1_000_000} MB`;
  try {
    return { value: JSON.parse(await readFile(path, 'utf8')) as unknown };
  } catch (e) {
    return `${path} is not valid JSON: ${e instanceof Error ? e.message : String(e)}`;
  }
}

export async function loadTask(spec: string, cwd: string): Promise<LoadedTask | string> {
  const path = resolve(cwd, spec);
  if (!/\.json$/i.test(spec) || !(await isFile(path))) {
    return { task: { query: spec, groundTruth: null, source: { kind: 'custom' } }, masbench: null };
  }
  const json = await readJson(path, MAX_FILE_BYTES);
  if (typeof json === 'string') return json;
  const mb = MasBenchTaskSchema.safeParse(json.value);
  if (mb.success) return { task: taskOfMasbench(mb.data), masbench: mb.data };
  const plain = TaskSchema.safeParse({
    groundTruth: null,
    source: { kind: 'custom' },
    ...(json.value as object),
  });
  if (plain.success) return { task: plain.data, masbench: null };
  return `${path} is neither a MASBench task nor a task object with a "query": ${mb.error.issues[0]?.message ?? ''}`;
}

/**
 * A choices file: the user's overrides by step index (0-based), as the Build page makes them —
 * the action by name (a role of the pool, DELETE or EXIT) and/or the links of an ADD. Steps not
 * listed are the policy's.
 */
export const ChoicesSchema = z
  .array(
    z
      .object({
        step: z.number().int().min(0).max(255),
        action: z.string().min(1).max(80).optional(),
        links: z.array(z.string().min(1).max(100)).max(64).optional(),
      })
      .strict()
      .refine((c) => c.action !== undefined || c.links !== undefined, {
        message: 'a choice needs an action, links or both',
      }),
  )
  .max(256)
  .refine((cs) => new Set(cs.map((c) => c.step)).size === cs.length, {
    message: 'each step may be listed once',
  });

/** The choices of a file by step, actions resolved to node-head columns of `pool`. */
export async function loadChoices(
  spec: string,
  cwd: string,
  pool: RolePool,
): Promise<Map<number, StepChoice> | string> {
  const path = resolve(cwd, spec);
  if (!(await isFile(path))) return `--choices "${spec}" is not a file`;
  const json = await readJson(path, MAX_CHOICES_BYTES);
  if (typeof json === 'string') return json;
  const parsed = ChoicesSchema.safeParse(json.value);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    return `${path} is not a list of choices: ${i?.path.join('.') ?? ''}${i?.path.length ? ': ' : ''}${i?.message ?? ''}`;
  }
  const names = actionNames(pool);
  const choices = new Map<number, StepChoice>();
  for (const c of parsed.data) {
    const action = c.action === undefined ? undefined : names.indexOf(c.action);
    if (action === -1)
      return `${path}: step ${c.step} chooses "${c.action ?? ''}", which is not ${names.join(', ')}`;
    choices.set(c.step, {
      ...(action !== undefined ? { action } : {}),
      ...(c.links !== undefined ? { links: c.links } : {}),
    });
  }
  return choices;
}
