/**
 * The role pool the Build page's policy chooses from: the pool in use (kept on this device by
 * version), the edited pools kept in this browser (IndexedDB, services/roles.ts), and reading a
 * `baton.roles/1` file for the editor. A pool whose names or order differ changes the node head, so
 * adopting one deselects a stored checkpoint made for other roles.
 */
import type { Result } from '../../core/result.ts';
import {
  DEFAULT_POOL,
  MAX_ROLE_POOL_CHARS,
  ROLE_POOL_VERSION,
  headChange,
  parseRolePool,
  withContentVersion,
  type RolePool,
} from '../../policy/index.ts';
import { readFileText, type TextSource } from '../services/files.ts';
import { loadPref, savePref } from '../services/keys.ts';
import type { RolePoolSummary } from '../services/roles.ts';
import type { SliceCreator } from '../store.ts';
import { buildEnv } from './build-env.ts';

/** One stored version, as listed. */
export type { RolePoolSummary };

/** Preference key: the version of the role pool in use. */
const POOL_PREF = 'baton.build.roles';

export interface RolesSlice {
  /** The role pool the next construction chooses from (its version is content-derived). */
  buildPool: RolePool;
  /** Role pools kept in this browser. */
  buildPools: RolePoolSummary[];
  /** Lists the kept pools and brings back the pool in use before the last reload. */
  initBuildPools(): Promise<void>;
  /** Uses an edited role pool from the next start on, and keeps it in this browser. */
  applyBuildPool(pool: RolePool): Promise<void>;
  /** Uses a kept role pool (or the built-in one, `baton.roles/1`). */
  loadBuildPool(version: string): Promise<void>;
  /** Reads a `baton.roles/1` file into a pool for the editor (nothing is applied). */
  readRolePoolFile(file: TextSource): Promise<Result<RolePool>>;
}

export const createRolesSlice: SliceCreator<RolesSlice> = (set, get) => {
  /** Makes `pool` the pool of the next start; a checkpoint made for other roles is deselected. */
  const adoptPool = (pool: RolePool): void => {
    const f = get().buildForm;
    const changed = headChange(get().buildPool, pool) !== null;
    savePref(POOL_PREF, pool.version);
    set({
      buildPool: pool,
      buildProblems: [],
      ...(changed && f.policy.kind === 'checkpoint'
        ? { buildForm: { ...f, policy: { kind: 'prior' } } }
        : {}),
    });
  };

  return {
    buildPool: DEFAULT_POOL,
    buildPools: [],

    async initBuildPools() {
      const pools = await buildEnv().pools.list();
      if (pools.ok) set({ buildPools: pools.value });
      else set({ buildProblems: pools.errors });
      const kept = loadPref(POOL_PREF);
      if (typeof kept === 'string' && kept !== get().buildPool.version) await get().loadBuildPool(kept);
    },

    async applyBuildPool(next) {
      const pool = withContentVersion(next);
      if (pool.version !== ROLE_POOL_VERSION) {
        const saved = await buildEnv().pools.save(pool);
        if (!saved.ok) set({ buildProblems: saved.errors });
        const list = await buildEnv().pools.list();
        if (list.ok) set({ buildPools: list.value });
      }
      adoptPool(pool);
    },

    async loadBuildPool(version) {
      if (version === ROLE_POOL_VERSION) {
        adoptPool(DEFAULT_POOL);
        return;
      }
      const r = await buildEnv().pools.load(version);
      if (!r.ok) {
        set({ buildProblems: r.errors });
        return;
      }
      adoptPool(r.value);
    },

    async readRolePoolFile(file) {
      // UTF-8 takes at most 3 bytes per UTF-16 code unit; parseRolePool then counts characters.
      const text = await readFileText(file, MAX_ROLE_POOL_CHARS * 3);
      return text.ok ? parseRolePool(text.value) : text;
    },
  };
};
