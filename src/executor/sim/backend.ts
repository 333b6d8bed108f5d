/**
 * A `ChatBackend` whose "LLM calls" are answered by programmatic sub-agents for a generated
 * MASBench task: offline, free, and deterministic under a seed. Each call reads its assignment
 * (which sub-tasks, which answers it was handed), solves what is left by walking the sub-task
 * graph, and errs as the model in `model.ts` says. Outputs read like real answers (`\boxed{N}`),
 * so the same answer checking applies. The error and cost model is documented in docs/simulator.md.
 *
 * Kept in one file: every reply kind (solution, plan, decomposition, critique, refusal) reads the
 * same parsed assignment and seeded stream in one fixed order, and that order is what makes a seed
 * reproduce a run.
 */
import { lastBoxed, normalizeMathAnswer } from '../../answers/index.ts';
import type { MasBenchTask } from '../../masbench/index.ts';
import { hashString } from '../../core/rng.ts';
import { estimatePromptTokens, type ChatMessage as LlmMessage } from '../llm/index.ts';
import type { ChatBackend, ChatCall, ChatReply } from '../types.ts';
import { subtaskPart } from '../input.ts';
import { COST_MODEL, ERROR_MODEL, SIM_MODEL, factorsFor, slipChance } from './model.ts';
import { readInstruction, type RefuseRule } from './roles.ts';
import { CallRng, callSeed, callSeedPrefix, type SimRng } from './rng.ts';
import {
  holdsPlan,
  inputProposesAnswer,
  partsOf,
  preparedTask,
  questionFor,
  readInput,
  valueSentence,
  type SimTask,
} from './task.ts';

export interface SimulatedBackendOptions {
  /**
   * Real time slept per call = timeScale × modelled latency (base + per token, see COST_MODEL).
   * 0 (default) answers at once; 1 makes wall times look like a remote model's.
   */
  timeScale?: number;
  /**
   * How a modelled delay is waited for: resolves true when it elapsed, false when the call was
   * cancelled first. Default: a real timer. A virtual clock (e.g. the example generator's) passes its
   * own, so a run gets the modelled timeline without waiting for it.
   */
  sleep?: (ms: number, signal: AbortSignal) => Promise<boolean>;
}

/** What one solving call produced: a value per sub-task it stated, and how many steps it solved. */
interface Solution {
  values: Map<string, number>;
  steps: string[];
}

const mod = (x: number, m: number): number => ((x % m) + m) % m;

/** A wrong value that depends only on the sub-task and the (wrong) inputs it was computed from. */
function propagatedWrong(sim: SimTask, id: string, inputs: readonly number[], truth: number): number {
  const h = hashString(`${id}|${inputs.join(',')}`);
  return mod(truth + 1 + (h % (sim.modulus - 1)), sim.modulus);
}

/** Adds `id` and what it needs, down to values given, to `needed`, depth first. */
function markNeeded(
  sim: SimTask,
  id: string,
  needed: Set<string>,
  trusted: ReadonlyMap<string, number>,
): void {
  if (needed.has(id) || trusted.has(id)) return;
  needed.add(id);
  for (const d of sim.byId.get(id)?.deps ?? []) markNeeded(sim, d, needed, trusted);
}

/** Solves `targets` from the values it was given, walking the sub-task graph in dependency order. */
function solve(
  sim: SimTask,
  targets: readonly string[],
  given: ReadonlyMap<string, number>,
  call: ChatCall,
  rng: SimRng,
): Solution {
  const f = factorsFor(call.kind);
  // A revision re-checks given values of noted sub-tasks, and of everything computed from them,
  // instead of trusting them.
  const suspect = new Set<string>();
  if (f.recheckGiven) {
    for (const id of sim.order) {
      const s = sim.byId.get(id);
      if (s && (s.note || s.deps.some((d) => suspect.has(d)))) suspect.add(id);
    }
  }
  const trusted = new Map<string, number>();
  for (const [id, v] of given) if (!suspect.has(id)) trusted.set(id, v);
  const needed = new Set<string>();
  for (const t of targets) markNeeded(sim, t, needed, trusted);
  const steps = sim.order.filter((id) => needed.has(id));
  const values = new Map(trusted);
  for (const id of steps) {
    const s = sim.byId.get(id);
    if (!s) continue;
    const inputs = s.deps.map((d) => values.get(d) ?? sim.byId.get(d)?.answer ?? 0);
    const inputsWrong = s.deps.some((d, i) => inputs[i] !== sim.byId.get(d)?.answer);
    let value: number;
    if (s.note && s.note.claims !== null && rng.next() < ERROR_MODEL.noteFollow * f.note)
      value = s.note.claims;
    else if (inputsWrong) value = propagatedWrong(sim, id, inputs, s.answer);
    else if (rng.next() < slipChance(s.deps.length, steps.length, f.slip))
      value = mod(s.answer + 1 + rng.int(sim.modulus - 1), sim.modulus);
    else value = s.answer;
    values.set(id, value);
  }
  return { values, steps };
}

function solutionText(
  sim: SimTask,
  targets: readonly string[],
  sol: Solution,
  given: ReadonlyMap<string, number>,
): string {
  const lines = ['Working through the sub-tasks in dependency order.'];
  for (const t of targets) {
    const s = sim.byId.get(t);
    const v = sol.values.get(t);
    if (s && v !== undefined && given.get(t) === v && !sol.steps.includes(t))
      lines.push(`From the earlier result: ${valueSentence(s, v)}`);
  }
  for (const id of sol.steps) {
    const s = sim.byId.get(id);
    const v = sol.values.get(id);
    if (s && v !== undefined) lines.push(valueSentence(s, v));
  }
  const answers = targets.map((t) => sol.values.get(t) ?? 0);
  lines.push(`So the answer is \\boxed{${answers.join(', ')}}.`);
  return lines.join('\n');
}

/** All message text except the agent's own input: what other agents said in this call. */
function extraText(call: ChatCall): string {
  let out: string | null = null;
  for (const m of call.messages) {
    if (m.role === 'system') continue;
    const own = m.content.split(call.input).join('\n');
    out = out === null ? own : `${out}\n${own}`;
  }
  return out ?? '';
}

/** The true answer's key for `targets` (an array of the targets memo, so kept by identity). */
const truthKeys = new WeakMap<readonly string[], string>();

function truthKey(sim: SimTask, targets: readonly string[]): string {
  let k = truthKeys.get(targets);
  if (k === undefined) {
    k = normalizeMathAnswer(targets.map((t) => sim.byId.get(t)?.answer ?? 0).join(', '));
    truthKeys.set(targets, k);
  }
  return k;
}

/** One reply: its text and its completion tokens under the cost model. */
interface Reply {
  text: string;
  completionTokens: number;
}

/** The reply to a boxed answer `best` chosen from others' answers, with its values stated as sentences. */
function statedAnswer(
  sim: SimTask,
  targets: readonly string[],
  lead: string,
  best: string,
  tokens: number,
): Reply {
  // State the chosen values as sentences too, so agents downstream receive them as given.
  const parts = best.split(/\s*,\s*/);
  const stated =
    parts.length === targets.length
      ? targets.flatMap((t, i) => {
          const sub = sim.byId.get(t);
          const v = Number(parts[i]);
          return sub && Number.isInteger(v) ? [valueSentence(sub, v)] : [];
        })
      : [];
  return { text: [lead, ...stated, `\\boxed{${best}}`].join('\n'), completionTokens: tokens };
}

/**
 * Why an agent refuses, in its instruction's terms, or null. Reasons hold no digits, so the answer
 * checker finds no number in a refusal.
 */
function refusalReason(sim: SimTask, rules: readonly RefuseRule[], input: string): string | null {
  for (const rule of rules) {
    if (rule === 'one-part' && partsOf(sim).length < 2)
      return 'the task has only one part: every asked quantity depends on the same sub-tasks.';
    if (rule === 'already-split' && holdsPlan(subtaskPart(input) ?? ''))
      return 'the input is already a list of sub-questions.';
    if (rule === 'single-step' && sim.order.filter((id) => sim.needed.has(id)).length < 2)
      return 'the task needs a single step.';
    if (rule === 'no-answer-in-input' && !inputProposesAnswer(sim, input))
      return 'no input proposes an answer to work on.';
    if (rule === 'self-contained') return 'the task is self-contained: it states every fact it needs.';
  }
  return null;
}

/** Replies that depend on the task alone (a plan, a decomposition), made once per task. */
const decompositions = new WeakMap<SimTask, Reply>();
const plans = new WeakMap<SimTask, Reply>();

function perTask(kept: WeakMap<SimTask, Reply>, sim: SimTask, make: (sim: SimTask) => Reply): Reply {
  let r = kept.get(sim);
  if (r === undefined) {
    r = make(sim);
    kept.set(sim, r);
  }
  return r;
}

/** A Decomposer's reply: the needed sub-questions in dependency order, none answered. */
function decomposition(sim: SimTask): Reply {
  const ids = sim.order.filter((id) => sim.needed.has(id));
  const lines = ids.flatMap((id) => {
    const s = sim.byId.get(id);
    return s ? [`Sub-question: ${questionFor(s)}`] : [];
  });
  return {
    text: [
      'Sub-questions, in order; each can be answered from the question and the answers before it:',
      ...lines,
      'I have not answered them.',
    ].join('\n'),
    completionTokens: COST_MODEL.planBase + COST_MODEL.planPerItem * lines.length,
  };
}

/** A Planner's reply: one work item per independent part of the task, none solved. */
function plan(sim: SimTask): Reply {
  const items = partsOf(sim).map(
    (asks) =>
      `Work item: ${asks
        .flatMap((id) => {
          const s = sim.byId.get(id);
          return s ? [questionFor(s)] : [];
        })
        .join(' and ')}`,
  );
  return {
    text: [
      'Independent parts of the task (they share no intermediate result), to be solved separately:',
      ...items,
      'I have not solved them.',
    ].join('\n'),
    completionTokens: COST_MODEL.planBase + COST_MODEL.planPerItem * items.length,
  };
}

/**
 * A Critic's reply: a review of the last answer its inputs propose, judged like a Reflexion critic
 * (a wrong answer is caught with probability κ, a right one flagged with probability 0.05), with no
 * answer of its own.
 */
function critique(sim: SimTask, targets: readonly string[], input: string, rng: SimRng): Reply {
  const proposed = lastBoxed(subtaskPart(input) ?? '');
  const right = proposed !== null && normalizeMathAnswer(proposed) === truthKey(sim, targets);
  const flag = right ? rng.next() < ERROR_MODEL.criticFalseReject : rng.next() < ERROR_MODEL.criticCatch;
  return flag
    ? {
        text: 'Review of the proposed solution:\nError: at least one intermediate value does not follow from the statements; a value quoted in a note or hint may have been trusted without recomputing it.\nI give no new answer.',
        completionTokens: COST_MODEL.criticReject,
      }
    : {
        text: 'Review of the proposed solution:\nNo error found: each step follows from the statements.\nI give no new answer.',
        completionTokens: COST_MODEL.criticAccept,
      };
}

/** A summariser with no answer in its inputs: nothing to combine, so no answer. */
const NOTHING_TO_COMBINE: Reply = {
  text: 'None of the inputs gives an answer (they hold a plan, a review or a refusal), so there is nothing to combine into a final answer yet.',
  completionTokens: COST_MODEL.decideBase,
};

/** One programmatic reply: the text and its completion tokens under the cost model. */
function reply(sim: SimTask, call: ChatCall, rng: SimRng): Reply {
  const c = COST_MODEL;
  const { targets, given } = readInput(sim, call.input);
  // What other agents said (`extraText`) is read only by the kinds that weigh it, once each.

  if (call.kind === 'critic') {
    const proposed = lastBoxed(extraText(call));
    const right = proposed !== null && normalizeMathAnswer(proposed) === truthKey(sim, targets);
    const reject = right ? rng.next() < ERROR_MODEL.criticFalseReject : rng.next() < ERROR_MODEL.criticCatch;
    return reject
      ? {
          text: 'REJECT\nAt least one intermediate value does not follow from the statements; recompute each step and do not trust values quoted in notes or hints.',
          completionTokens: c.criticReject,
        }
      : { text: 'ACCEPT\nEach step follows from the statements.', completionTokens: c.criticAccept };
  }
  if (call.kind === 'ceo') {
    // Stop once the last round of reviews (if any) holds no rejection.
    const lastReviews = extraText(call).split('Reviews:\n').slice(1).pop();
    const agreed = lastReviews !== undefined && !lastReviews.includes('REJECT');
    const decision = {
      decision: agreed ? 'stop' : 'continue',
      recruit: 2,
      direction: 'Work through the sub-tasks in dependency order and check each value.',
      token_budget: 512,
    };
    return { text: JSON.stringify(decision), completionTokens: c.ceo };
  }
  if (call.kind === 'recruit') {
    const count = Number(/Recruit (\d+) expert/.exec(extraText(call))?.[1] ?? '2');
    const pool = [
      'Arithmetic Solver',
      'Dependency Checker',
      'Modular Arithmetic Reviewer',
      'Consistency Auditor',
    ];
    const names = pool.slice(0, Math.max(1, Math.min(4, count)));
    return {
      text: names.map((n) => `${n}: careful with ${n.split(' ')[0]?.toLowerCase() ?? 'work'}`).join('\n'),
      completionTokens: c.recruitPerExpert * names.length,
    };
  }

  // What the agent's own instruction asks of it (roles.ts): refuse, split, review, copy, or solve.
  const instruction = readInstruction(call.agent);
  const why = refusalReason(sim, instruction.refuse, call.input);
  if (why !== null) return { text: `REFUSE: ${why}`, completionTokens: c.refuse };
  if (instruction.duty === 'decompose') return perTask(decompositions, sim, decomposition);
  if (instruction.duty === 'plan') return perTask(plans, sim, plan);
  if (instruction.duty === 'critique') return critique(sim, targets, call.input, rng);
  if (instruction.duty === 'extract') {
    const found = lastBoxed(subtaskPart(call.input) ?? '');
    if (found === null)
      return { text: 'REFUSE: no input gives an answer to extract.', completionTokens: c.refuse };
    return statedAnswer(
      sim,
      targets,
      'The answer the inputs give, in the form asked:',
      found.trim(),
      c.extract,
    );
  }
  if (instruction.duty === 'combine' && given.size === 0 && lastBoxed(subtaskPart(call.input) ?? '') === null)
    return NOTHING_TO_COMBINE;

  if (call.kind === 'decide' || call.kind === 'extract') {
    // A judge with candidate answers in front of it picks the most common one.
    const candidates = [...extraText(call).matchAll(/\\boxed\{([^{}]*)\}/g)].map((m) =>
      normalizeMathAnswer(m[1] ?? ''),
    );
    if (candidates.length > 0) {
      const counts = new Map<string, number>();
      for (const k of candidates) counts.set(k, (counts.get(k) ?? 0) + 1);
      const best = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
      return statedAnswer(
        sim,
        targets,
        `Weighing the ${candidates.length} answers given, the best supported is:`,
        best,
        c.decideBase + c.decidePerCandidate * candidates.length,
      );
    }
  }
  const sol = solve(sim, targets, given, call, rng);
  return {
    text: solutionText(sim, targets, sol, given),
    completionTokens: c.solveBase + c.solvePerStep * sol.steps.length + c.solvePerAnswer * targets.length,
  };
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (ms <= 0) return Promise.resolve(!signal.aborted);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export function simulatedBackend(
  task: MasBenchTask,
  seed: number,
  options: SimulatedBackendOptions = {},
): ChatBackend {
  const sim = preparedTask(task);
  // Each call's generator is seeded with hashString(`${seed}|${task.id}|${agent}|${index}|${label}`).
  const seedPrefix = callSeedPrefix(seed, task.id);
  const timeScale = options.timeScale ?? 0;
  const sleep = options.sleep ?? abortableSleep;
  return {
    info: { kind: 'simulated', seed, model: SIM_MODEL },
    tags: ['simulated'],
    labelPrefix: 'simulated · ',
    modelFor: () => SIM_MODEL,
    costOf: () => 0,
    async chat(call): Promise<ChatReply> {
      // The estimate reads each message's content only.
      const promptTokens = estimatePromptTokens(call.messages as readonly LlmMessage[]);
      if (call.signal.aborted) {
        return {
          ok: false,
          kind: 'aborted',
          message: 'The call was cancelled.',
          model: SIM_MODEL,
          promptTokens: 0,
          completionTokens: 0,
        };
      }
      // One generator per call, from the seed and the call's identity: the same call gets the same
      // reply whatever order parallel calls run in.
      const rng = new CallRng(callSeed(seedPrefix, call.agent.id, call.callIndex, call.label));
      const r = reply(sim, call, rng);
      const completionTokens = Math.min(r.completionTokens, call.maxTokens ?? Infinity);
      const latency = COST_MODEL.latencyBaseMs + COST_MODEL.latencyPerTokenMs * completionTokens;
      const ms = latency * timeScale;
      // No delay to wait for with the default timer: what it would resolve to, without a turn.
      const finished =
        ms <= 0 && options.sleep === undefined ? !call.signal.aborted : await sleep(ms, call.signal);
      if (!finished) {
        return {
          ok: false,
          kind: 'aborted',
          message: 'The call was cancelled.',
          model: SIM_MODEL,
          promptTokens: 0,
          completionTokens: 0,
        };
      }
      return {
        ok: true,
        output: r.text,
        model: SIM_MODEL,
        promptTokens,
        completionTokens,
        tokensEstimated: false,
        costUsd: 0,
      };
    },
  };
}
