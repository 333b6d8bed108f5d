/**
 * What an agent is handed, following MAS-Orchestra: an empty input means the original question;
 * `${ID}` is replaced by agent ID's output; a non-empty input is a sub-task, so the original task
 * travels with it (MAS-Orchestra writes "Original task: …; Sub-task: …"; these are our words).
 */
import type { Agent } from '../core/trace.ts';
import { resolveReferences } from '../design/references.ts';

export const ORIGINAL_TASK_HEADING = 'The overall task:';
export const SUBTASK_HEADING = 'Your part of it:';

/** Placeholders start with this, so people and the simulator can tell them from real outputs. */
export const PLACEHOLDER_PREFIX = '[no output: agent ';

/** Failure reasons are cut to this many characters inside a placeholder. */
const MAX_REASON_CHARS = 300;

/** What dependents of a failed agent receive instead of its output. */
export function placeholderFor(agentId: string, reason: string): string {
  const short = reason.length > MAX_REASON_CHARS ? `${reason.slice(0, MAX_REASON_CHARS)}…` : reason;
  return `${PLACEHOLDER_PREFIX}${agentId} failed (${short}); work without it]`;
}

export function isPlaceholder(text: string): boolean {
  return text.startsWith(PLACEHOLDER_PREFIX);
}

/** The agent's input with references resolved and the original task carried along. */
export function agentInput(
  agent: Pick<Agent, 'input'>,
  task: string,
  outputs: ReadonlyMap<string, string>,
): string {
  if (agent.input.trim() === '') return task;
  const resolved = resolveReferences(agent.input, (id) => outputs.get(id));
  return `${ORIGINAL_TASK_HEADING}\n${task}\n\n${SUBTASK_HEADING}\n${resolved}`;
}

/** The sub-task part of an input built by {@link agentInput}, or null when it is the whole task. */
export function subtaskPart(input: string): string | null {
  const at = input.indexOf(`\n\n${SUBTASK_HEADING}\n`);
  if (!input.startsWith(ORIGINAL_TASK_HEADING) || at === -1) return null;
  return input.slice(at + SUBTASK_HEADING.length + 3);
}
