import { describe, expect, it } from 'vitest';
import { actionNames, actionIndex, actionKind, exitIndex } from './actions.ts';
import { AGENT_TYPES } from '../core/agents.ts';
import { incompatibility } from './checkpoint.ts';
import { priorCheckpoint } from './prior.ts';
import {
  DEFAULT_POOL,
  MAX_ROLE_POOL_CHARS,
  ROLE_AGENT_TYPES,
  ROLE_POOL_FORMAT,
  ROLE_POOL_VERSION,
  RolePoolSchema,
  headChange,
  isDefaultPool,
  parseRolePool,
  roleInstruction,
  rolePoolIssues,
  roleSlug,
  serializeRolePool,
  withContentVersion,
  type Role,
  type RolePool,
} from './roles.ts';

describe('role pool', () => {
  it('the default pool is valid, versioned, 8–12 roles, each with a prompt and a refuse condition', () => {
    expect(RolePoolSchema.safeParse(DEFAULT_POOL).success).toBe(true);
    expect(DEFAULT_POOL.version).toBe(ROLE_POOL_VERSION);
    expect(DEFAULT_POOL.roles.length).toBeGreaterThanOrEqual(8);
    expect(DEFAULT_POOL.roles.length).toBeLessThanOrEqual(12);
    for (const r of DEFAULT_POOL.roles) {
      expect(r.refuseWhen).toMatch(/REFUSE/);
      expect(roleInstruction(r)).toContain(r.prompt);
      expect(roleSlug(r.name)).toMatch(/^[a-z0-9-]+$/);
    }
  });

  it('rejects user-edited pools with repeated or reserved names and debates without two sides', () => {
    const solver = DEFAULT_POOL.roles.find((r) => r.name === 'Solver');
    if (!solver) throw new Error('no Solver');
    expect(
      RolePoolSchema.safeParse({ version: 'mine/1', roles: [solver, { ...solver, name: 'solver' }] }).success,
    ).toBe(false);
    expect(
      RolePoolSchema.safeParse({ version: 'mine/1', roles: [{ ...solver, name: 'Exit' }] }).success,
    ).toBe(false);
    const debate = { ...solver, name: 'Panel', agentType: 'DebateAgent' as const };
    expect(RolePoolSchema.safeParse({ version: 'mine/1', roles: [debate] }).success).toBe(false);
    expect(
      RolePoolSchema.safeParse({ version: 'mine/1', roles: [{ ...debate, debateRoles: ['A', 'B'] }] })
        .success,
    ).toBe(true);
    expect(
      RolePoolSchema.safeParse({ version: 'mine/1', roles: [{ ...solver, agentType: 'SummarizerAgent' }] })
        .success,
    ).toBe(false);
  });

  it('the action space is roles ∪ {DELETE, EXIT} in head order', () => {
    const names = actionNames(DEFAULT_POOL);
    expect(names[0]).toBe('Decomposer');
    expect(names.slice(-2)).toEqual(['DELETE', 'EXIT']);
    expect(names).toHaveLength(DEFAULT_POOL.roles.length + 2);
    expect(actionKind(DEFAULT_POOL, exitIndex(DEFAULT_POOL))).toEqual({ kind: 'exit' });
    expect(actionIndex(DEFAULT_POOL, { kind: 'add', role: 2 })).toBe(2);
    expect(() => actionKind(DEFAULT_POOL, names.length)).toThrow();
  });
});

const roleAt = (pool: RolePool, i: number): Role => {
  const r = pool.roles[i];
  if (!r) throw new Error(`no role ${i}`);
  return r;
};

/** The default roles with role `i` replaced by `patch` applied to it. */
const edited = (i: number, patch: Partial<Role>): RolePool => ({
  version: ROLE_POOL_VERSION,
  roles: DEFAULT_POOL.roles.map((r, j) => (j === i ? { ...r, ...patch } : r)),
});

const errorsOf = (text: string): { code: string; message: string; path?: string }[] => {
  const r = parseRolePool(text);
  if (r.ok) throw new Error('expected the text to be refused');
  return r.errors;
};

describe('role pool versions', () => {
  it('keeps baton.roles/1 for the default roles and derives 8 hex digits from edited content', () => {
    expect(withContentVersion(DEFAULT_POOL)).toBe(DEFAULT_POOL);
    expect(isDefaultPool(DEFAULT_POOL)).toBe(true);
    expect(isDefaultPool({ version: 'whatever', roles: [...DEFAULT_POOL.roles] })).toBe(true);

    const a = withContentVersion(edited(2, { prompt: 'Solve it.' }));
    expect(a.version).toMatch(/^baton\.roles\/1\+[0-9a-f]{8}$/);
    expect(isDefaultPool(a)).toBe(false);
    // Same content, built separately and with its keys in another order: same version.
    const shuffled = edited(2, { prompt: 'Solve it.' }).roles.map((r) => {
      const { refuseWhen, name, ...rest } = r;
      return { refuseWhen, ...rest, name };
    });
    expect(withContentVersion({ version: 'x', roles: shuffled }).version).toBe(a.version);
    // Editing back to the default text gives the default version again.
    expect(withContentVersion({ ...a, roles: [...DEFAULT_POOL.roles] }).version).toBe(ROLE_POOL_VERSION);
  });

  it('gives a different version to a change in any field or in the order', () => {
    const debate = DEFAULT_POOL.roles.findIndex((r) => r.agentType === 'DebateAgent');
    const variants: RolePool[] = [
      edited(0, { name: 'Decomposer 2' }),
      edited(0, { agentType: 'SCAgent' }),
      edited(0, { prompt: `${roleAt(DEFAULT_POOL, 0).prompt} ` }),
      edited(0, { does: 'Splits.' }),
      edited(0, { refuseWhen: 'Reply "REFUSE: no".' }),
      edited(debate, { debateRoles: ['Proponent', 'Skeptic', 'Judge'] }),
      { version: 'x', roles: [...DEFAULT_POOL.roles].reverse() },
      { version: 'x', roles: DEFAULT_POOL.roles.slice(1) },
    ];
    const versions = variants.map((p) => withContentVersion(p).version);
    expect(new Set([...versions, ROLE_POOL_VERSION]).size).toBe(variants.length + 1);
  });
});

describe('role pool files', () => {
  it('serialises stably with a format marker and reads back to the same pool', () => {
    const text = serializeRolePool(DEFAULT_POOL);
    const head = JSON.parse(text) as { format: string; version: string; roles: unknown[] };
    expect(head.format).toBe(ROLE_POOL_FORMAT);
    expect(head.version).toBe(ROLE_POOL_VERSION);
    expect(text.endsWith('\n')).toBe(true);
    expect(text).toContain('\n  "roles": [\n');
    const back = parseRolePool(text);
    expect(back.ok && back.value).toEqual(DEFAULT_POOL);
    expect(back.ok && back.warnings).toEqual([]);

    const pool = edited(3, { name: 'Arithmetic' });
    const once = serializeRolePool(pool);
    const again = parseRolePool(once);
    if (!again.ok) throw new Error(again.errors.map((e) => e.message).join('; '));
    expect(again.value.version).toBe(withContentVersion(pool).version);
    expect(serializeRolePool(again.value)).toBe(once);
    // The written version is derived from the content, not copied from a stale field.
    expect(JSON.parse(serializeRolePool({ ...pool, version: 'stale' })).version).toBe(again.value.version);
  });

  it('derives the version when the file leaves it out and warns when the file disagrees', () => {
    const roles = edited(0, { does: 'Splits deep tasks.' }).roles;
    const without = parseRolePool(JSON.stringify({ format: ROLE_POOL_FORMAT, roles }));
    expect(without.ok && without.value.version).toMatch(/^baton\.roles\/1\+[0-9a-f]{8}$/);
    expect(without.ok && without.warnings).toEqual([]);
    const claimed = parseRolePool(
      JSON.stringify({ format: ROLE_POOL_FORMAT, version: ROLE_POOL_VERSION, roles }),
    );
    expect(claimed.ok && claimed.value.version).toBe(without.ok && without.value.version);
    expect(claimed.ok && claimed.warnings.map((w) => w.path)).toEqual(['version']);
  });

  it('refuses oversized text, broken JSON and other formats with a reason', () => {
    const big = errorsOf(' '.repeat(MAX_ROLE_POOL_CHARS + 1));
    expect(big[0]?.code).toBe('E_TOO_LARGE');
    expect(big[0]?.message).toContain('256 KB');

    const json = errorsOf('{"format": "baton.roles/1", roles: []}');
    expect(json[0]?.code).toBe('E_JSON');
    expect(json[0]?.message).toMatch(/not valid JSON \(.+\)/);

    expect(errorsOf('[1, 2]')[0]?.code).toBe('E_ROLES_FORMAT');
    expect(errorsOf(JSON.stringify({ roles: DEFAULT_POOL.roles }))[0]?.message).toContain('missing');
    expect(errorsOf(JSON.stringify({ format: 'baton.policy/1' }))[0]?.message).toContain('policy checkpoint');
    expect(errorsOf(JSON.stringify({ format: 'baton.roles/2' }))[0]?.message).toContain('another version');
  });

  it('maps schema problems to "path: message", names clashes even beside other problems', () => {
    const solver = roleAt(DEFAULT_POOL, 2);
    const errors = errorsOf(
      JSON.stringify({
        format: ROLE_POOL_FORMAT,
        roles: [
          { ...solver, prompt: '' },
          { ...solver, name: 'SOLVER', agentType: 'SummarizerAgent' },
          { ...solver, name: 'Exit' },
          { ...solver, name: 'Panel', agentType: 'DebateAgent' },
          { ...solver, name: 'Echo', agentType: 'DebateAgent', debateRoles: ['Judge', ' judge'] },
        ],
      }),
    );
    const byPath = new Map(errors.map((e) => [e.path, e.message]));
    expect(byPath.get('roles[0].prompt')).toBe('roles[0].prompt: must not be empty');
    expect(byPath.get('roles[1].agentType')).toMatch(/^roles\[1\]\.agentType: must be one of CoTAgent, /);
    expect(byPath.get('roles[1].name')).toContain('repeated or reserved');
    expect(byPath.get('roles[2].name')).toContain('"Exit" is repeated or reserved');
    expect(byPath.get('roles[3].debateRoles')).toContain('at least two different debate roles');
    // Design rule 11 counts `Judge` and ` judge` as one role, so a pool may not offer them as two.
    expect(byPath.get('roles[4].debateRoles')).toContain('at least two different debate roles');
    expect(errors.every((e) => e.code === 'E_ROLES_SCHEMA')).toBe(true);

    expect(errorsOf(JSON.stringify({ format: ROLE_POOL_FORMAT, roles: [] }))[0]?.message).toBe(
      'roles: needs at least 1 entry',
    );
    expect(errorsOf(JSON.stringify({ format: ROLE_POOL_FORMAT }))[0]?.message).toBe('roles: is missing');
    const types = errorsOf(
      JSON.stringify({ format: ROLE_POOL_FORMAT, version: 3, roles: [{ name: 'Lone' }, 'x'] }),
    ).map((e) => e.message);
    expect(types).toEqual([
      'version: must be a string',
      'roles[0].agentType: is missing',
      'roles[0].prompt: is missing',
      'roles[0].does: is missing',
      'roles[0].refuseWhen: is missing',
      'roles[1]: must be an object',
    ]);
    expect(errorsOf(JSON.stringify({ format: ROLE_POOL_FORMAT, roles: {} }))[0]?.message).toBe(
      'roles: must be a list',
    );
  });

  it('never throws, whatever the text', () => {
    const inputs = [
      '',
      'null',
      '"baton.roles/1"',
      '{"format":"baton.roles/1","roles":null}',
      '{"format":"baton.roles/1","roles":[null, 3, "x", {"name": 5}]}',
      '{"format":"baton.roles/1","version":{"a":1},"roles":[]}',
      '['.repeat(5000),
      serializeRolePool(DEFAULT_POOL).slice(0, 500),
    ];
    for (const text of inputs) {
      const r = parseRolePool(text);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.errors.length).toBeGreaterThan(0);
    }
  });

  it('reports plain messages for editors and nothing for a valid pool', () => {
    expect(rolePoolIssues(DEFAULT_POOL)).toEqual([]);
    const issues = rolePoolIssues(edited(1, { name: 'planner 2', does: 'x'.repeat(401) }));
    expect(issues).toEqual([
      { code: 'E_ROLES_SCHEMA', message: 'must be at most 400 characters', path: 'roles[1].does' },
    ]);
    expect(ROLE_AGENT_TYPES).toEqual(AGENT_TYPES.filter((t) => t !== 'SummarizerAgent'));
  });
});

describe('node head changes', () => {
  const names = (p: RolePool): string[] => p.roles.map((r) => r.name);

  it('ignores texts and agent types; names renames, additions, removals and reordering', () => {
    expect(headChange(DEFAULT_POOL, edited(4, { prompt: 'Solve.', agentType: 'CoTAgent' }))).toBeNull();

    const renamed = headChange(DEFAULT_POOL, edited(2, { name: 'solver' }));
    expect(renamed).toMatchObject({ added: ['solver'], removed: ['Solver'], reordered: false });
    expect(renamed?.message).toBe('10 roles; removed "Solver"; added "solver"');

    const extra = {
      version: 'x',
      roles: [...DEFAULT_POOL.roles, { ...roleAt(DEFAULT_POOL, 2), name: 'Auditor' }],
    };
    expect(headChange(DEFAULT_POOL, extra)?.message).toBe('10 → 11 roles; added "Auditor"');

    const swapped = [...DEFAULT_POOL.roles];
    [swapped[0], swapped[1]] = [roleAt(DEFAULT_POOL, 1), roleAt(DEFAULT_POOL, 0)];
    const order = headChange(DEFAULT_POOL, { version: 'x', roles: swapped });
    expect(order).toMatchObject({ added: [], removed: [], reordered: true });
    expect(order?.to).toEqual(names({ version: 'x', roles: swapped }));

    const fewer = headChange(DEFAULT_POOL, { version: 'x', roles: DEFAULT_POOL.roles.slice(0, 9) });
    expect(fewer).toMatchObject({ removed: ['Extractor'], reordered: false });
  });

  it('agrees with whether a checkpoint made for one pool can drive the other', () => {
    const pools: RolePool[] = [
      DEFAULT_POOL,
      edited(2, { prompt: 'Solve.' }),
      edited(2, { name: 'solver' }),
      { version: 'x', roles: [...DEFAULT_POOL.roles].reverse() },
      { version: 'x', roles: DEFAULT_POOL.roles.slice(0, 3) },
    ];
    for (const a of pools) {
      const cp = priorCheckpoint(a);
      for (const b of pools) {
        expect(headChange(a, b) === null).toBe(incompatibility(cp, names(b)) === null);
      }
    }
  });
});
