/**
 * User-edited role pools, kept in this browser by version (IndexedDB database `baton-roles`, store
 * `pools`; see docs/roles.md). A record is `{ savedAt, text }` under the key `pool:<version>`, where
 * `text` is the pool's `baton.roles/1` file. Storage is outside input like any file: every record
 * read back is checked and its text parsed again, and a record whose roles no longer hash to its
 * key is refused.
 */
import { createStore, del, entries, get, set, type UseStore } from 'idb-keyval';
import { z } from 'zod';
import { problemOf, type ErrorCode } from '../../core/errors.ts';
import { fail, ok, type Problem, type Result } from '../../core/result.ts';
import { parseRolePool, serializeRolePool, type RolePool } from '../../policy/index.ts';
import { errorText } from './problems.ts';

/** Codes the role-pool storage raises; their sentences are in core/errors.ts. */
type RoleStorageErrorCode = Extract<ErrorCode, 'E_ROLES_STORAGE' | 'E_ROLES_NOT_FOUND' | 'E_ROLES_STORED'>;

export function rolesProblem(code: RoleStorageErrorCode, detail?: string): Problem {
  return problemOf(code, detail);
}

/** One stored version, as listed. */
export interface RolePoolSummary {
  /** The pool's content-derived version (`baton.roles/1` or `baton.roles/1+<8 hex>`). */
  version: string;
  /** Number of roles (outputs of the node head before DELETE and EXIT). */
  roles: number;
  /** When this version was last saved, ISO 8601. */
  savedAt: string;
}

/** Stored role pools by version. Saving the same content again only updates `savedAt`. */
export interface RolePoolStorage {
  /** Every readable stored version, most recently saved first; damaged records are skipped with a warning. */
  list(): Promise<Result<RolePoolSummary[]>>;
  load(version: string): Promise<Result<RolePool>>;
  /** Stores the pool under its content-derived version (whatever `pool.version` says); refuses invalid pools. */
  save(pool: RolePool): Promise<Result<RolePoolSummary>>;
  remove(version: string): Promise<Result<null>>;
}

export interface RolePoolStorageOptions {
  /** Clock for `savedAt` (ISO 8601); tests pass a fixed one. */
  now?: () => string;
}

const KEY_PREFIX = 'pool:';
const poolKey = (version: string): string => `${KEY_PREFIX}${version}`;

const StoredSchema = z.object({ savedAt: z.string().min(1).max(40), text: z.string() });
type Stored = z.infer<typeof StoredSchema>;

/** A stored record checked and parsed, and held to the version it is stored under. */
function readRecord(version: string, raw: unknown): Result<{ pool: RolePool; savedAt: string }> {
  const rec = StoredSchema.safeParse(raw);
  if (!rec.success) return fail(rolesProblem('E_ROLES_STORED', `${version}: not a role pool record`));
  const parsed = parseRolePool(rec.data.text);
  if (!parsed.ok) {
    return fail(
      ...parsed.errors.slice(0, 5).map((e) => rolesProblem('E_ROLES_STORED', `${version}: ${e.message}`)),
    );
  }
  if (parsed.value.version !== version) {
    return fail(rolesProblem('E_ROLES_STORED', `${version}: its roles are version ${parsed.value.version}`));
  }
  return ok({ pool: parsed.value, savedAt: rec.data.savedAt });
}

function summarise(records: readonly (readonly [string, unknown])[]): Result<RolePoolSummary[]> {
  const out: RolePoolSummary[] = [];
  const warnings: Problem[] = [];
  for (const [version, raw] of records) {
    const r = readRecord(version, raw);
    if (r.ok) out.push({ version, roles: r.value.pool.roles.length, savedAt: r.value.savedAt });
    else warnings.push(...r.errors);
  }
  out.sort((a, b) =>
    a.savedAt === b.savedAt ? a.version.localeCompare(b.version) : a.savedAt < b.savedAt ? 1 : -1,
  );
  return ok(out, warnings);
}

/**
 * The record for a pool, or why it cannot be stored: the text is parsed before it is written, so
 * only what `load` can read back is ever stored.
 */
function record(
  pool: RolePool,
  now: () => string,
): Result<{ version: string; stored: Stored; summary: RolePoolSummary }> {
  const text = serializeRolePool(pool);
  const back = parseRolePool(text);
  if (!back.ok) {
    return fail(...back.errors.slice(0, 5).map((e) => rolesProblem('E_ROLES_STORAGE', e.message)));
  }
  const { version, roles } = back.value;
  const savedAt = now();
  return ok({ version, stored: { savedAt, text }, summary: { version, roles: roles.length, savedAt } });
}

const isoNow = (): string => new Date().toISOString();
const notFound = (version: string): { ok: false; errors: Problem[] } =>
  fail(rolesProblem('E_ROLES_NOT_FOUND', version));

export function idbRolePools(
  dbName = 'baton-roles',
  storeName = 'pools',
  { now = isoNow }: RolePoolStorageOptions = {},
): RolePoolStorage {
  let store: UseStore | null = null;
  const db = (): UseStore => (store ??= createStore(dbName, storeName));
  const storageFail = (e: unknown): { ok: false; errors: Problem[] } =>
    fail(rolesProblem('E_ROLES_STORAGE', errorText(e)));
  return {
    async list() {
      try {
        const all = await entries(db());
        return summarise(
          all.flatMap(([k, v]): [string, unknown][] =>
            typeof k === 'string' && k.startsWith(KEY_PREFIX) ? [[k.slice(KEY_PREFIX.length), v]] : [],
          ),
        );
      } catch (e) {
        return storageFail(e);
      }
    },
    async load(version) {
      try {
        const raw: unknown = await get(poolKey(version), db());
        if (raw === undefined) return notFound(version);
        const r = readRecord(version, raw);
        return r.ok ? ok(r.value.pool) : r;
      } catch (e) {
        return storageFail(e);
      }
    },
    async save(pool) {
      const r = record(pool, now);
      if (!r.ok) return r;
      try {
        await set(poolKey(r.value.version), r.value.stored, db());
        return ok(r.value.summary);
      } catch (e) {
        return storageFail(e);
      }
    },
    async remove(version) {
      try {
        await del(poolKey(version), db());
        return ok(null);
      } catch (e) {
        return storageFail(e);
      }
    },
  };
}

/** In-memory stand-in for tests and for browsers without IndexedDB; records are parsed again too. */
export function memoryRolePools({ now = isoNow }: RolePoolStorageOptions = {}): RolePoolStorage {
  const m = new Map<string, unknown>();
  return {
    list: () => Promise.resolve(summarise([...m.entries()])),
    load: (version) => {
      const raw = m.get(version);
      if (raw === undefined) return Promise.resolve(notFound(version));
      const r = readRecord(version, raw);
      return Promise.resolve(r.ok ? ok(r.value.pool) : r);
    },
    save: (pool) => {
      const r = record(pool, now);
      if (r.ok) m.set(r.value.version, r.value.stored);
      return Promise.resolve(r.ok ? ok(r.value.summary) : r);
    },
    remove: (version) => {
      m.delete(version);
      return Promise.resolve(ok(null));
    },
  };
}
