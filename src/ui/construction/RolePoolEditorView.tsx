import type { JSX } from 'react';
import type { Problem } from '../../core/result.ts';
import {
  DEFAULT_POOL,
  headChange,
  withContentVersion,
  type DraftCheck,
  type HeadChange,
  type PoolDraft,
  type PoolEdit,
  type RolePool,
} from '../../store/construction.ts';
import { plural } from '../common/format.ts';
import { ProblemAlert } from '../common/ProblemAlert.tsx';
import { RoleForm } from './RoleForm.tsx';
import { RoleList } from './RoleList.tsx';
import { SavedPools, type SavedPool } from './SavedPools.tsx';

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
        <RoleList draft={draft} check={check} idPrefix={p.idPrefix} onEdit={p.onEdit} />
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

      <SavedPools saved={p.saved} inUse={inUse} idPrefix={p.idPrefix} onLoadVersion={p.onLoadVersion} />

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
