/**
 * The policy checkpoint, `baton.policy/1`: the network's shape (`config`), the role pool version it
 * was trained against, and every parameter as a flat row-major array. JSON on disk (CLI) and in
 * IndexedDB (app); untrusted when loaded, so it is parsed by a schema and its shapes are checked.
 *
 * `config.encoder` is the state layout the checkpoint was made for (absent = 1, the layout before
 * the field existed). `parseCheckpoint` checks the shapes against that layout and then migrates
 * the checkpoint to the current one with the numbered `ENCODER_MIGRATIONS`, so a loaded
 * checkpoint always has `config.encoder === ENCODER_VERSION`.
 */
import { z } from 'zod';
import { createRng } from '../core/rng.ts';
import { fail, ok, type Result } from '../core/result.ts';
import { init } from '../gpu/index.ts';
import { ENCODER_VERSION, agentDim, stateDimFor, type EncoderConfig } from './encoder.ts';

export const POLICY_FORMAT = 'baton.policy/1';

export const PolicyConfigSchema = z.object({
  /** Width D of the hashed query n-gram block. */
  hashDim: z.number().int().min(8).max(4096),
  /** Hidden width H of both heads. */
  hidden: z.number().int().min(2).max(512),
  /** Agent slots N of the edge head; also the construction's maxAgents. */
  maxAgents: z.number().int().min(1).max(64),
  /** Step budget T; also the construction's maxSteps. */
  maxSteps: z.number().int().min(2).max(256),
  /** Role names in node-head order (the pool the checkpoint was made for). */
  roles: z.array(z.string().min(1).max(40)).min(1).max(32),
  /** State layout version (encoder.ts); absent = 1. Older versions are migrated when parsed. */
  encoder: z
    .number()
    .int()
    .min(1)
    .max(ENCODER_VERSION, {
      message: `encoder version newer than this Baton reads (up to ${ENCODER_VERSION})`,
    })
    .optional(),
  /** Width G of the message-passing layers (encoder version ≥ 3; absent = `GRAPH_DEFAULTS.hidden`). */
  graphHidden: z.number().int().min(2).max(256).optional(),
  /** Number of message-passing layers, i.e. hops (encoder version ≥ 3; absent = `GRAPH_DEFAULTS.layers`). */
  graphLayers: z.number().int().min(1).max(4).optional(),
});
export type PolicyConfig = z.infer<typeof PolicyConfigSchema>;

/** The message-passing block of a new checkpoint: two hops of width 32. */
export const GRAPH_DEFAULTS = { hidden: 32, layers: 2 } as const;

/** The message-passing block of a config: width and layers, or null before encoder version 3. */
export function graphBlock(cfg: PolicyConfig): { hidden: number; layers: number } | null {
  if (encoderVersion(cfg) < 3) return null;
  return {
    hidden: cfg.graphHidden ?? GRAPH_DEFAULTS.hidden,
    layers: cfg.graphLayers ?? GRAPH_DEFAULTS.layers,
  };
}

/** Largest parameter array accepted from a file (floats), so a hostile file cannot exhaust memory. */
const MAX_PARAM = 4_000_000;
/**
 * Largest parameter magnitude accepted. Parameters run in f32 (max ≈ 3.4e38); far below that a
 * sum over a few hundred features can already overflow to ∞ and turn the distributions into NaN.
 * Trained weights of these small tanh networks stay within a few tens.
 */
export const MAX_PARAM_ABS = 1e6;

export const PolicyCheckpointSchema = z.object({
  format: z.literal(POLICY_FORMAT),
  /** Shown in traces as `designer.checkpoint`, e.g. "prior", "random:7", "trained-2026-11-22". */
  name: z.string().min(1).max(200),
  config: PolicyConfigSchema,
  roleVersion: z.string().min(1).max(80),
  params: z.record(
    z.string().max(80),
    z
      .array(z.number().finite())
      .max(MAX_PARAM)
      .refine((v) => v.every((x) => Math.abs(x) <= MAX_PARAM_ABS), {
        message: `parameter values must lie within ±${MAX_PARAM_ABS} (larger ones overflow the network in f32)`,
      }),
  ),
  /** Free-form provenance (training steps, seed, notes). */
  meta: z.record(z.string().max(80), z.union([z.string().max(2000), z.number(), z.boolean()])).optional(),
});
export type PolicyCheckpoint = z.infer<typeof PolicyCheckpointSchema>;

/** A checkpoint's fields other than `params`. */
export type CheckpointFields = Omit<PolicyCheckpoint, 'params'>;

/**
 * A checkpoint whose `params` are made by `make` when first read, then kept. `params` is an
 * enumerable own accessor, so spreading, `JSON.stringify`, structured clone (a worker message) and
 * the schema read it as they read a plain field. The trainer makes one checkpoint per iteration
 * from a flat parameter arena that the sampler loads directly (train/learner.ts `snapshot`):
 * turning the arena into per-tensor number arrays every time cost about 1 ms an iteration
 * (docs/benchmarks.md), wasted unless something reads them.
 */
export function lazyParams(
  fields: CheckpointFields,
  make: () => PolicyCheckpoint['params'],
): PolicyCheckpoint {
  let params: PolicyCheckpoint['params'] | null = null;
  const cp = {} as Record<string, unknown>;
  const place = (): void => {
    Object.defineProperty(cp, 'params', {
      enumerable: true,
      configurable: true,
      get: () => (params ??= make()),
    });
  };
  // Where the schema has it (before `meta`, else last), so the JSON text is a plain one's.
  for (const [k, v] of Object.entries(fields)) {
    if (k === 'meta') place();
    cp[k] = v;
  }
  if (!('params' in cp)) place();
  return cp as PolicyCheckpoint;
}

/** The fields of `cp` other than `params`, without reading `params` (which may be `lazyParams`). */
export function fieldsOf(cp: PolicyCheckpoint): CheckpointFields {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(cp)) if (k !== 'params') out[k] = (cp as Record<string, unknown>)[k];
  return out as CheckpointFields;
}

/** The state layout a config was made for (absent = 1). */
export const encoderVersion = (cfg: PolicyConfig): number => cfg.encoder ?? 1;

const encoderOf = (cfg: PolicyConfig): EncoderConfig => ({
  hashDim: cfg.hashDim,
  maxAgents: cfg.maxAgents,
  maxSteps: cfg.maxSteps,
  roles: cfg.roles.length,
});

/**
 * The parameters of the JPSS network and their shapes (S = state dim in the config's encoder
 * version, A = actions, Da = agent dim; from encoder version 3 also G = message-passing width and
 * L = its layers). The message-passing parameters come last, so that a seeded initialiser gives the
 * other parameters the same values in every version.
 */
export function paramShapes(cfg: PolicyConfig): Record<string, number[]> {
  const enc = encoderOf(cfg);
  const S = stateDimFor(enc, encoderVersion(cfg));
  const Da = agentDim(enc);
  const H = cfg.hidden;
  const R = cfg.roles.length;
  const A = R + 2;
  return { ...headShapes(S, Da, H, R, A), ...graphShapes(cfg, Da, H) };
}

function headShapes(S: number, Da: number, H: number, R: number, A: number): Record<string, number[]> {
  return {
    'node.w1': [S, H],
    'node.b1': [H],
    'node.w2': [H, A],
    'node.b2': [A],
    'node.lin': [S, A],
    'edge.ws': [H, H],
    'edge.wa': [Da, H],
    'edge.role': [R, H],
    'edge.ba': [H],
    'edge.wo': [H, 1],
    'edge.bo': [1],
    'edge.roleLin': [R, Da],
    'edge.stateLin': [S, Da],
  };
}

/**
 * Layer l (1-based) of the message passing: `gnn.self<l>`, `gnn.in<l>` (messages from the agents
 * an agent reads), `gnn.out<l>` (from the agents that read it), each [G_in, G] with G_in = Da for
 * l = 1 and G after, and `gnn.b<l>` [G]. The readouts enter the node head through `node.wgm`
 * (mean over agents) and `node.wgs` (mean over sinks), the agent states the edge head through
 * `edge.wh`, each [G, H].
 */
function graphShapes(cfg: PolicyConfig, Da: number, H: number): Record<string, number[]> {
  const block = graphBlock(cfg);
  if (!block) return {};
  const G = block.hidden;
  const out: Record<string, number[]> = {};
  for (let l = 1; l <= block.layers; l++) {
    const gin = l === 1 ? Da : G;
    out[`gnn.self${l}`] = [gin, G];
    out[`gnn.in${l}`] = [gin, G];
    out[`gnn.out${l}`] = [gin, G];
    out[`gnn.b${l}`] = [G];
  }
  out['node.wgm'] = [G, H];
  out['node.wgs'] = [G, H];
  out['edge.wh'] = [G, H];
  return out;
}

const count = (shape: readonly number[]): number => shape.reduce((a, b) => a * b, 1);

/**
 * Upgrades a checkpoint by one encoder version (`ENCODER_MIGRATIONS[n]`: n → n + 1). Pure; the
 * argument's shapes are already checked against version n.
 */
export type EncoderMigration = (cp: PolicyCheckpoint) => PolicyCheckpoint;

/**
 * Appends zero rows to every parameter whose first dimension is S, for the features version n + 1
 * appended to the state vector. A zero row adds exactly 0 to every pre-activation, so the migrated
 * network gives the old network's numbers whatever the new features are.
 */
function appendStateRows(cp: PolicyCheckpoint): PolicyCheckpoint {
  const from = encoderVersion(cp.config);
  const config = { ...cp.config, encoder: from + 1 };
  const before = paramShapes(cp.config);
  const after = paramShapes(config);
  const params: Record<string, number[]> = { ...cp.params };
  for (const [name, shape] of Object.entries(after)) {
    const old = before[name] as number[];
    if (old.join() === shape.join()) continue;
    const [rows, ...rest] = shape as [number, ...number[]];
    const [oldRows, ...oldRest] = old as [number, ...number[]];
    if (rest.join() !== oldRest.join() || rows < oldRows)
      throw new Error(`parameter ${name}: [${old.join(', ')}] cannot grow to [${shape.join(', ')}]`);
    const values = cp.params[name] as number[];
    params[name] = [...values, ...new Array<number>((rows - oldRows) * count(rest)).fill(0)];
  }
  return { ...cp, config, params };
}

/** Seed of the message-passing weights a 2 → 3 migration adds (fixed: a migration is pure). */
export const GRAPH_MIGRATION_SEED = 0x6d70;

/**
 * Adds the message-passing block with the default width and layers. Its own layers get seeded
 * Glorot weights and zero biases; the weights by which its outputs enter the heads (`node.wgm`,
 * `node.wgs`, `edge.wh`) are zero. The heads then add exactly 0 to every pre-activation, so the
 * migrated network gives the old numbers, while a gradient still reaches those zero weights (the
 * block's outputs are not 0) and, once they move, the layers beneath.
 */
function addGraphBlock(cp: PolicyCheckpoint): PolicyCheckpoint {
  const config = {
    ...cp.config,
    encoder: 3,
    graphHidden: GRAPH_DEFAULTS.hidden,
    graphLayers: GRAPH_DEFAULTS.layers,
  };
  const before = paramShapes(cp.config);
  const rng = createRng(GRAPH_MIGRATION_SEED);
  const params: Record<string, number[]> = { ...cp.params };
  for (const [name, shape] of Object.entries(paramShapes(config))) {
    if (before[name]) continue;
    const zero = !name.startsWith('gnn.') || shape.length !== 2;
    params[name] = zero
      ? new Array<number>(count(shape)).fill(0)
      : Array.from(init.glorot(rng, shape[0] as number, shape[1] as number));
  }
  return { ...cp, config, params };
}

export const ENCODER_MIGRATIONS: Readonly<Record<number, EncoderMigration>> = {
  /** 1 → 2: the intermediate-answer features (`RESULT`) start with zero weights. */
  1: appendStateRows,
  /** 2 → 3: the message-passing block, entering the heads through zero weights. */
  2: addGraphBlock,
};

/**
 * A shape-checked checkpoint of any encoder version brought to the current one (returned as is when
 * it is current). Throws when a step is missing (a programming error: the registry is complete).
 */
export function migrateCheckpoint(cp: PolicyCheckpoint): PolicyCheckpoint {
  let out = cp;
  for (let v = encoderVersion(cp.config); v < ENCODER_VERSION; v++) {
    const step = ENCODER_MIGRATIONS[v];
    if (!step) throw new Error(`no checkpoint migration from encoder version ${v}`);
    out = step(out);
  }
  return out;
}

/**
 * Parses and shape-checks a checkpoint from JSON text (shapes in the layout of its encoder version),
 * then migrates it to the current encoder version. Never throws.
 */
export function parseCheckpoint(json: string): Result<PolicyCheckpoint> {
  if (json.length > 64_000_000) return fail({ code: 'E_TOO_LARGE', message: 'checkpoint larger than 64 MB' });
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (e) {
    return fail({ code: 'E_JSON', message: e instanceof Error ? e.message : String(e) });
  }
  const parsed = PolicyCheckpointSchema.safeParse(raw);
  if (!parsed.success) {
    return fail(
      ...parsed.error.issues.slice(0, 20).map((i) => ({
        code: 'E_POLICY_SCHEMA',
        message: i.message,
        path: i.path.map(String).join('.'),
      })),
    );
  }
  const cp = parsed.data;
  const problems = [];
  const version = encoderVersion(cp.config);
  const layout = version === ENCODER_VERSION ? '' : ` (encoder version ${version})`;
  for (const [name, shape] of Object.entries(paramShapes(cp.config))) {
    const got = cp.params[name];
    if (!got)
      problems.push({ code: 'E_POLICY_SHAPE', message: `missing parameter ${name}`, path: `params.${name}` });
    else if (got.length !== count(shape)) {
      problems.push({
        code: 'E_POLICY_SHAPE',
        message: `parameter ${name} has ${got.length} values, expected [${shape.join(', ')}] = ${count(shape)}${layout}`,
        path: `params.${name}`,
      });
    }
  }
  const known = paramShapes(cp.config);
  for (const name of Object.keys(cp.params)) {
    if (!(name in known)) {
      problems.push({
        code: 'E_POLICY_SHAPE',
        message: `unknown parameter ${name}${layout}`,
        path: `params.${name}`,
      });
    }
  }
  if (problems.length > 0) return fail(...problems);
  try {
    return ok(migrateCheckpoint(cp));
  } catch (e) {
    return fail({ code: 'E_POLICY_SHAPE', message: e instanceof Error ? e.message : String(e) });
  }
}

/** Compact JSON (parameters rounded to f32 precision by construction). */
export function serializeCheckpoint(cp: PolicyCheckpoint): string {
  return JSON.stringify(cp);
}

/** Why a checkpoint cannot drive a pool, or null when it can (same role names, same order). */
export function incompatibility(cp: PolicyCheckpoint, roleNames: readonly string[]): string | null {
  const want = cp.config.roles;
  if (want.length !== roleNames.length || want.some((r, i) => r !== roleNames[i])) {
    return `the checkpoint was made for roles [${want.join(', ')}], the pool has [${roleNames.join(', ')}]`;
  }
  return null;
}
