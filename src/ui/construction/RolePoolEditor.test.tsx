import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_POOL,
  ROLE_AGENT_TYPES,
  ROLE_POOL_VERSION,
  checkDraft,
  draftOf,
  editDraft,
  poolOfDraft,
  type PoolDraft,
  type RolePool,
} from '../../store/construction.ts';
import { RolePoolEditor, poolFileName, type SavedPool } from './RolePoolEditor.tsx';
import { RolePoolEditorView, type EditorNotice } from './RolePoolEditorView.tsx';

const HOSTILE = '<img src=x onerror="window.__pwned=1">';
const noop = (): void => undefined;

/** The opening tag of the element with this test id. */
function tag(html: string, testId: string): string {
  const at = html.indexOf(`data-testid="${testId}"`);
  if (at < 0) throw new Error(`no ${testId}`);
  return html.slice(html.lastIndexOf('<', at), html.indexOf('>', at) + 1);
}

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

describe('role pool editor', () => {
  it('names exported files after the version', () => {
    expect(poolFileName('baton.roles/1+1a2b3c4d')).toBe('baton-roles-1-1a2b3c4d.json');
  });

  it('is a labelled dialog listing every role in head order, the first one open for editing', () => {
    const out = renderToStaticMarkup(
      <RolePoolEditor
        pool={DEFAULT_POOL}
        saved={[]}
        onApply={noop}
        onLoadVersion={noop}
        onReadFile={() => Promise.resolve({ ok: true, value: DEFAULT_POOL, warnings: [] })}
        onClose={noop}
      />,
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
