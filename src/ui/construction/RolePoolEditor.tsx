import { useEffect, useId, useMemo, useRef, useState, type JSX, type ReactNode } from 'react';
import { AGENT_TYPE_INFO } from '../../core/agents.ts';
import type { Problem } from '../../core/result.ts';
import {
  DEFAULT_POOL,
  MAX_ROLE_POOL_CHARS,
  ROLE_AGENT_TYPES,
  headChange,
  parseRolePool,
  serializeRolePool,
  withContentVersion,
  type HeadChange,
  type RolePool,
} from '../../policy/roles.ts';
import { readFileText } from '../../store/services/files.ts';
import { formatDate, plural } from '../common/format.ts';
import { ProblemAlert } from '../common/ProblemAlert.tsx';
import { downloadText } from '../share/download.ts';
import {
  MAX_ROLES,
  checkDraft,
  draftOf,
  editDraft,
  fieldKey,
  type DraftCheck,
  type PoolDraft,
  type PoolEdit,
  type RoleAgentType,
  type RoleField,
} from './role-draft.ts';
import './roles.css';

export {
  checkDraft,
  draftOf,
  editDraft,
  fieldKey,
  poolOfDraft,
  type DraftCheck,
  type PoolDraft,
  type PoolEdit,
  type RoleDraft,
  type RoleField,
} from './role-draft.ts';

// ---------------------------------------------------------------- the view

/** One stored version, as the saved list shows it. */
export interface SavedPool {
  version: string;
  roles: number;
  /** ISO 8601. */
  savedAt: string;
}

export interface RolePoolEditorProps {
  /** The pool in use. When it changes (applied, loaded), the editor starts over from it. */
  pool: RolePool;
  saved: SavedPool[];
  /** A valid pool, its version derived from its content. */
  onApply(pool: RolePool): void;
  onLoadVersion(version: string): void;
  onClose(): void;
}

/** A notice about the last import. */
export type EditorNotice =
  | { kind: 'error'; title: string; problems: Problem[] }
  | { kind: 'ok'; message: string; warnings: Problem[] };

export interface RolePoolEditorViewProps {
  /** The pool in use. */
  pool: RolePool;
  draft: PoolDraft;
  check: DraftCheck;
  saved: readonly SavedPool[];
  notice: EditorNotice | null;
  /** Prefix for element ids (unique per editor). */
  idPrefix: string;
  titleId: string;
  onEdit(edit: PoolEdit): void;
  onApply(): void;
  onLoadVersion(version: string): void;
  onImport(): void;
  onExport(): void;
  onDismissNotice(): void;
  onClose(): void;
}

const TYPE_LABEL = (t: RoleAgentType): string => `${t} — ${AGENT_TYPE_INFO[t].label}`;

function FieldErrors({ id, errors }: { id: string; errors: readonly string[] }): JSX.Element | null {
  if (errors.length === 0) return null;
  return (
    <ul className="roles-field-errors" id={id} data-testid="roles-field-error">
      {errors.map((m, i) => (
        <li key={i}>{m}</li>
      ))}
    </ul>
  );
}

function Field({
  id,
  label,
  hint,
  errors,
  children,
}: {
  id: string;
  label: string;
  hint?: string;
  errors: readonly string[];
  children: ReactNode;
}): JSX.Element {
  return (
    <div className={errors.length > 0 ? 'roles-field invalid' : 'roles-field'}>
      <label htmlFor={id}>{label}</label>
      {children}
      {hint && (
        <span className="muted small" id={`${id}-hint`}>
          {hint}
        </span>
      )}
      <FieldErrors id={`${id}-errors`} errors={errors} />
    </div>
  );
}

/** `aria-invalid` and `aria-describedby` for a control with optional hint and errors. */
function described(id: string, errors: readonly string[], hint: boolean): Record<string, string | boolean> {
  const by = [hint ? `${id}-hint` : '', errors.length > 0 ? `${id}-errors` : ''].filter(Boolean).join(' ');
  return { id, 'aria-invalid': errors.length > 0, ...(by ? { 'aria-describedby': by } : {}) };
}

const count = (text: string, max: number): string =>
  `${text.trim().length.toLocaleString()} / ${max.toLocaleString()}`;

function RoleForm({
  draft,
  check,
  idPrefix,
  onEdit,
}: {
  draft: PoolDraft;
  check: DraftCheck;
  idPrefix: string;
  onEdit(edit: PoolEdit): void;
}): JSX.Element | null {
  const index = draft.selected;
  const r = draft.roles[index];
  if (!r) return null;
  const id = (f: RoleField): string => `${idPrefix}-r${r.key}-${f}`;
  const errs = (f: RoleField): string[] => check.byField.get(fieldKey(index, f)) ?? [];
  const set =
    (field: RoleField) =>
    (e: { target: { value: string } }): void =>
      onEdit({ type: 'set', index, field, value: e.target.value });
  return (
    <fieldset className="roles-form" data-testid="roles-form">
      <legend>
        Role {index + 1}: {r.name.trim() || '(unnamed)'}
      </legend>
      <div className="roles-form-row">
        <Field id={id('name')} label="Name" errors={errs('name')} hint="Letters, digits, spaces, dashes">
          <input
            className="input"
            value={r.name}
            maxLength={60}
            onChange={set('name')}
            data-testid="role-name"
            {...described(id('name'), errs('name'), true)}
          />
        </Field>
        <Field id={id('agentType')} label="Agent type" errors={errs('agentType')}>
          <select
            className="input"
            value={r.agentType}
            onChange={set('agentType')}
            data-testid="role-type"
            {...described(id('agentType'), errs('agentType'), false)}
          >
            {ROLE_AGENT_TYPES.map((t) => (
              <option key={t} value={t}>
                {TYPE_LABEL(t)}
              </option>
            ))}
          </select>
        </Field>
      </div>
      <Field id={id('prompt')} label="Prompt" errors={errs('prompt')} hint={count(r.prompt, 4000)}>
        <textarea
          className="input"
          rows={4}
          value={r.prompt}
          onChange={set('prompt')}
          data-testid="role-prompt"
          {...described(id('prompt'), errs('prompt'), true)}
        />
      </Field>
      <Field id={id('does')} label="What it does" errors={errs('does')} hint={count(r.does, 400)}>
        <input
          className="input"
          value={r.does}
          onChange={set('does')}
          data-testid="role-does"
          {...described(id('does'), errs('does'), true)}
        />
      </Field>
      <Field
        id={id('refuseWhen')}
        label="Refuse when"
        errors={errs('refuseWhen')}
        hint={count(r.refuseWhen, 1000)}
      >
        <textarea
          className="input"
          rows={2}
          value={r.refuseWhen}
          onChange={set('refuseWhen')}
          data-testid="role-refuse"
          {...described(id('refuseWhen'), errs('refuseWhen'), true)}
        />
      </Field>
      {r.agentType === 'DebateAgent' && (
        <Field
          id={id('debateRoles')}
          label="Debate roles"
          errors={errs('debateRoles')}
          hint="One per line, 2 to 8"
        >
          <textarea
            className="input"
            rows={3}
            value={r.debateRoles}
            onChange={set('debateRoles')}
            data-testid="role-debate"
            {...described(id('debateRoles'), errs('debateRoles'), true)}
          />
        </Field>
      )}
    </fieldset>
  );
}

function HeadNotice({
  pool,
  change,
  dirty,
}: {
  pool: RolePool;
  change: HeadChange | null;
  dirty: boolean;
}): JSX.Element {
  return (
    <div aria-live="polite">
      {change ? (
        <div className="alert alert-warn roles-head-warning" data-testid="roles-head-warning">
          <div className="alert-body">
            <strong>This edit changes the node head: {change.message}.</strong>
            <p>
              Only the <code>prior</code> and <code>random</code> policies can drive the edited pool.
              Checkpoints made for the pool in use (<code>{pool.version}</code>) will not apply to it.
            </p>
          </div>
        </div>
      ) : (
        dirty && (
          <p className="muted small" data-testid="roles-head-same">
            Role names and order are unchanged, so the node head is the same: checkpoints made for the pool in
            use still apply.
          </p>
        )
      )}
    </div>
  );
}

/** Everything inside the dialog, drawn from the draft; the editor below holds the state. */
export function RolePoolEditorView(p: RolePoolEditorViewProps): JSX.Element {
  const { pool, draft, check } = p;
  const valid = check.problems.length === 0;
  const inUse = withContentVersion(pool).version;
  const version = valid ? check.pool.version : null;
  const dirty = check.pool.version !== inUse;
  const change = headChange(pool, check.pool);
  const errorCount = (i: number): number =>
    [...check.byField.entries()].reduce((n, [k, v]) => (k.startsWith(`${i}.`) ? n + v.length : n), 0);
  const last = draft.roles.length - 1;

  return (
    <>
      <div className="dialog-head">
        <h2 id={p.titleId}>Role pool</h2>
        <button
          type="button"
          className="btn btn-ghost btn-small"
          onClick={p.onClose}
          data-testid="roles-close"
        >
          Close
        </button>
      </div>
      <p className="muted roles-intro">
        The roles the construction policy can add, in the order of the node head&apos;s outputs. Edits take
        effect when applied; every edited pool gets a version derived from its content.
      </p>
      <dl className="roles-versions">
        <div>
          <dt>In use</dt>
          <dd className="mono" data-testid="roles-version-in-use">
            {inUse}
          </dd>
        </div>
        <div>
          <dt>This edit</dt>
          <dd className="mono" data-testid="roles-version-draft">
            {version ?? 'not valid yet'}
          </dd>
        </div>
        {dirty && <span className="badge badge-warn">not applied</span>}
      </dl>
      <HeadNotice pool={pool} change={change} dirty={dirty} />
      {p.notice?.kind === 'error' && (
        <ProblemAlert
          title={p.notice.title}
          problems={p.notice.problems}
          onDismiss={p.onDismissNotice}
          testId="roles-import-error"
        />
      )}
      {p.notice?.kind === 'ok' && (
        <div className="alert alert-ok" role="status" data-testid="roles-import-ok">
          <div className="alert-body">
            <strong>{p.notice.message}</strong>
            {p.notice.warnings.length > 0 && (
              <ul>
                {p.notice.warnings.map((w, i) => (
                  <li key={i}>{w.message}</li>
                ))}
              </ul>
            )}
          </div>
          <button type="button" className="btn btn-ghost btn-small" onClick={p.onDismissNotice}>
            Dismiss
          </button>
        </div>
      )}

      <div className="roles-body">
        <div className="roles-list-col">
          <ol className="roles-list" aria-label="Roles in node-head order" data-testid="roles-list">
            {draft.roles.map((r, i) => {
              const name = r.name.trim() || `role ${i + 1}`;
              const errors = errorCount(i);
              return (
                <li
                  key={r.key}
                  className={i === draft.selected ? 'roles-item on' : 'roles-item'}
                  data-testid="roles-item"
                  data-invalid={errors > 0}
                >
                  <button
                    type="button"
                    className="roles-pick"
                    id={`${p.idPrefix}-r${r.key}-pick`}
                    aria-current={i === draft.selected ? 'true' : undefined}
                    onClick={() => p.onEdit({ type: 'select', index: i })}
                  >
                    <span className="roles-index">{i + 1}</span>
                    <span className="roles-name">{r.name.trim() || '(unnamed)'}</span>
                    <span className="roles-type">{r.agentType}</span>
                    {errors > 0 && <span className="badge badge-bad">{plural(errors, 'problem')}</span>}
                  </button>
                  <span className="roles-item-actions">
                    <button
                      type="button"
                      className="btn btn-ghost btn-small"
                      id={`${p.idPrefix}-r${r.key}-up`}
                      aria-label={`Move ${name} up`}
                      disabled={i === 0}
                      onClick={() => p.onEdit({ type: 'move', index: i, by: -1 })}
                    >
                      ↑
                    </button>
                    <button
                      type="button"
                      className="btn btn-ghost btn-small"
                      id={`${p.idPrefix}-r${r.key}-down`}
                      aria-label={`Move ${name} down`}
                      disabled={i === last}
                      onClick={() => p.onEdit({ type: 'move', index: i, by: 1 })}
                    >
                      ↓
                    </button>
                    <button
                      type="button"
                      className="btn btn-ghost btn-small"
                      aria-label={`Remove ${name}`}
                      disabled={draft.roles.length <= 1}
                      onClick={() => p.onEdit({ type: 'remove', index: i })}
                      data-testid="roles-remove"
                    >
                      ✕
                    </button>
                  </span>
                </li>
              );
            })}
          </ol>
          <button
            type="button"
            className="btn btn-small"
            disabled={draft.roles.length >= MAX_ROLES}
            onClick={() => p.onEdit({ type: 'add' })}
            data-testid="roles-add"
          >
            Add role
          </button>
          <span className="muted small">
            {plural(draft.roles.length, 'role')} (at most {MAX_ROLES})
          </span>
        </div>
        <RoleForm draft={draft} check={check} idPrefix={p.idPrefix} onEdit={p.onEdit} />
      </div>

      {check.general.length > 0 && (
        <div className="alert alert-error" role="alert" data-testid="roles-general-error">
          <div className="alert-body">
            <ul>
              {check.general.map((m, i) => (
                <li key={i}>{m}</li>
              ))}
            </ul>
          </div>
        </div>
      )}

      <section className="roles-saved" aria-labelledby={`${p.idPrefix}-saved`}>
        <h3 id={`${p.idPrefix}-saved`}>Saved versions</h3>
        {p.saved.length === 0 ? (
          <p className="muted small">No saved versions in this browser yet.</p>
        ) : (
          <ul className="roles-saved-list" data-testid="roles-saved">
            {p.saved.map((s) => (
              <li key={s.version} data-testid="roles-saved-item">
                <span className="mono roles-saved-version">{s.version}</span>
                <span className="muted">{plural(s.roles, 'role')}</span>
                <span className="muted">{formatDate(s.savedAt)}</span>
                {s.version === inUse ? (
                  <span className="badge badge-ok">in use</span>
                ) : (
                  <button
                    type="button"
                    className="btn btn-small"
                    onClick={() => p.onLoadVersion(s.version)}
                    aria-label={`Load ${s.version}`}
                  >
                    Load
                  </button>
                )}
              </li>
            ))}
          </ul>
        )}
      </section>

      <div className="roles-foot">
        <button type="button" className="btn btn-small" onClick={p.onImport} data-testid="roles-import">
          Import JSON…
        </button>
        <button
          type="button"
          className="btn btn-small"
          onClick={p.onExport}
          disabled={!valid}
          data-testid="roles-export"
        >
          Export JSON
        </button>
        <button
          type="button"
          className="btn btn-small"
          onClick={() => p.onEdit({ type: 'replace', pool: DEFAULT_POOL })}
          data-testid="roles-reset"
        >
          Reset to default
        </button>
        <span className="toolbar-spacer" />
        {!valid && (
          <span className="roles-invalid" data-testid="roles-problem-count">
            {plural(check.problems.length, 'problem')} to fix before applying
          </span>
        )}
        <button
          type="button"
          className="btn btn-primary"
          disabled={!valid || !dirty}
          onClick={p.onApply}
          data-testid="roles-apply"
        >
          Apply
        </button>
      </div>
    </>
  );
}

// ---------------------------------------------------------------- the dialog

/** `baton.roles/1+1a2b3c4d` → `baton-roles-1-1a2b3c4d.json`. */
export const poolFileName = (version: string): string =>
  `${version.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-+|-+$/g, '')}.json`;

/** The element to focus after an edit, so keyboard users stay where they were. */
function focusAfter(d: PoolDraft, e: PoolEdit, idPrefix: string): string | null {
  const key = (i: number): number | undefined => d.roles[i]?.key;
  switch (e.type) {
    case 'add':
      return `${idPrefix}-r${key(d.selected)}-name`;
    case 'move': {
      const at = e.index + e.by;
      // The moved role's same arrow, or the other one once it reaches an end.
      const dir = (e.by < 0 && at === 0) || (e.by > 0 && at === d.roles.length - 1) ? -e.by : e.by;
      return `${idPrefix}-r${key(at)}-${dir < 0 ? 'up' : 'down'}`;
    }
    case 'remove':
      return `${idPrefix}-r${key(d.selected)}-pick`;
    default:
      return null;
  }
}

/**
 * The role pool editor: a modal dialog (native `<dialog>`: focus moves into it, Esc closes it,
 * focus returns to the opener) listing the roles of a draft of the pool in use. Apply hands the
 * edited pool, versioned by its content, to `onApply`; nothing changes before that. Import reads a
 * `baton.roles/1` file into the draft; Export downloads the draft as one.
 */
export function RolePoolEditor({
  pool,
  saved,
  onApply,
  onLoadVersion,
  onClose,
}: RolePoolEditorProps): JSX.Element {
  const dialog = useRef<HTMLDialogElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const focusTarget = useRef<string | null>(null);
  const idPrefix = `roles${useId().replace(/[^A-Za-z0-9_-]/g, '')}`;
  const inUse = useMemo(() => withContentVersion(pool).version, [pool]);
  const [base, setBase] = useState(inUse);
  const [draft, setDraft] = useState(() => draftOf(pool));
  const [notice, setNotice] = useState<EditorNotice | null>(null);
  // The pool in use changed (applied or loaded): start over from it, keeping the selected row.
  if (base !== inUse) {
    setBase(inUse);
    setDraft((d) => draftOf(pool, d.selected));
  }
  const check = useMemo(() => checkDraft(draft), [draft]);

  useEffect(() => {
    const d = dialog.current;
    if (d && !d.open) d.showModal();
  }, []);

  useEffect(() => {
    const id = focusTarget.current;
    if (!id) return;
    focusTarget.current = null;
    document.getElementById(id)?.focus();
  });

  const edit = (e: PoolEdit): void => {
    const next = editDraft(draft, e);
    focusTarget.current = focusAfter(next, e, idPrefix);
    setDraft(next);
  };

  const importFile = async (file: File): Promise<void> => {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit; parseRolePool then counts characters.
    const text = await readFileText(file, MAX_ROLE_POOL_CHARS * 3);
    const parsed = text.ok ? parseRolePool(text.value) : text;
    if (!parsed.ok) {
      setNotice({ kind: 'error', title: `${file.name} could not be imported`, problems: parsed.errors });
      return;
    }
    setDraft((d) => editDraft(d, { type: 'replace', pool: parsed.value }));
    setNotice({
      kind: 'ok',
      message: `Imported ${file.name} (${parsed.value.version}, ${plural(parsed.value.roles.length, 'role')}). Apply to use it.`,
      warnings: parsed.warnings,
    });
  };

  return (
    <dialog
      ref={dialog}
      className="dialog roles-dialog"
      aria-labelledby={`${idPrefix}-title`}
      onClose={onClose}
      data-testid="roles-dialog"
    >
      <RolePoolEditorView
        pool={pool}
        draft={draft}
        check={check}
        saved={saved}
        notice={notice}
        idPrefix={idPrefix}
        titleId={`${idPrefix}-title`}
        onEdit={edit}
        onApply={() => {
          if (check.problems.length === 0) onApply(check.pool);
        }}
        onLoadVersion={onLoadVersion}
        onImport={() => fileInput.current?.click()}
        onExport={() => {
          if (check.problems.length === 0)
            downloadText(poolFileName(check.pool.version), serializeRolePool(check.pool));
        }}
        onDismissNotice={() => setNotice(null)}
        onClose={() => dialog.current?.close()}
      />
      <input
        ref={fileInput}
        type="file"
        accept=".json,application/json"
        hidden
        data-testid="roles-file"
        onChange={(e) => {
          const f = e.target.files?.[0];
          if (f) void importFile(f);
          e.target.value = '';
        }}
      />
    </dialog>
  );
}
