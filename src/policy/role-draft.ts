/**
 * The role-pool editor's draft: roles as typed (raw strings, so half-typed values survive until
 * they are valid), the edits the dialog makes, and the check that turns a draft into a pool. Pure,
 * so it is tested without rendering.
 */
import type { Problem } from '../core/result.ts';
import {
  MAX_ROLE_POOL_CHARS,
  REFUSE_REPLY,
  ROLE_AGENT_TYPES,
  rolePoolIssues,
  serializeRolePool,
  withContentVersion,
  type Role,
  type RolePool,
} from './roles.ts';

export type RoleAgentType = Role['agentType'];

/** A role as typed: raw strings, so half-typed values survive until they are valid. */
export interface RoleDraft {
  /** Stable React key; survives moves. */
  key: number;
  name: string;
  agentType: RoleAgentType;
  prompt: string;
  does: string;
  refuseWhen: string;
  /** One debate role per line (used only for DebateAgent roles). */
  debateRoles: string;
}

export interface PoolDraft {
  roles: RoleDraft[];
  /** Index of the role shown in the form. */
  selected: number;
  nextKey: number;
}

export type RoleField = 'name' | 'agentType' | 'prompt' | 'does' | 'refuseWhen' | 'debateRoles';

/** Every change the editor makes to its draft. */
export type PoolEdit =
  | { type: 'set'; index: number; field: RoleField; value: string }
  | { type: 'select'; index: number }
  | { type: 'add' }
  | { type: 'remove'; index: number }
  | { type: 'move'; index: number; by: -1 | 1 }
  /** Reset to default, an imported file, or the pool in use after it changed. */
  | { type: 'replace'; pool: RolePool };

/** Most roles a pool may have (RolePoolSchema). */
export const MAX_ROLES = 32;

const roleDraft = (r: Role, key: number): RoleDraft => ({
  key,
  name: r.name,
  agentType: r.agentType,
  prompt: r.prompt,
  does: r.does,
  refuseWhen: r.refuseWhen,
  debateRoles: (r.debateRoles ?? []).join('\n'),
});

export function draftOf(pool: RolePool, selected = 0): PoolDraft {
  return {
    roles: pool.roles.map(roleDraft),
    selected: Math.min(Math.max(0, selected), Math.max(0, pool.roles.length - 1)),
    nextKey: pool.roles.length,
  };
}

/** `Role 11`, or the next free number, so an added role starts with a valid, distinct name. */
function freshName(roles: readonly RoleDraft[]): string {
  const taken = new Set(roles.map((r) => r.name.trim().toLowerCase()));
  let n = roles.length + 1;
  while (taken.has(`role ${n}`)) n++;
  return `Role ${n}`;
}

const isAgentType = (v: string): v is RoleAgentType => (ROLE_AGENT_TYPES as readonly string[]).includes(v);

export function editDraft(d: PoolDraft, e: PoolEdit): PoolDraft {
  switch (e.type) {
    case 'set': {
      const r = d.roles[e.index];
      if (!r) return d;
      let next: RoleDraft;
      if (e.field === 'agentType') {
        if (!isAgentType(e.value)) return d;
        // A new debate starts with two sides, the least the validator accepts.
        const debateRoles =
          e.value === 'DebateAgent' && r.debateRoles.trim() === '' ? 'Proponent\nSkeptic' : r.debateRoles;
        next = { ...r, agentType: e.value, debateRoles };
      } else {
        next = { ...r, [e.field]: e.value };
      }
      return { ...d, roles: d.roles.map((x, i) => (i === e.index ? next : x)) };
    }
    case 'select':
      return e.index >= 0 && e.index < d.roles.length ? { ...d, selected: e.index } : d;
    case 'add': {
      if (d.roles.length >= MAX_ROLES) return d;
      const role: RoleDraft = {
        key: d.nextKey,
        name: freshName(d.roles),
        agentType: 'CoTAgent',
        prompt: '',
        does: '',
        refuseWhen: `${REFUSE_REPLY} when `,
        debateRoles: '',
      };
      return { roles: [...d.roles, role], selected: d.roles.length, nextKey: d.nextKey + 1 };
    }
    case 'remove': {
      if (d.roles.length <= 1 || !d.roles[e.index]) return d;
      const roles = d.roles.filter((_, i) => i !== e.index);
      const selected = d.selected > e.index ? d.selected - 1 : Math.min(d.selected, roles.length - 1);
      return { ...d, roles, selected };
    }
    case 'move': {
      const to = e.index + e.by;
      const a = d.roles[e.index];
      const b = d.roles[to];
      if (!a || !b) return d;
      const roles = [...d.roles];
      roles[e.index] = b;
      roles[to] = a;
      const selected = d.selected === e.index ? to : d.selected === to ? e.index : d.selected;
      return { ...d, roles, selected };
    }
    case 'replace': {
      const roles = e.pool.roles.map((r, i) => roleDraft(r, d.nextKey + i));
      return {
        roles,
        selected: Math.min(d.selected, Math.max(0, roles.length - 1)),
        nextKey: d.nextKey + roles.length,
      };
    }
  }
}

const lines = (text: string): string[] =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');

/**
 * The pool a draft stands for: texts trimmed, debate roles one per non-empty line and kept only for
 * DebateAgent roles, the version derived from the content. Not necessarily valid: see `checkDraft`.
 */
export function poolOfDraft(d: PoolDraft): RolePool {
  const roles = d.roles.map((r): Role => {
    const role: Role = {
      name: r.name.trim(),
      agentType: r.agentType,
      prompt: r.prompt.trim(),
      does: r.does.trim(),
      refuseWhen: r.refuseWhen.trim(),
    };
    if (r.agentType === 'DebateAgent') role.debateRoles = lines(r.debateRoles);
    return role;
  });
  return withContentVersion({ version: '', roles });
}

export interface DraftCheck {
  pool: RolePool;
  /** Every problem, pool-level ones included; empty when the draft can be applied. */
  problems: Problem[];
  /** Messages per `<role index>.<field>`, for inline errors. */
  byField: ReadonlyMap<string, string[]>;
  /** Problems that belong to no single field (the number of roles, the file size). */
  general: string[];
}

export const fieldKey = (index: number, field: RoleField): string => `${index}.${field}`;

const FIELD_PATH = /^roles\[(\d+)\]\.(name|agentType|prompt|does|refuseWhen|debateRoles)(?:\[(\d+)\])?/;

/** Validates the draft's pool with RolePoolSchema (via `rolePoolIssues`) and the file size limit. */
export function checkDraft(d: PoolDraft): DraftCheck {
  const pool = poolOfDraft(d);
  const problems = rolePoolIssues(pool);
  if (problems.length === 0) {
    const size = serializeRolePool(pool).length;
    if (size > MAX_ROLE_POOL_CHARS) {
      problems.push({
        code: 'E_TOO_LARGE',
        message: `the pool's file would be ${Math.ceil(size / 1024)} KB; the limit is ${MAX_ROLE_POOL_CHARS / 1024} KB`,
      });
    }
  }
  const byField = new Map<string, string[]>();
  const general: string[] = [];
  for (const p of problems) {
    const m = FIELD_PATH.exec(p.path ?? '');
    if (!m) {
      general.push(p.path ? `${p.path}: ${p.message}` : p.message);
      continue;
    }
    const key = fieldKey(Number(m[1]), m[2] as RoleField);
    const message = m[3] === undefined ? p.message : `line ${Number(m[3]) + 1}: ${p.message}`;
    byField.set(key, [...(byField.get(key) ?? []), message]);
  }
  return { pool, problems, byField, general };
}
