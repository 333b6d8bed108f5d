import { describe, expect, it } from 'vitest';
import {
  checkDraft,
  draftOf,
  editDraft,
  fieldKey,
  poolOfDraft,
  type PoolDraft,
  type PoolEdit,
} from './role-draft.ts';
import { DEFAULT_POOL, parseRolePool, serializeRolePool } from './roles.ts';

const apply = (d: PoolDraft, ...edits: PoolEdit[]): PoolDraft => edits.reduce(editDraft, d);
const names = (d: PoolDraft): string[] => d.roles.map((r) => r.name);

describe('role pool draft', () => {
  it('stands for the pool it was made from, so opening the editor changes nothing', () => {
    expect(poolOfDraft(draftOf(DEFAULT_POOL))).toEqual(DEFAULT_POOL);
    expect(checkDraft(draftOf(DEFAULT_POOL)).problems).toEqual([]);
  });

  it('adds, moves, removes and selects roles, keeping each row its key', () => {
    const d0 = draftOf(DEFAULT_POOL);
    const added = editDraft(d0, { type: 'add' });
    expect(added.roles).toHaveLength(11);
    expect(added.selected).toBe(10);
    expect(added.roles[10]?.name).toBe('Role 11');
    expect(new Set(added.roles.map((r) => r.key)).size).toBe(11);

    const moved = apply(d0, { type: 'select', index: 1 }, { type: 'move', index: 1, by: -1 });
    expect(names(moved).slice(0, 2)).toEqual(['Planner', 'Decomposer']);
    expect(moved.selected).toBe(0);
    expect(moved.roles[0]?.key).toBe(d0.roles[1]?.key);
    // Off either end nothing moves.
    expect(editDraft(d0, { type: 'move', index: 0, by: -1 })).toBe(d0);
    expect(editDraft(d0, { type: 'move', index: 9, by: 1 })).toBe(d0);

    const removed = apply(d0, { type: 'select', index: 5 }, { type: 'remove', index: 2 });
    expect(names(removed)).not.toContain('Solver');
    expect(removed.roles[removed.selected]?.name).toBe('Verifier');

    let one = d0;
    while (one.roles.length > 1) one = editDraft(one, { type: 'remove', index: 0 });
    expect(editDraft(one, { type: 'remove', index: 0 })).toBe(one);

    let full = d0;
    while (full.roles.length < 32) full = editDraft(full, { type: 'add' });
    expect(editDraft(full, { type: 'add' })).toBe(full);
    expect(checkDraft(full).byField.get(fieldKey(31, 'prompt'))).toEqual(['must not be empty']);
  });

  it('edits fields, refuses unknown agent types and gives a new debate two sides', () => {
    const d0 = draftOf(DEFAULT_POOL);
    expect(editDraft(d0, { type: 'set', index: 0, field: 'agentType', value: 'SummarizerAgent' })).toBe(d0);
    const debate = editDraft(d0, { type: 'set', index: 0, field: 'agentType', value: 'DebateAgent' });
    expect(debate.roles[0]?.debateRoles).toBe('Proponent\nSkeptic');
    expect(poolOfDraft(debate).roles[0]?.debateRoles).toEqual(['Proponent', 'Skeptic']);
    // Debate roles are kept only for DebateAgent roles.
    const back = editDraft(debate, { type: 'set', index: 0, field: 'agentType', value: 'SCAgent' });
    expect(poolOfDraft(back).roles[0]).not.toHaveProperty('debateRoles');

    const texts = apply(
      d0,
      { type: 'set', index: 2, field: 'name', value: '  Solver One ' },
      { type: 'set', index: 2, field: 'prompt', value: 'Solve it.\n' },
    );
    expect(texts.roles[2]?.name).toBe('  Solver One ');
    const pool = poolOfDraft(texts);
    expect(pool.roles[2]).toMatchObject({ name: 'Solver One', prompt: 'Solve it.' });
    expect(pool.version).toMatch(/^baton\.roles\/1\+[0-9a-f]{8}$/);
  });

  it('reports problems per field, per debate line and for the whole file', () => {
    const d = apply(
      draftOf(DEFAULT_POOL),
      { type: 'set', index: 1, field: 'prompt', value: '   ' },
      { type: 'set', index: 3, field: 'name', value: 'planner' },
      { type: 'set', index: 7, field: 'debateRoles', value: `Pro\n\n${'x'.repeat(81)}` },
    );
    const c = checkDraft(d);
    expect(c.byField.get(fieldKey(1, 'prompt'))).toEqual(['must not be empty']);
    expect(c.byField.get(fieldKey(3, 'name'))?.[0]).toContain('"planner" is repeated or reserved');
    expect(c.byField.get(fieldKey(7, 'debateRoles'))).toEqual(['line 2: must be at most 80 characters']);
    expect(c.general).toEqual([]);

    // Quotes double in JSON: 32 roles of quoted text pass every field limit but not the file limit.
    let big = draftOf(DEFAULT_POOL);
    while (big.roles.length < 32) big = editDraft(big, { type: 'add' });
    big = big.roles.reduce(
      (acc, _, i) =>
        apply(
          acc,
          { type: 'set', index: i, field: 'prompt', value: '"'.repeat(4000) },
          { type: 'set', index: i, field: 'does', value: '"'.repeat(400) },
          { type: 'set', index: i, field: 'refuseWhen', value: '"'.repeat(1000) },
        ),
      big,
    );
    const huge = checkDraft(big);
    expect(huge.byField.size).toBe(0);
    expect(huge.general).toHaveLength(1);
    expect(huge.general[0]).toMatch(/limit is 256 KB/);
  });

  it('exports what imports back', () => {
    const pool = poolOfDraft(
      editDraft(draftOf(DEFAULT_POOL), { type: 'set', index: 0, field: 'does', value: 'Splits.' }),
    );
    const back = parseRolePool(serializeRolePool(pool));
    expect(back.ok && back.value).toEqual(pool);
  });
});
