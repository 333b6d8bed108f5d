/**
 * Policy checkpoints for the Build page: which checkpoint a spec names (`checkpointFor`: the prior
 * and random policies for any role pool, stored ones only for the pool they were made for), parsing
 * an uploaded file (`checkpointFromText`), and keeping uploaded checkpoints in IndexedDB
 * (`idbCheckpoints`; `memoryCheckpoints` for tests). Storage is outside input like any file: every
 * checkpoint read back is parsed and shape-checked again.
 */
import { createStore, del, get, keys, set, type UseStore } from 'idb-keyval';
import { describe, type ErrorCode } from '../../core/errors.ts';
import { fail, ok, type Problem, type Result } from '../../core/result.ts';
import {
  incompatibility,
  parseCheckpoint,
  serializeCheckpoint,
  type PolicyCheckpoint,
  randomCheckpoint,
  priorCheckpoint,
  DEFAULT_POOL,
  type RolePool,
} from '../../policy/index.ts';
import { errorText } from './problems.ts';

/** Which checkpoint drives the construction. */
export type PolicySpec =
  { kind: 'prior' } | { kind: 'random'; seed: number } | { kind: 'checkpoint'; name: string };

/** The codes of src/core/errors.ts that the policy services report. */
export type PolicyErrorCode = Extract<
  ErrorCode,
  | 'E_POLICY_LOAD'
  | 'E_POLICY_FILE'
  | 'E_POLICY_STEP'
  | 'E_POLICY_STORAGE'
  | 'E_SIMULATOR'
  | 'E_INTERMEDIATE'
  | 'E_PROVIDER'
>;

export function policyProblem(code: PolicyErrorCode, detail?: string): Problem {
  return { code, message: describe(code, detail) };
}

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
