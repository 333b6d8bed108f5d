import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_POOL,
  ROLE_AGENT_TYPES,
  ROLE_POOL_VERSION,
  parseRolePool,
  serializeRolePool,
  type RolePool,
} from '../../policy/roles.ts';
import {
  RolePoolEditor,
  RolePoolEditorView,
  checkDraft,
  draftOf,
  editDraft,
  fieldKey,
  poolFileName,
  poolOfDraft,
  type EditorNotice,
  type PoolDraft,
  type PoolEdit,
  type SavedPool,
} from './RolePoolEditor.tsx';

const HOSTILE = '<img src=x onerror="window.__pwned=1">';
const noop = (): void => undefined;

/** The opening tag of the element with this test id. */
function tag(html: string, testId: string): string {
  const at = html.indexOf(`data-testid="${testId}"`);
  if (at < 0) throw new Error(`no ${testId}`);
  return html.slice(html.lastIndexOf('<', at), html.indexOf('>', at) + 1);
}

const apply = (d: PoolDraft, ...edits: PoolEdit[]): PoolDraft => edits.reduce(editDraft, d);
const names = (d: PoolDraft): string[] => d.roles.map((r) => r.name);

function view(
  draft: PoolDraft,
  o: { pool?: RolePool; saved?: SavedPool[]; notice?: EditorNotice } = {},
): string {
  return renderToStaticMarkup(
    <RolePoolEditorView
      pool={o.pool ?? DEFAULT_POOL}
      draft={draft}
      check={checkDraft(draft)}
      saved={o.saved ?? []}
      notice={o.notice ?? null}
      idPrefix="t"
      titleId="t-title"
      onEdit={noop}
      onApply={noop}
      onLoadVersion={noop}
      onImport={noop}
      onExport={noop}
      onDismissNotice={noop}
      onClose={noop}
    />,
  );
}

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

  it('names exported files after the version and exports what imports back', () => {
    expect(poolFileName('baton.roles/1+1a2b3c4d')).toBe('baton-roles-1-1a2b3c4d.json');
    const pool = poolOfDraft(
      editDraft(draftOf(DEFAULT_POOL), { type: 'set', index: 0, field: 'does', value: 'Splits.' }),
    );
    const back = parseRolePool(serializeRolePool(pool));
    expect(back.ok && back.value).toEqual(pool);
  });
});

describe('role pool editor', () => {
  it('is a labelled dialog listing every role in head order, the first one open for editing', () => {
    const out = renderToStaticMarkup(
      <RolePoolEditor pool={DEFAULT_POOL} saved={[]} onApply={noop} onLoadVersion={noop} onClose={noop} />,
    );
    const dialog = tag(out, 'roles-dialog');
    expect(dialog.startsWith('<dialog')).toBe(true);
    const labelledBy = /aria-labelledby="([^"]+)"/.exec(dialog)?.[1];
    expect(out).toContain(`<h2 id="${labelledBy}">Role pool</h2>`);
    expect(out.match(/data-testid="roles-item"/g)).toHaveLength(DEFAULT_POOL.roles.length);
    const listed = [...out.matchAll(/<span class="roles-name">([^<]*)<\/span>/g)].map((m) => m[1]);
    expect(listed).toEqual(DEFAULT_POOL.roles.map((r) => r.name));
    expect(tag(out, 'role-name')).toContain('value="Decomposer"');
    expect(out.match(/<option /g)).toHaveLength(ROLE_AGENT_TYPES.length);
    expect(out).not.toContain('SummarizerAgent');
    expect(tag(out, 'roles-version-in-use')).toBeTruthy();
    expect(out).toContain(`>${ROLE_POOL_VERSION}</dd>`);
    // Nothing edited yet: nothing to apply, no head warning.
    expect(tag(out, 'roles-apply')).toContain('disabled');
    expect(out).not.toContain('roles-head-warning');
    expect(out).toContain('No saved versions');
  });

  it('warns when the edit changes the node head, and not when only texts change', () => {
    const d0 = draftOf(DEFAULT_POOL);
    const renamed = view(editDraft(d0, { type: 'set', index: 2, field: 'name', value: 'Worker' }));
    expect(tag(renamed, 'roles-head-warning')).toBeTruthy();
    expect(renamed).toContain('removed &quot;Solver&quot;; added &quot;Worker&quot;');
    expect(renamed).toContain('<code>prior</code> and <code>random</code>');
    expect(tag(renamed, 'roles-apply')).not.toContain('disabled');

    const added = view(editDraft(d0, { type: 'add' }));
    expect(added).toContain('10 → 11 roles');

    const textOnly = editDraft(d0, { type: 'set', index: 2, field: 'does', value: 'Answers.' });
    const same = view(textOnly);
    expect(same).not.toContain('roles-head-warning');
    expect(tag(same, 'roles-head-same')).toBeTruthy();
    expect(same).toContain(`>${poolOfDraft(textOnly).version}</dd>`);
    expect(tag(same, 'roles-apply')).not.toContain('disabled');
  });

  it('shows inline errors on the field and the row, and keeps Apply and Export disabled', () => {
    const d = editDraft(draftOf(DEFAULT_POOL), { type: 'set', index: 0, field: 'does', value: '' });
    const out = view(d);
    const input = tag(out, 'role-does');
    expect(input).toContain('aria-invalid="true"');
    const describedBy = /aria-describedby="([^"]+)"/.exec(input)?.[1] ?? '';
    const errorsId = describedBy.split(' ').find((id) => id.endsWith('-errors'));
    expect(out).toContain(`id="${errorsId}" data-testid="roles-field-error"><li>must not be empty</li>`);
    expect(tag(out, 'role-name')).toContain('aria-invalid="false"');
    expect(out.match(/data-invalid="true"/g)).toHaveLength(1);
    expect(tag(out, 'roles-apply')).toContain('disabled');
    expect(tag(out, 'roles-export')).toContain('disabled');
    expect(out).toContain('1 problem to fix before applying');
    expect(out).toContain('not valid yet');
  });

  it('renders roles, saved versions and import problems as text', () => {
    const pool: RolePool = {
      version: 'x',
      roles: [{ ...DEFAULT_POOL.roles[2]!, prompt: HOSTILE, does: HOSTILE }],
    };
    const saved = [
      { version: ROLE_POOL_VERSION, roles: 10, savedAt: '2026-01-02T00:00:00.000Z' },
      { version: HOSTILE, roles: 1, savedAt: HOSTILE },
    ];
    const notice: EditorNotice = {
      kind: 'error',
      title: `${HOSTILE} could not be imported`,
      problems: [{ code: 'E_JSON', message: HOSTILE }],
    };
    const out = view(draftOf(pool), { pool, saved, notice });
    expect(out).not.toContain('<img');
    expect(out).toContain('&lt;img src=x');
    expect(out.match(/data-testid="roles-saved-item"/g)).toHaveLength(2);
    expect(out).toContain('aria-label="Load baton.roles/1"');
    expect(out).toContain('role="alert"');
    // The pool in use is marked in the saved list instead of offering to load it again.
    const inUse = view(draftOf(DEFAULT_POOL), { saved });
    expect(inUse).toContain('>in use<');
    expect(inUse).not.toContain('aria-label="Load baton.roles/1"');
  });
});
