import { describe, expect, it } from 'vitest';
import { actionNames, actionIndex, actionKind, exitIndex } from './actions.ts';
import { DEFAULT_POOL, ROLE_POOL_VERSION, RolePoolSchema, roleInstruction, roleSlug } from './roles.ts';

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
    expect(names.slice(-2)).toEqual(['DELETE', 'EXIT']);
    expect(names).toHaveLength(DEFAULT_POOL.roles.length + 2);
    expect(actionKind(DEFAULT_POOL, exitIndex(DEFAULT_POOL))).toEqual({ kind: 'exit' });
    expect(actionIndex(DEFAULT_POOL, { kind: 'add', role: 2 })).toBe(2);
    expect(() => actionKind(DEFAULT_POOL, names.length)).toThrow();
  });
});
