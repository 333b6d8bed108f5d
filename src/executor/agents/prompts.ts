/**
 * Every prompt the agent archive sends, in one place so they can be read and tuned together.
 * Each call's first user message starts with the agent's input, verbatim: the simulator and
 * anyone reading a trace can find the assignment there. The agent's description (its role) goes
 * into the system message (`withRole`), never into a user message, so the input stays verbatim.
 */
import type { ChatMessage } from '../../core/trace.ts';
import type { CallKind } from '../types.ts';

const BOXED =
  'End with the final answer in \\boxed{}; for several answers, \\boxed{a, b, c} in the order asked.';

export const SYSTEM = {
  solver: `You are a careful problem solver. Think step by step, state each intermediate value you compute, and check your arithmetic. ${BOXED}`,
  critic:
    'You are a strict reviewer. Check the proposed solution step by step against the task. Reply with ACCEPT on the first line if it is correct, or REJECT on the first line followed by what is wrong.',
  judge: `You are the judge of a debate. Weigh the arguments, decide which answer is right, and explain why in a few sentences. ${BOXED}`,
  ceo: 'You are the CEO of a team of experts solving a task. Each turn you decide whether the discussion should continue, how many experts to recruit (1 to 4), what direction they should take, and how many tokens each may use. Reply with JSON only: {"decision": "continue" | "stop", "recruit": <1-4>, "direction": "<one sentence>", "token_budget": <tokens per expert>}.',
  recruiter:
    'You recruit experts for a task. Name the experts the task needs, one per line, as "Name: what they are good at".',
  evaluator: `You are the evaluator of a team discussion. Read the final solution and the reviews, and state the final answer. ${BOXED}`,
  summarizer: `You combine the intermediate answers of several agents into the final answer of the task. Use the answers that are consistent with the task; recompute any that are not. ${BOXED}`,
  extractor:
    'You extract the final answer from the text you are given. Reply with one short sentence and the answer in \\boxed{}.',
} as const;

const user = (content: string): ChatMessage => ({ role: 'user', content });
const system = (content: string): ChatMessage => ({ role: 'system', content });

/**
 * How an agent's description is handed to the model, by what the call does: the agent's own work
 * (answers, debate turns, revisions, judgements, extraction) takes the role as its own; a critic
 * judges work done in that role (a plan is not a wrong answer); the CEO and its recruiter lead a
 * team that plays the role. Null for an empty description: the plain prompt is sent.
 */
export function roleLine(description: string, kind: CallKind): string | null {
  const role = description.trim();
  if (role === '') return null;
  if (kind === 'critic') return `The work under review was done in this role: ${role}`;
  if (kind === 'ceo' || kind === 'recruit') return `Your team's role in the larger system: ${role}`;
  return `Your role in this team: ${role}`;
}

/**
 * The messages with the agent's role appended to the first system message (or put first as one,
 * when there is none). Designs built by a construction policy store the role's instruction in the
 * description; without this a remote Planner would simply solve the task.
 */
export function withRole(
  messages: readonly ChatMessage[],
  description: string,
  kind: CallKind,
): ChatMessage[] {
  const line = roleLine(description, kind);
  if (line === null) return [...messages];
  const at = messages.findIndex((m) => m.role === 'system');
  if (at === -1) return [system(line), ...messages];
  return messages.map((m, i) => (i === at ? { ...m, content: `${m.content}\n\n${line}` } : m));
}

/** CoT, SC samples, Reflexion's first answer, debate round 1, web search fallback. */
export function solveMessages(input: string, guidance?: string): ChatMessage[] {
  return [system(SYSTEM.solver), user(guidance ? `${input}\n\n${guidance}` : input)];
}

export function debateOpening(input: string, role: string): ChatMessage[] {
  return [
    system(`${SYSTEM.solver} In this debate you argue as: ${role}.`),
    user(`${input}\n\nGive your answer from the point of view of ${role}.`),
  ];
}

/** Debate rounds after the first: the role sees every other role's answer from the last round. */
export function debateRound(
  input: string,
  role: string,
  own: string,
  others: readonly { role: string; answer: string }[],
): ChatMessage[] {
  const theirs = others.map((o) => `### ${o.role}\n${o.answer}`).join('\n\n');
  return [
    system(`${SYSTEM.solver} In this debate you argue as: ${role}.`),
    user(input),
    { role: 'assistant', content: own },
    user(
      `The other debaters answered:\n\n${theirs}\n\nConsider their reasoning. Where they are right, update your answer; where they are wrong, say why. Then give your answer again.`,
    ),
  ];
}

export function debateDecision(
  input: string,
  answers: readonly { role: string; answer: string }[],
): ChatMessage[] {
  const all = answers.map((a) => `### ${a.role}\n${a.answer}`).join('\n\n');
  return [
    system(SYSTEM.judge),
    user(`${input}\n\nThe debaters' final answers:\n\n${all}\n\nDecide the answer.`),
  ];
}

export function criticMessages(input: string, answer: string): ChatMessage[] {
  return [system(SYSTEM.critic), user(`${input}\n\nProposed solution:\n${answer}`)];
}

export function revisionMessages(input: string, answer: string, critique: string): ChatMessage[] {
  return [
    system(SYSTEM.solver),
    user(input),
    { role: 'assistant', content: answer },
    user(
      `A reviewer rejected this solution:\n${critique}\n\nRe-check every step, including any value you were given or told, and write a corrected solution.`,
    ),
  ];
}

export function ceoMessages(input: string, turn: number, history: readonly string[]): ChatMessage[] {
  const so = history.length > 0 ? `\n\nThe discussion so far:\n${history.join('\n\n')}` : '';
  return [system(SYSTEM.ceo), user(`${input}${so}\n\nTurn ${turn}: your decision, as JSON.`)];
}

export function recruiterMessages(input: string, count: number, direction: string): ChatMessage[] {
  return [
    system(SYSTEM.recruiter),
    user(
      `${input}\n\nRecruit ${count} expert${count === 1 ? '' : 's'}. Direction from the CEO: ${direction}`,
    ),
  ];
}

export function expertSolveMessages(
  input: string,
  expert: string,
  direction: string,
  critiques: readonly string[],
): ChatMessage[] {
  const prior =
    critiques.length > 0 ? `\n\nReviews of the previous solution:\n${critiques.join('\n\n')}` : '';
  return [
    system(`${SYSTEM.solver} You are ${expert}.`),
    user(`${input}\n\nDirection from the CEO: ${direction}${prior}`),
  ];
}

export function expertCriticMessages(input: string, expert: string, solution: string): ChatMessage[] {
  return [system(`${SYSTEM.critic} You are ${expert}.`), user(`${input}\n\nProposed solution:\n${solution}`)];
}

export function evaluatorMessages(
  input: string,
  solution: string,
  reviews: readonly string[],
): ChatMessage[] {
  return [
    system(SYSTEM.evaluator),
    user(`${input}\n\nFinal solution:\n${solution}\n\nReviews:\n${reviews.join('\n\n') || '(none)'}`),
  ];
}

export function summarizerMessages(input: string): ChatMessage[] {
  return [system(SYSTEM.summarizer), user(input)];
}

export function extractMessages(input: string): ChatMessage[] {
  return [system(SYSTEM.extractor), user(input)];
}
