/**
 * The MasHost role pool: the roles a construction policy can ADD. Each role names the archive agent
 * type that runs it, the prompt Baton writes for it, what it does, and when it must refuse (MasHost
 * gives every role explicit refuse conditions so an agent that cannot help says so instead of
 * guessing). The pool is versioned: a checkpoint records the version it was trained on, because the
 * node head has one output per role in pool order. Users edit pools too: the file format, the
 * content-derived versions and the head-shape rule are below and in docs/roles.md.
 *
 * Over 400 lines because most of it is the default roles' prompts, which are data; the schema, the
 * file format and the versions that check them stay beside them.
 */
import { z } from 'zod';
import { AgentTypeSchema } from '../core/agents.ts';
import type { ErrorCode } from '../core/errors.ts';
import { fail, ok, type Problem, type Result } from '../core/result.ts';
import { hashString } from '../core/rng.ts';
import { distinctDebateRoles } from '../design/validate.ts';

/**
 * The default pool's version. Edited pools get a version derived from their content
 * (`withContentVersion`, `baton.roles/1+<8 hex>`); bump this one whenever DEFAULT_ROLES change, so
 * traces and checkpoints that name it keep meaning one list of roles.
 */
export const ROLE_POOL_VERSION = 'baton.roles/1';

/** Role names become agent ids (`<slug>-<n>`), so they use letters, digits, spaces and dashes. */
const roleName = z
  .string()
  .min(1)
  .max(40)
  .regex(/^[A-Za-z][A-Za-z0-9 -]*$/, 'role names use letters, digits, spaces and dashes');

export const RoleSchema = z
  .object({
    name: roleName,
    /** The archive agent type that runs this role. SummarizerAgent is reserved for EXIT. */
    agentType: AgentTypeSchema.exclude(['SummarizerAgent']),
    /** The instruction the agent receives (becomes the agent's description). */
    prompt: z.string().min(1).max(4_000),
    /** One line for the UI: what the role contributes. */
    does: z.string().min(1).max(400),
    /** When the agent must answer "REFUSE: <reason>" instead of attempting the work. */
    refuseWhen: z.string().min(1).max(1_000),
    /** DebateAgent: the roles that argue (the validator needs at least two). */
    debateRoles: z.array(z.string().min(1).max(80)).min(2).max(8).optional(),
  })
  .superRefine((r, ctx) => {
    // The same count as design rule 11, so a pool never builds a design the validator rejects.
    if (r.agentType === 'DebateAgent' && distinctDebateRoles(r.debateRoles ?? []) < 2) {
      ctx.addIssue({
        code: 'custom',
        message:
          'a DebateAgent role needs at least two different debate roles (compared trimmed, ignoring case)',
        path: ['debateRoles'],
      });
    }
  });
export type Role = z.infer<typeof RoleSchema>;

/**
 * Names that are repeated (case-insensitively) or reserved for the head's other actions, by role
 * index. Takes unchecked roles so editors can report clashes while other fields are still wrong.
 */
function nameClashes(roles: readonly unknown[]): { index: number; message: string }[] {
  const out: { index: number; message: string }[] = [];
  const seen = new Set<string>();
  roles.forEach((r, index) => {
    const name = (r as { name?: unknown } | null)?.name;
    if (typeof name !== 'string' || name === '') return;
    const key = name.toLowerCase();
    if (seen.has(key) || key === 'delete' || key === 'exit') {
      out.push({ index, message: `role name "${name}" is repeated or reserved` });
    }
    seen.add(key);
  });
  return out;
}

/** A user-edited pool: 1..32 roles with distinct names (case-insensitive). */
export const RolePoolSchema = z
  .object({
    version: z.string().min(1).max(80),
    roles: z.array(RoleSchema).min(1).max(32),
  })
  .superRefine((p, ctx) => {
    for (const { index, message } of nameClashes(p.roles)) {
      ctx.addIssue({ code: 'custom', message, path: ['roles', index, 'name'] });
    }
  });
export type RolePool = z.infer<typeof RolePoolSchema>;

const REFUSE = 'Reply exactly "REFUSE: <one-line reason>" and nothing else';

/** The default pool. Order matters: it is the order of the node head's role outputs. */
export const DEFAULT_ROLES: readonly Role[] = [
  {
    name: 'Decomposer',
    agentType: 'CoTAgent',
    prompt:
      'Break the task into a numbered list of sub-questions, ordered so that each one can be answered from the ' +
      'question and the answers before it. Do not answer them.',
    does: 'Splits a deep task into an ordered chain of sub-questions.',
    refuseWhen: `${REFUSE} when the task needs a single step, or when the input is already a list of sub-questions.`,
  },
  {
    name: 'Planner',
    agentType: 'CoTAgent',
    prompt:
      'Identify the independent parts of the task (parts that share no intermediate result) and list them as ' +
      'separate work items that can be solved in parallel. Do not solve them.',
    does: 'Splits a task into independent branches that can run in parallel.',
    refuseWhen: `${REFUSE} when the task has only one part, or when every part depends on another.`,
  },
  {
    name: 'Solver',
    agentType: 'CoTAgent',
    prompt:
      'Solve the next unanswered sub-question (or the whole task when there is no plan), reasoning step by step. ' +
      'State the result as "Answer: <value>".',
    does: 'Reasons step by step to answer one sub-question or the task.',
    refuseWhen: `${REFUSE} when a value the question needs is missing from the question and the inputs.`,
  },
  {
    name: 'Calculator',
    agentType: 'CoTAgent',
    prompt:
      'Carry out the arithmetic in the inputs exactly, one operation per line, applying any modulus after every ' +
      'operation. Give the final value as "Answer: <value>".',
    does: 'Does exact arithmetic on values other agents produced.',
    refuseWhen: `${REFUSE} when the inputs contain no arithmetic to carry out.`,
  },
  {
    name: 'Consensus Solver',
    agentType: 'SCAgent',
    prompt: 'Solve the task independently, step by step, and end with "Answer: <value>".',
    does: 'Samples several solutions and keeps the majority answer.',
    refuseWhen: `${REFUSE} when a value the question needs is missing from the question and the inputs.`,
  },
  {
    name: 'Verifier',
    agentType: 'ReflexionAgent',
    prompt:
      'Check the proposed answer against the question: recompute every step, ignore notes or hints that the ' +
      'question itself does not support, and correct the answer when a step is wrong. End with "Answer: <value>".',
    does: 'Re-derives a proposed answer and corrects it; ignores misleading notes.',
    refuseWhen: `${REFUSE} when there is no proposed answer in the inputs to verify.`,
  },
  {
    name: 'Critic',
    agentType: 'CoTAgent',
    prompt:
      'List the specific errors in the proposed solution (wrong step, misread quantity, trusted a misleading ' +
      'note). Do not give a new answer.',
    does: 'Points out errors in earlier outputs without answering.',
    refuseWhen: `${REFUSE} when there is no solution in the inputs to criticise.`,
  },
  {
    name: 'Debate Panel',
    agentType: 'DebateAgent',
    prompt:
      'Debate the answer: each side argues from the question and the inputs, answers the other side, and the ' +
      'panel ends with "Answer: <value>".',
    does: 'Two debaters argue over rounds, then decide.',
    refuseWhen: `${REFUSE} when the task has a single obvious answer that needs no argument.`,
    debateRoles: ['Proponent', 'Skeptic'],
  },
  {
    name: 'Researcher',
    agentType: 'WebSearchAgent',
    prompt:
      'Search for the facts the task needs that are not stated in it, and report them with their sources.',
    does: 'Looks up outside facts the task does not state.',
    refuseWhen: `${REFUSE} when the task is self-contained (every fact it needs is stated in it).`,
  },
  {
    name: 'Extractor',
    agentType: 'ExtractAgent',
    prompt:
      'Extract the final answer(s) from the inputs in the exact form the question asks for (order, separator, ' +
      'units), without recomputing.',
    does: 'Puts the answer in the exact requested format.',
    refuseWhen: `${REFUSE} when no input contains an answer to extract.`,
  },
];

export const DEFAULT_POOL: RolePool = { version: ROLE_POOL_VERSION, roles: [...DEFAULT_ROLES] };

/** The prompt of the final summariser that EXIT adds (a SummarizerAgent, not part of the pool). */
export const SUMMARIZER_PROMPT =
  'Combine the intermediate answers in the inputs into the final answer to the original question. Where they ' +
  'disagree, prefer the one with a verified derivation. Give the answer in the form the question asks for.';

/** `Decomposer` → `decomposer`, `Debate Panel` → `debate-panel` (agent id prefix). */
export function roleSlug(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** The full instruction an agent of this role receives: its prompt and its refuse condition. */
export function roleInstruction(role: Role): string {
  return `You are the ${role.name}. ${role.prompt} ${role.refuseWhen}`;
}

// ---------------------------------------------------------------- user-edited pools

/**
 * The file format of a role pool (`*.baton-roles.json`), the same string as the default pool's
 * version: the part of a version before `+` names the schema its roles follow.
 */
export const ROLE_POOL_FORMAT = 'baton.roles/1';

/**
 * Largest role pool text accepted, in UTF-16 code units (256 KiB). A pool at every schema maximum
 * (32 roles × ≈6,100 characters of text) serialises to ≈205,000, so this refuses only files that
 * are not role pools, or are padded.
 */
export const MAX_ROLE_POOL_CHARS = 262_144;

/** The archive agent types a role may use (RoleSchema's list: every type but SummarizerAgent). */
export const ROLE_AGENT_TYPES = RoleSchema.shape.agentType.options;

/** The start of every default refuse condition, for new roles to complete. */
export const REFUSE_REPLY = REFUSE;

/** The checkpoint format, repeated: checkpoint.ts reaches this module through encoder.ts. */
const POLICY_FILE_FORMAT = 'baton.policy/1';

/** Codes a role-pool file can fail with; their sentences are in core/errors.ts. */
type RolePoolErrorCode = Extract<ErrorCode, 'E_ROLES_FORMAT' | 'E_ROLES_SCHEMA' | 'E_JSON' | 'E_TOO_LARGE'>;

const problem = (code: RolePoolErrorCode, message: string, path?: string): Problem =>
  path ? { code, message, path } : { code, message };

/** `['roles', 3, 'name']` → `roles[3].name`, the path style of `Problem.path`. */
function pathText(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out === '' ? String(p) : `.${String(p)}`;
  }
  return out;
}

const many = (n: number, one: string, other = `${one}s`): string => `${n} ${n === 1 ? one : other}`;

/** A sentence for one schema issue; custom messages (name rules, debates) are kept as written. */
function issueMessage(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'too_small': {
      const min = Number(issue.minimum);
      if (issue.origin === 'string')
        return min <= 1 ? 'must not be empty' : `needs at least ${many(min, 'character')}`;
      if (issue.origin === 'array') return `needs at least ${many(min, 'entry', 'entries')}`;
      return `must be at least ${min}`;
    }
    case 'too_big': {
      const max = Number(issue.maximum);
      if (issue.origin === 'string') return `must be at most ${many(max, 'character')}`;
      if (issue.origin === 'array') return `may have at most ${many(max, 'entry', 'entries')}`;
      return `must be at most ${max}`;
    }
    case 'invalid_type': {
      if (issue.input === undefined) return 'is missing';
      const noun =
        { array: 'a list', object: 'an object' }[issue.expected as string] ?? `a ${issue.expected}`;
      return `must be ${noun}`;
    }
    case 'invalid_value':
      return issue.input === undefined
        ? 'is missing'
        : `must be one of ${issue.values.map(String).join(', ')}`;
    default:
      return issue.message;
  }
}

/**
 * Every problem of a candidate pool `{ version, roles }`, with paths like `roles[3].name` and plain
 * messages (for inline errors; `parseRolePool` prefixes the path). Empty when RolePoolSchema accepts
 * it. Repeated and reserved names are reported even while other fields are wrong, although the
 * schema checks them only once every role parses.
 */
export function rolePoolIssues(value: unknown): Problem[] {
  // reportInput: the issues carry the offending value, so a missing field reads as missing.
  const parsed = RolePoolSchema.safeParse(value, { reportInput: true });
  if (parsed.success) return [];
  const out = parsed.error.issues.map((i) => problem('E_ROLES_SCHEMA', issueMessage(i), pathText(i.path)));
  const roles = (value as { roles?: unknown } | null)?.roles;
  if (Array.isArray(roles)) {
    for (const { index, message } of nameClashes(roles)) {
      const path = pathText(['roles', index, 'name']);
      if (!out.some((p) => p.path === path && p.message === message)) {
        out.push(problem('E_ROLES_SCHEMA', message, path));
      }
    }
  }
  return out;
}

/** A role with its keys in file order and only the keys the schema knows. */
function canonicalRole(r: Role): Role {
  const out: Role = {
    name: r.name,
    agentType: r.agentType,
    prompt: r.prompt,
    does: r.does,
    refuseWhen: r.refuseWhen,
  };
  if (r.debateRoles !== undefined) out.debateRoles = [...r.debateRoles];
  return out;
}

const rolesText = (roles: readonly Role[]): string => JSON.stringify(roles.map(canonicalRole));

const DEFAULT_ROLES_TEXT = rolesText(DEFAULT_ROLES);

/** Whether the pool's roles are exactly the default roles (every field, in order), whatever its version says. */
export function isDefaultPool(pool: RolePool): boolean {
  return rolesText(pool.roles) === DEFAULT_ROLES_TEXT;
}

/**
 * The pool with the version its content gets: `baton.roles/1` for the default roles, otherwise
 * `baton.roles/1+<h>` where h is the 32-bit FNV-1a hash (`hashString`) of the canonical JSON of the
 * roles, as 8 lowercase hex digits. The same roles always get the same version; any change to any
 * field, or to the order, gets another (barring a 1-in-2³² collision). Returns the same object when
 * its version is already right.
 */
export function withContentVersion(pool: RolePool): RolePool {
  const version = isDefaultPool(pool)
    ? ROLE_POOL_VERSION
    : `${ROLE_POOL_FORMAT}+${hashString(rolesText(pool.roles)).toString(16).padStart(8, '0')}`;
  return version === pool.version ? pool : { version, roles: pool.roles };
}

/**
 * Pretty JSON (2-space indent, trailing newline) of the pool as a `baton.roles/1` file:
 * `{ format, version, roles }`, keys in a fixed order, the version derived from the content. The
 * same roles always give the same text.
 */
export function serializeRolePool(pool: RolePool): string {
  const { version, roles } = withContentVersion(pool);
  return `${JSON.stringify({ format: ROLE_POOL_FORMAT, version, roles: roles.map(canonicalRole) }, null, 2)}\n`;
}

/**
 * Reads a role pool file. Never throws. The text must be at most `MAX_ROLE_POOL_CHARS`, JSON, an
 * object with `format: "baton.roles/1"` and `roles` that RolePoolSchema accepts; `version` may be
 * left out. The version is always derived from the content: a file whose `version` disagrees is
 * accepted with a warning and gets the derived one.
 */
export function parseRolePool(text: string): Result<RolePool> {
  if (text.length > MAX_ROLE_POOL_CHARS) {
    return fail(
      problem(
        'E_TOO_LARGE',
        `a role pool is at most ${MAX_ROLE_POOL_CHARS / 1024} KB of text; this one is ${Math.ceil(text.length / 1024)} KB`,
      ),
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return fail(
      problem('E_JSON', `the file is not valid JSON (${e instanceof Error ? e.message : String(e)})`),
    );
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return fail(problem('E_ROLES_FORMAT', `expected a JSON object with "format": "${ROLE_POOL_FORMAT}"`));
  }
  const obj = raw as Record<string, unknown>;
  if (obj.format !== ROLE_POOL_FORMAT) {
    const said = typeof obj.format === 'string' ? `"${obj.format.slice(0, 80)}"` : 'missing';
    const hint =
      obj.format === POLICY_FILE_FORMAT
        ? ' — this is a policy checkpoint; load it as a checkpoint'
        : typeof obj.format === 'string' && obj.format.startsWith('baton.roles/')
          ? ' — the file was written by another version of Baton'
          : '';
    return fail(
      problem('E_ROLES_FORMAT', `"format" must be "${ROLE_POOL_FORMAT}", it is ${said}${hint}`, 'format'),
    );
  }
  const candidate = { version: obj.version ?? ROLE_POOL_VERSION, roles: obj.roles };
  const issues = rolePoolIssues(candidate);
  if (issues.length > 0) {
    return fail(
      ...issues.slice(0, 20).map((p) => (p.path ? { ...p, message: `${p.path}: ${p.message}` } : p)),
    );
  }
  const pool = withContentVersion(RolePoolSchema.parse(candidate));
  const warnings: Problem[] = [];
  if (obj.version !== undefined && obj.version !== pool.version) {
    warnings.push(
      problem(
        'E_ROLES_SCHEMA',
        `the file says version "${String(obj.version)}", its roles are version "${pool.version}" (versions are derived from the roles)`,
        'version',
      ),
    );
  }
  return ok(pool, warnings);
}

/** How two pools' node heads differ: the role names in order, which a checkpoint is made for. */
export interface HeadChange {
  /** Role names of the first pool, in head order. */
  from: string[];
  /** Role names of the second pool, in head order. */
  to: string[];
  /** Names only in the second pool (a renamed role counts as removed and added). */
  added: string[];
  /** Names only in the first pool. */
  removed: string[];
  /** Whether the names both pools share come in a different order. */
  reordered: boolean;
  /** One sentence, e.g. `10 → 11 roles; added "Auditor"`. */
  message: string;
}

/**
 * Whether going from pool `a` to pool `b` changes the node head. The head has one output per role,
 * in pool order, and a checkpoint is made for that exact list of names (`incompatibility` in
 * checkpoint.ts compares them case-sensitively), so adding, removing, renaming (even only the case)
 * or reordering roles changes it: checkpoints made for one pool cannot drive the other, and only
 * `prior` and `random`, which are built for any pool, apply to both. Changing only a role's agent
 * type, prompt, summary, refuse condition or debate roles keeps the head: checkpoints still apply
 * (the agents they add behave differently). Returns null when the head is the same.
 */
export function headChange(a: RolePool, b: RolePool): HeadChange | null {
  const from = a.roles.map((r) => r.name);
  const to = b.roles.map((r) => r.name);
  if (from.length === to.length && from.every((n, i) => n === to[i])) return null;
  const added = to.filter((n) => !from.includes(n));
  const removed = from.filter((n) => !to.includes(n));
  const keptFrom = from.filter((n) => to.includes(n));
  const keptTo = to.filter((n) => from.includes(n));
  const reordered = keptFrom.some((n, i) => n !== keptTo[i]);
  const quote = (ns: string[]): string => ns.map((n) => `"${n}"`).join(', ');
  const parts = [from.length === to.length ? `${to.length} roles` : `${from.length} → ${to.length} roles`];
  if (removed.length > 0) parts.push(`removed ${quote(removed)}`);
  if (added.length > 0) parts.push(`added ${quote(added)}`);
  if (reordered) parts.push('order changed');
  return { from, to, added, removed, reordered, message: parts.join('; ') };
}
