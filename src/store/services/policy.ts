/**
 * The construction policy as a service for the Build page: compile a checkpoint on the chosen
 * backend, evaluate the next step's distributions (the preview), take a step, run a (partial)
 * design for its intermediate answer (simulator or provider), and keep uploaded checkpoints in
 * IndexedDB.
 *
 * Inference runs on the main thread as an async service rather than in a worker: a step of the
 * CPU backend (two-pass) takes ≈0.8 ms median in Node (docs/benchmarks.md, "Policy") and the Build
 * page measures every step it takes (`ms` on each result, shown in the page), so a step stays far
 * below a 16 ms frame; WebGPU steps are asynchronous anyway. Calls into one network are serialised,
 * because the network reuses its input buffers between the node pass and the edge pass.
 */
import { createStore, del, get, keys, set, type UseStore } from 'idb-keyval';
import type { MasBenchTask } from '../../masbench/index.ts';
import { fail, ok, type Problem, type Result } from '../../core/result.ts';
import type { Trace } from '../../core/trace.ts';
import { createIntermediateExecutor, type IntermediateExecutor } from '../../executor/intermediate.ts';
import { runDesign, type RunBudget } from '../../executor/run.ts';
import { simulatedBackend } from '../../executor/sim/index.ts';
import type { BackendChoice, BackendPreference } from '../../gpu/select.ts';
import { actionKind } from '../../policy/actions.ts';
import {
  incompatibility,
  parseCheckpoint,
  serializeCheckpoint,
  type PolicyCheckpoint,
} from '../../policy/checkpoint.ts';
import type { ConstructionState } from '../../policy/construction.ts';
import { encodeTask, type TaskEncoding } from '../../policy/encoder.ts';
import { PolicyNetwork, randomCheckpoint } from '../../policy/network.ts';
import { priorCheckpoint } from '../../policy/prior.ts';
import { DEFAULT_POOL, type RolePool } from '../../policy/roles.ts';
import { edgeDistribution, nodeDistribution, policyStep, seededLinks, stepRng } from '../../policy/sample.ts';
import type { StepChoice, StepOutcome } from '../../policy/step-types.ts';
import { errorText } from './problems.ts';
import { buildBackend, type BackendSpec } from './runner.ts';

/** Which checkpoint drives the construction. */
export type PolicySpec =
  { kind: 'prior' } | { kind: 'random'; seed: number } | { kind: 'checkpoint'; name: string };

export const POLICY_ERRORS = {
  E_POLICY_LOAD: 'The policy could not be loaded',
  E_POLICY_FILE: 'The file is not a usable policy checkpoint',
  E_POLICY_STEP: 'The policy step failed',
  E_POLICY_STORAGE: 'Checkpoints could not be kept in this browser',
  E_SIMULATOR: 'The simulator could not run the design',
  E_INTERMEDIATE: 'The partial design gave no intermediate answer',
  E_PROVIDER: 'The provider cannot be used',
} as const;

export function policyProblem(code: keyof typeof POLICY_ERRORS, detail?: string): Problem {
  return { code, message: detail ? `${POLICY_ERRORS[code]}: ${detail}` : `${POLICY_ERRORS[code]}.` };
}

/** What the next step looks like before it is taken. */
export interface StepPreview {
  /** The distribution the node choice is drawn from (π^(1/τ) renormalised), head order; masked = 0. */
  distribution: number[];
  /** 1 = allowed, 0 = masked, head order. */
  mask: number[];
  /** The role whose candidate edges are shown (the user's pick, else the most probable role); null when no ADD is allowed. */
  role: number | null;
  /** σ(ℓ/τ) for a link from each existing agent to an agent of `role` (state order). */
  edges: { from: string; p: number }[];
  /** The links a sampled step would draw for `role` (the step's seeded uniforms u_i < p_i). */
  sampledLinks: string[];
  /** The links a greedy step would take (p ≥ 0.5). */
  greedyLinks: string[];
  /** Wall time of the evaluation, ms. */
  ms: number;
}

export interface TimedOutcome extends StepOutcome {
  /** Wall time of the policy step (forward passes, sampling, apply), ms. */
  ms: number;
}

export interface StepSettings {
  seed: number;
  temperature: number;
  greedy?: boolean;
}

export interface PolicyRuntime {
  /** Checkpoint name as recorded in traces. */
  readonly name: string;
  readonly backend: 'cpu' | 'webgpu';
  /** Why this backend was chosen. */
  readonly reason: string;
  readonly pool: RolePool;
  readonly maxAgents: number;
  readonly maxSteps: number;
  encode(query: string): TaskEncoding;
  preview(
    task: TaskEncoding,
    state: ConstructionState,
    o: StepSettings & { role: number | null },
  ): Promise<StepPreview>;
  step(
    task: TaskEncoding,
    state: ConstructionState,
    o: StepSettings,
    choice: StepChoice,
  ): Promise<TimedOutcome>;
  dispose(): void;
}

// ---------------------------------------------------------------- checkpoint storage

/** Uploaded checkpoints by name. Everything read back is parsed again (storage is outside input too). */
export interface CheckpointStorage {
  list(): Promise<Result<string[]>>;
  load(name: string): Promise<Result<PolicyCheckpoint>>;
  save(cp: PolicyCheckpoint): Promise<Result<null>>;
  remove(name: string): Promise<Result<null>>;
}

const cpKey = (name: string): string => `checkpoint:${name}`;

export function idbCheckpoints(dbName = 'baton-policies', storeName = 'checkpoints'): CheckpointStorage {
  let store: UseStore | null = null;
  const db = (): UseStore => (store ??= createStore(dbName, storeName));
  const storageFail = (e: unknown): { ok: false; errors: Problem[] } =>
    fail(policyProblem('E_POLICY_STORAGE', errorText(e)));
  return {
    async list() {
      try {
        const all = await keys(db());
        return ok(
          all
            .filter((k): k is string => typeof k === 'string' && k.startsWith('checkpoint:'))
            .map((k) => k.slice('checkpoint:'.length))
            .sort(),
        );
      } catch (e) {
        return storageFail(e);
      }
    },
    async load(name) {
      try {
        const raw: unknown = await get(cpKey(name), db());
        if (typeof raw !== 'string')
          return fail(policyProblem('E_POLICY_LOAD', `no stored checkpoint "${name}"`));
        return parseCheckpoint(raw);
      } catch (e) {
        return storageFail(e);
      }
    },
    async save(cp) {
      try {
        await set(cpKey(cp.name), serializeCheckpoint(cp), db());
        return ok(null);
      } catch (e) {
        return storageFail(e);
      }
    },
    async remove(name) {
      try {
        await del(cpKey(name), db());
        return ok(null);
      } catch (e) {
        return storageFail(e);
      }
    },
  };
}

/** In-memory stand-in for tests and for browsers without IndexedDB. */
export function memoryCheckpoints(): CheckpointStorage {
  const m = new Map<string, string>();
  return {
    list: () => Promise.resolve(ok([...m.keys()].sort())),
    load: (name) => {
      const raw = m.get(name);
      return Promise.resolve(
        raw === undefined
          ? fail(policyProblem('E_POLICY_LOAD', `no stored checkpoint "${name}"`))
          : parseCheckpoint(raw),
      );
    },
    save: (cp) => {
      m.set(cp.name, serializeCheckpoint(cp));
      return Promise.resolve(ok(null));
    },
    remove: (name) => {
      m.delete(name);
      return Promise.resolve(ok(null));
    },
  };
}

/** Parses an uploaded checkpoint and checks that it can drive the role pool in use. */
export function checkpointFromText(text: string, pool: RolePool = DEFAULT_POOL): Result<PolicyCheckpoint> {
  const r = parseCheckpoint(text);
  if (!r.ok)
    return fail(
      ...r.errors.map((e) => policyProblem('E_POLICY_FILE', e.path ? `${e.path}: ${e.message}` : e.message)),
    );
  const why = incompatibility(
    r.value,
    pool.roles.map((x) => x.name),
  );
  return why ? fail(policyProblem('E_POLICY_FILE', why)) : r;
}

// ---------------------------------------------------------------- runtime

const now = (): number => globalThis.performance?.now() ?? Date.now();

/**
 * The backend is chosen once per page and preference: an adapter request is slow and its answer
 * does not change. A failed choice (WebGPU forced without an adapter) is not kept, so it is asked
 * again next time.
 */
const backendChoices = new Map<BackendPreference, Promise<BackendChoice>>();

async function chooseOnce(prefer: BackendPreference): Promise<BackendChoice> {
  if (prefer === 'cpu') return { backend: 'cpu', reason: 'CPU backend forced', adapter: null, ctx: null };
  let choice = backendChoices.get(prefer);
  if (!choice) {
    choice = import('../../gpu/select.ts').then((m) => m.chooseBackend(prefer));
    backendChoices.set(prefer, choice);
    choice.catch(() => backendChoices.delete(prefer));
  }
  return choice;
}

function mostProbableRole(q: readonly number[], roles: number): number | null {
  let best: number | null = null;
  for (let i = 0; i < roles; i++)
    if ((q[i] as number) > 0 && (best === null || (q[i] as number) > (q[best] as number))) best = i;
  return best;
}

export interface LoadOptions {
  storage: CheckpointStorage;
  /** `auto` picks WebGPU only on a hardware adapter (src/gpu/select.ts). */
  prefer?: BackendPreference;
  /** The role pool the policy chooses from (default: the built-in pool). */
  pool?: RolePool;
}

/**
 * Resolves a policy spec to its checkpoint for a role pool: the prior and random policies are made
 * for any pool; a stored checkpoint must have been made for the pool's roles (names and order).
 */
export async function checkpointFor(
  spec: PolicySpec,
  storage: CheckpointStorage,
  pool: RolePool = DEFAULT_POOL,
): Promise<Result<PolicyCheckpoint>> {
  if (spec.kind === 'prior') return ok(priorCheckpoint(pool));
  if (spec.kind === 'random') return ok(randomCheckpoint(pool, spec.seed >>> 0));
  const cp = await storage.load(spec.name);
  if (!cp.ok) return cp;
  const why = incompatibility(
    cp.value,
    pool.roles.map((x) => x.name),
  );
  return why ? fail(policyProblem('E_POLICY_LOAD', `${spec.name}: ${why}`)) : cp;
}

/** A checkpoint as a `baton.policy/1` file (name, text), for saving it to disk. */
export async function serializeCheckpointFor(
  spec: PolicySpec,
  storage: CheckpointStorage,
  pool: RolePool = DEFAULT_POOL,
): Promise<Result<{ name: string; text: string }>> {
  const cp = await checkpointFor(spec, storage, pool);
  return cp.ok ? ok({ name: cp.value.name, text: serializeCheckpoint(cp.value) }) : cp;
}

/** Compiles the policy on the chosen backend. Never throws. */
export async function loadPolicy(spec: PolicySpec, o: LoadOptions): Promise<Result<PolicyRuntime>> {
  const pool = o.pool ?? DEFAULT_POOL;
  const cp = await checkpointFor(spec, o.storage, pool);
  if (!cp.ok) return cp;
  try {
    const choice = await chooseOnce(o.prefer ?? 'auto');
    const net = await PolicyNetwork.create(cp.value, choice);
    return ok(runtimeOf(net, choice.reason, pool));
  } catch (e) {
    return fail(policyProblem('E_POLICY_LOAD', errorText(e)));
  }
}

function runtimeOf(net: PolicyNetwork, reason: string, pool: RolePool): PolicyRuntime {
  const cfg = net.checkpoint.config;
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(job: () => Promise<T>): Promise<T> => {
    const next = queue.then(job, job);
    queue = next.catch(() => undefined);
    return next;
  };
  return {
    name: net.name,
    backend: net.backend,
    reason,
    pool,
    maxAgents: cfg.maxAgents,
    maxSteps: cfg.maxSteps,
    encode: (query) => encodeTask(query, cfg.hashDim),
    preview: (task, state, o) =>
      serial(async () => {
        const t0 = now();
        const ev = await net.evaluate(task, state);
        const distribution = state.exited
          ? Array.from(ev.probs, () => 0)
          : nodeDistribution(ev, o.temperature);
        const roles = state.pool.roles.length;
        const picked = o.role !== null && o.role < roles && ev.mask[o.role] === 1 ? o.role : null;
        const role = picked ?? mostProbableRole(distribution, roles);
        let p: number[] = [];
        if (role !== null) p = edgeDistribution(await ev.edges(role), o.temperature);
        return {
          distribution,
          mask: Array.from(ev.mask),
          role,
          edges: state.agents
            .map((a, i) => ({ from: a.id, p: p[i] as number }))
            .filter((e) => e.p !== undefined),
          sampledLinks: role === null ? [] : seededLinks(state, o.seed, p),
          greedyLinks:
            role === null ? [] : state.agents.filter((_, i) => (p[i] as number) >= 0.5).map((a) => a.id),
          ms: now() - t0,
        };
      }),
    step: (task, state, o, choice) =>
      serial(async () => {
        const t0 = now();
        const out = await policyStep(
          net,
          task,
          state,
          stepRng(o.seed, state.step),
          { greedy: o.greedy === true, temperature: o.temperature },
          choice,
        );
        return { ...out, ms: now() - t0 };
      }),
    dispose: () => net.dispose(),
  };
}

/** Human name of an action column (`Solver`, `DELETE`, `EXIT`). */
export function actionLabel(pool: RolePool, col: number): string {
  const k = actionKind(pool, col);
  return k.kind === 'add' ? (pool.roles[k.role]?.name ?? `role ${k.role}`) : k.kind.toUpperCase();
}

// ---------------------------------------------------------------- intermediate execution

/** Where the partial designs of a construction run: the simulator (generated tasks) or a provider. */
export type IntermediateSpec =
  | { kind: 'simulated'; task: MasBenchTask; seed: number }
  | {
      kind: 'remote';
      backend: Extract<BackendSpec, { kind: 'remote' }>;
      /** Limits for all the construction's intermediate runs together. */
      budget: RunBudget;
      concurrency: number;
    };

/**
 * An executor for one construction's partial designs. On a provider its calls are cached, so a
 * step pays only for the calls that changed (src/executor/intermediate.ts); the API key is a
 * secret removed from everything recorded.
 */
export function intermediateExecutorFor(spec: IntermediateSpec, signal?: AbortSignal): IntermediateExecutor {
  if (spec.kind === 'simulated')
    return createIntermediateExecutor({ backend: simulatedBackend(spec.task, spec.seed), cache: false });
  return createIntermediateExecutor({
    backend: buildBackend(spec.backend),
    budget: spec.budget,
    concurrency: spec.concurrency,
    cache: true,
    ...(signal ? { signal } : {}),
    ...(spec.backend.apiKey !== '' ? { secrets: [spec.backend.apiKey] } : {}),
  });
}

/** Executes a finished construction trace on the simulator (labelled `simulated` by the backend). */
export async function runOnSimulator(
  trace: Trace,
  masbench: MasBenchTask,
  seed: number,
): Promise<Result<Trace>> {
  try {
    return ok(
      await runDesign({
        trace,
        backend: simulatedBackend(masbench, seed),
        startedAt: new Date().toISOString(),
      }),
    );
  } catch (e) {
    return fail(policyProblem('E_SIMULATOR', errorText(e)));
  }
}

/** Test hook: forget the cached backend choice. */
export function resetBackendChoice(): void {
  backendChoices.clear();
}
