import type { JSX } from 'react';
import { MAX_ROLES, type DraftCheck, type PoolDraft, type PoolEdit } from '../../store/construction.ts';
import { plural } from '../common/format.ts';

/** The roles in node-head order, each with its problems, move and remove buttons; then Add role. */
export function RoleList({
  draft,
  check,
  idPrefix,
  onEdit,
}: {
  draft: PoolDraft;
  check: DraftCheck;
  idPrefix: string;
  onEdit(edit: PoolEdit): void;
}): JSX.Element {
  const errorCount = (i: number): number =>
    [...check.byField.entries()].reduce((n, [k, v]) => (k.startsWith(`${i}.`) ? n + v.length : n), 0);
  const last = draft.roles.length - 1;
  return (
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
                id={`${idPrefix}-r${r.key}-pick`}
                aria-current={i === draft.selected ? 'true' : undefined}
                onClick={() => onEdit({ type: 'select', index: i })}
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
                  id={`${idPrefix}-r${r.key}-up`}
                  aria-label={`Move ${name} up`}
                  disabled={i === 0}
                  onClick={() => onEdit({ type: 'move', index: i, by: -1 })}
                >
                  ↑
                </button>
                <button
                  type="button"
                  className="btn btn-ghost btn-small"
                  id={`${idPrefix}-r${r.key}-down`}
                  aria-label={`Move ${name} down`}
                  disabled={i === last}
                  onClick={() => onEdit({ type: 'move', index: i, by: 1 })}
                >
                  ↓
                </button>
                <button
                  type="button"
                  className="btn btn-ghost btn-small"
                  aria-label={`Remove ${name}`}
                  disabled={draft.roles.length <= 1}
                  onClick={() => onEdit({ type: 'remove', index: i })}
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
        onClick={() => onEdit({ type: 'add' })}
        data-testid="roles-add"
      >
        Add role
      </button>
      <span className="muted small">
        {plural(draft.roles.length, 'role')} (at most {MAX_ROLES})
      </span>
    </div>
  );
}
