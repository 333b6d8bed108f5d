import 'fake-indexeddb/auto';
import { createStore, set } from 'idb-keyval';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_POOL,
  ROLE_POOL_VERSION,
  serializeRolePool,
  withContentVersion,
  type RolePool,
} from '../../policy/index.ts';
import { idbRolePools, memoryRolePools, type RolePoolStorage } from './roles.ts';

let n = 0;
const freshDb = (): string => `baton-roles-test-${++n}`;

/** A clock that ticks one minute per call. */
function clock(): () => string {
  let t = Date.UTC(2026, 0, 1);
  return () => new Date((t += 60_000)).toISOString();
}

const renamed = (name: string): RolePool => ({
  version: 'stale',
  roles: DEFAULT_POOL.roles.map((r, i) => (i === 0 ? { ...r, name } : r)),
});

async function roundTrip(storage: RolePoolStorage, reopen: () => RolePoolStorage): Promise<void> {
  const a = renamed('Splitter');
  const b = renamed('Breaker');
  const savedA = await storage.save(a);
  const savedB = await storage.save(b);
  const versionA = withContentVersion(a).version;
  const versionB = withContentVersion(b).version;
  expect(savedA.ok && savedA.value).toEqual({
    version: versionA,
    roles: 10,
    savedAt: '2026-01-01T00:01:00.000Z',
  });
  expect(savedB.ok && savedB.value.version).toBe(versionB);

  const other = reopen();
  const list = await other.list();
  expect(list.ok && list.value.map((s) => s.version)).toEqual([versionB, versionA]);
  const loaded = await other.load(versionA);
  expect(loaded.ok && loaded.value.version).toBe(versionA);
  expect(loaded.ok && loaded.value.roles[0]?.name).toBe('Splitter');

  // Saving the same content again keeps one entry and moves it to the top.
  await storage.save({ ...a, version: 'anything' });
  const again = await other.list();
  expect(again.ok && again.value.map((s) => s.version)).toEqual([versionA, versionB]);

  expect((await other.remove(versionA)).ok).toBe(true);
  const after = await other.list();
  expect(after.ok && after.value.map((s) => s.version)).toEqual([versionB]);
  const gone = await other.load(versionA);
  expect(gone.ok).toBe(false);
  expect(!gone.ok && gone.errors[0]?.code).toBe('E_ROLES_NOT_FOUND');
}

describe('role pool storage', () => {
  it('idbRolePools keeps pools by content version across instances', async () => {
    const db = freshDb();
    const now = clock();
    await roundTrip(idbRolePools(db, 'pools', { now }), () => idbRolePools(db, 'pools', { now }));
  });

  it('memoryRolePools behaves the same', async () => {
    const storage = memoryRolePools({ now: clock() });
    await roundTrip(storage, () => storage);
  });

  it('refuses to store a pool it could not read back', async () => {
    for (const storage of [idbRolePools(freshDb()), memoryRolePools()]) {
      const bad = renamed('Solver');
      const r = await storage.save(bad);
      expect(r.ok).toBe(false);
      expect(!r.ok && r.errors[0]?.message).toContain('repeated or reserved');
      const list = await storage.list();
      expect(list.ok && list.value).toEqual([]);
    }
  });

  it('parses what it reads back and skips damaged records with a warning', async () => {
    const db = freshDb();
    const raw = createStore(db, 'pools');
    const good = renamed('Splitter');
    const goodVersion = withContentVersion(good).version;
    const otherVersion = withContentVersion(renamed('Breaker')).version;
    await set(
      `pool:${goodVersion}`,
      { savedAt: '2026-01-01T00:00:00.000Z', text: serializeRolePool(good) },
      raw,
    );
    await set('pool:junk', 'not a record', raw);
    await set(`pool:${ROLE_POOL_VERSION}`, { savedAt: '2026-01-02T00:00:00.000Z', text: '{"format":' }, raw);
    // A record whose roles do not hash to its key (edited in place) is refused.
    await set(
      `pool:${otherVersion}`,
      { savedAt: '2026-01-03T00:00:00.000Z', text: serializeRolePool(good) },
      raw,
    );
    await set('unrelated', 1, raw);

    const storage = idbRolePools(db);
    const list = await storage.list();
    if (!list.ok) throw new Error('list failed');
    expect(list.value.map((s) => s.version)).toEqual([goodVersion]);
    expect(list.warnings.map((w) => w.code)).toEqual(['E_ROLES_STORED', 'E_ROLES_STORED', 'E_ROLES_STORED']);

    const moved = await storage.load(otherVersion);
    expect(!moved.ok && moved.errors[0]?.message).toContain(`its roles are version ${goodVersion}`);
    const broken = await storage.load(ROLE_POOL_VERSION);
    expect(!broken.ok && broken.errors[0]?.message).toContain('not valid JSON');
    expect((await storage.load(goodVersion)).ok).toBe(true);
  });
});
