import type { JSX, ReactNode } from 'react';
import { AGENT_TYPE_INFO } from '../../core/agents.ts';
import {
  ROLE_AGENT_TYPES,
  fieldKey,
  type DraftCheck,
  type PoolDraft,
  type PoolEdit,
  type RoleAgentType,
  type RoleField,
} from '../../store/construction.ts';

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

/** The form of the selected role: name, agent type, prompt, summary, refuse condition, debate roles. */
export function RoleForm({
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
