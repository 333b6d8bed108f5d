/**
 * The MasHost role pool: the roles a construction policy can ADD. Each role names the archive agent
 * type that runs it, the prompt Baton writes for it, what it does, and when it must refuse (MasHost
 * gives every role explicit refuse conditions so an agent that cannot help says so instead of
 * guessing). The pool is versioned: a checkpoint records the version it was trained on, because the
 * node head has one output per role in pool order.
 */
import { z } from 'zod';
import { AgentTypeSchema } from '../core/agents.ts';

/** Bump when roles are added, removed, reordered or renamed (the node head's outputs change). */
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
    if (r.agentType === 'DebateAgent' && (r.debateRoles?.length ?? 0) < 2) {
      ctx.addIssue({
        code: 'custom',
        message: 'a DebateAgent role needs at least two debate roles',
        path: ['debateRoles'],
      });
    }
  });
export type Role = z.infer<typeof RoleSchema>;

/** A user-edited pool: 1..32 roles with distinct names (case-insensitive). */
export const RolePoolSchema = z
  .object({
    version: z.string().min(1).max(80),
    roles: z.array(RoleSchema).min(1).max(32),
  })
  .superRefine((p, ctx) => {
    const seen = new Set<string>();
    p.roles.forEach((r, i) => {
      const key = r.name.toLowerCase();
      if (seen.has(key) || key === 'delete' || key === 'exit') {
        ctx.addIssue({
          code: 'custom',
          message: `role name "${r.name}" is repeated or reserved`,
          path: ['roles', i, 'name'],
        });
      }
      seen.add(key);
    });
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
