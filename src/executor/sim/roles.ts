/**
 * What a simulated agent's instruction asks of it. A construction policy's agents carry their role's
 * instruction as their description ("You are the Planner. <prompt> <refuse condition>"), and not
 * every role answers the task: a Planner splits it, a Decomposer lists sub-questions, a Critic
 * points out errors, an Extractor copies an answer it was given. The simulator reads the duty and
 * the refuse condition from the instruction's own words (cues below) and behaves accordingly, so a
 * partial MAS that ends in such an agent has no answer yet. Agents whose instruction has none of the
 * cues (hand-written and imported designs, answering roles) solve, as before.
 *
 * Pure: the description in, a duty and refuse rules out. docs/simulator.md lists the cues.
 */
import type { Agent } from '../../core/trace.ts';

/**
 * - `solve`: answers its assignment (every agent without another duty);
 * - `decompose`: lists the sub-questions of the task in dependency order, answers none;
 * - `plan`: lists the independent parts of the task as work items, solves none;
 * - `critique`: reviews the proposed solution in its inputs, gives no answer of its own;
 * - `extract`: restates the answer its inputs give, without recomputing;
 * - `combine`: the summariser: combines the answers in its inputs (needs at least one).
 */
export type Duty = 'solve' | 'decompose' | 'plan' | 'critique' | 'extract' | 'combine';

/** When an agent must reply "REFUSE: …" instead of working, as its instruction says. */
export type RefuseRule =
  /** the task has one part, or every part depends on another */
  | 'one-part'
  /** the input already is a list of sub-questions (or work items) */
  | 'already-split'
  /** the task needs a single step */
  | 'single-step'
  /** nothing in the inputs proposes an answer (to verify, criticise or extract) */
  | 'no-answer-in-input'
  /** the task states every fact it needs (generated tasks always do) */
  | 'self-contained';

/** Duty cues, tried in order on the description; the first that matches wins. */
const DUTY_CUES: readonly { duty: Exclude<Duty, 'solve' | 'combine'>; cue: RegExp }[] = [
  { duty: 'decompose', cue: /sub-questions\b[^.]*\.\s*Do not answer them\b/i },
  { duty: 'plan', cue: /\bindependent parts\b[\s\S]*?\bDo not solve them\b/i },
  { duty: 'critique', cue: /\bDo not give a new answer\b/i },
  { duty: 'extract', cue: /\bwithout recomputing\b/i },
];

/**
 * Refuse cues: each names a condition the simulator can decide on a generated task. Conditions it
 * cannot decide ("the answer is obvious") or that never hold there ("a needed value is missing":
 * generated tasks state every value) have no cue, so those agents never refuse.
 */
const REFUSE_CUES: readonly { rule: RefuseRule; cue: RegExp }[] = [
  { rule: 'one-part', cue: /\bREFUSE\b[\s\S]*\bhas only one part\b/i },
  { rule: 'already-split', cue: /\bREFUSE\b[\s\S]*\balready a list of sub-questions\b/i },
  { rule: 'single-step', cue: /\bREFUSE\b[\s\S]*\bneeds a single step\b/i },
  {
    rule: 'no-answer-in-input',
    cue: /\bREFUSE\b[\s\S]*\b(no proposed answer|no solution in the inputs|no input contains an answer)\b/i,
  },
  { rule: 'self-contained', cue: /\bREFUSE\b[\s\S]*\bself-contained\b/i },
];

export interface Instruction {
  duty: Duty;
  refuse: RefuseRule[];
}

/** The duty and the refuse rules an agent's instruction gives it. */
export function instructionOf(agent: Pick<Agent, 'type' | 'description'>): Instruction {
  if (agent.type === 'SummarizerAgent') return { duty: 'combine', refuse: [] };
  const text = agent.description;
  const duty = DUTY_CUES.find((d) => d.cue.test(text))?.duty ?? 'solve';
  const refuse = REFUSE_CUES.filter((r) => r.cue.test(text)).map((r) => r.rule);
  return { duty, refuse };
}

/**
 * `instructionOf` read once per description (the simulator asks on every call, and a role's
 * instruction is the same text call after call); shared, so not to be changed by the caller.
 */
const readings = new Map<string, Readonly<Instruction>>();
const READINGS_LIMIT = 512;

const COMBINE: Readonly<Instruction> = { duty: 'combine', refuse: [] };

export function readInstruction(agent: Pick<Agent, 'type' | 'description'>): Readonly<Instruction> {
  if (agent.type === 'SummarizerAgent') return COMBINE;
  let r = readings.get(agent.description);
  if (r === undefined) {
    r = instructionOf(agent);
    if (readings.size >= READINGS_LIMIT) readings.clear();
    readings.set(agent.description, r);
  }
  return r;
}
