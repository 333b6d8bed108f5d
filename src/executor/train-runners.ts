/**
 * The simulated sub-agents as the trainer's runners (src/train `RunnersFor`, matched by shape):
 * for one task and sampling seed, `intermediate` runs a partial design for its intermediate
 * answer and `final` runs the finished construction's design, the same executor `baton construct
 * --execute simulated` and the Build page use. `baton train` and the training worker both take it
 * from here.
 *
 * Two forms with the same numbers:
 * - `tracedSimulatedRunners`: every partial design through the intermediate executor, and the final
 *   design once more through `runDesign` with its full trace (the reference);
 * - `simulatedRunners` (the fast path the trainer uses): the simulator is a pure function of the
 *   seed, the task and each call (its reply's generator is seeded from the call's identity, and
 *   its text from the call's content), so an agent's run is a function of the agent and its
 *   filled-in input. A design is run agent by agent: an agent unchanged since its last run in the
 *   episode whose references fill in with the same outputs (every agent an ADD leaves alone, and
 *   every agent of a design run before: the EXIT step's, the final one) is answered from memory
 *   with its output and its calls' tokens, without filling in its input; only the others run,
 *   each on its own with the archive runner and the calls run.ts would make, straight to the
 *   simulator (no event log or trace). A design this cannot follow (a failed agent, no single
 *   sink) runs whole through the executor, its calls remembered. No final trace is built: the
 *   final outcome is the result for the same design. The simulator shares what it reads from a
 *   task and from each input across the task's episodes (sim/task.ts). Tested equal to the traced
 *   form, step for step and in the final correctness and tokens (train-runners.test.ts,
 *   train-runners-reuse.test.ts).
 */
import { topoOrder } from '../core/graph.ts';
import type { Agent, Design, Task, Trace } from '../core/trace.ts';
import { resolveReferences } from '../design/references.ts';
import { sinkOf } from '../design/validate.ts';
import type { MasBenchTask } from '../masbench/index.ts';
import { backendFromSpec, intermediateExecutorFromSpec, stepResultOf } from './backend-spec.ts';
import { AGENT_RUNNERS } from './agents/index.ts';
import { withRole } from './agents/prompts.ts';
import { agentInput } from './input.ts';
import { createIntermediateExecutor } from './intermediate.ts';
import { gradeAnswer, runDesign } from './run.ts';
import {
  AgentCallError,
  type AgentContext,
  type ChatBackend,
  type ChatCall,
  type ChatReply,
} from './types.ts';

type StepResult = ReturnType<typeof stepResultOf>;

export interface SimulatedRunners {
  intermediate: (design: Design, task: Task) => Promise<StepResult>;
  final: (trace: Trace) => Promise<{ correct: boolean | null; tokens: number }>;
}

/** The reference: intermediate runs as the Build page makes them, the final run with its trace. */
export function tracedSimulatedRunners(task: MasBenchTask, seed: number): SimulatedRunners {
  const spec = { kind: 'simulated', task, seed } as const;
  const intermediate = intermediateExecutorFromSpec(spec);
  return {
    intermediate: async (design, t) => stepResultOf(await intermediate.run(design, t), 'simulated'),
    final: async (trace) => {
      const done = await runDesign({
        trace,
        backend: backendFromSpec(spec),
        startedAt: new Date(0).toISOString(),
      });
      return {
        correct: done.result.correct,
        tokens: done.totals.promptTokens + done.totals.completionTokens,
      };
    },
  };
}

/**
 * A deterministic backend answered from memory: a call with the same identity and content as an
 * earlier one gets that call's reply unchanged (tokens and all, unlike the provider cache of
 * intermediate.ts, which reports hits as free). Only for backends whose reply is a function of the
 * call, as the simulator's is.
 *
 * The key is the agent (all its fields), the call's position in it, label, kind, model and
 * sampling parameters, and the agent's input, not the messages: an archive agent's messages are a
 * function of those and of its earlier replies, which are themselves answered from the same key
 * (the runners are deterministic; train-runners.test.ts checks the traces equal the traced
 * path's). Serialising every message (the task text again in each) cost most of the lookups.
 */
function rememberingBackend(inner: ChatBackend): ChatBackend {
  // By the call's short key, then by its input (the same string object for all calls of an agent
  // in a run, so its hash is computed once).
  const seen = new Map<string, Map<string, ChatReply>>();
  const agents = new WeakMap<object, string>();
  const agentKey = (a: ChatCall['agent']): string => {
    let k = agents.get(a);
    if (k === undefined) {
      k = JSON.stringify(a);
      agents.set(a, k);
    }
    return k;
  };
  const keyOf = (call: ChatCall): string =>
    [
      agentKey(call.agent),
      call.callIndex,
      call.label,
      call.kind,
      inner.modelFor(call),
      call.temperature ?? '',
      call.maxTokens ?? '',
    ].join('\u0000');
  return {
    info: inner.info,
    tags: inner.tags,
    ...(inner.labelPrefix !== undefined ? { labelPrefix: inner.labelPrefix } : {}),
    modelFor: (c) => inner.modelFor(c),
    costOf: (m, p, c) => inner.costOf(m, p, c),
    async chat(call) {
      const key = keyOf(call);
      const kept = seen.get(key)?.get(call.input);
      if (kept) return kept;
      const r = await inner.chat(call);
      if (r.ok) {
        let byInput = seen.get(key);
        if (!byInput) {
          byInput = new Map();
          seen.set(key, byInput);
        }
        byInput.set(call.input, r);
      }
      return r;
    },
  };
}

const NO_OUTPUTS: ReadonlyMap<string, string> = new Map();

/** The fields of an agent (`AgentSchema`) the reuse check compares (`sameAgent`). */
const AGENT_FIELDS = new Set(['id', 'type', 'description', 'input', 'role', 'params']);

/** An agent's last run in an episode (`agentOutcome` in `simulatedRunners`). */
interface LastRun {
  agent: Agent;
  /** The references its input asked for, in order, and the outputs they were filled with. */
  asked: readonly string[];
  gave: readonly (string | undefined)[];
  result: Promise<AgentOutcome | null> | null;
  /** True once `result` has resolved, to `value`. */
  settled: boolean;
  value: AgentOutcome | null;
}

/** True when the agent has no field beyond `AGENT_FIELDS`. */
function plainAgent(agent: Agent): boolean {
  for (const k in agent) if (!AGENT_FIELDS.has(k)) return false;
  return true;
}

/** Two plain agents with equal fields (parameters compared as their JSON would be). */
const sameAgent = (a: Agent, b: Agent): boolean =>
  a.id === b.id &&
  a.type === b.type &&
  a.role === b.role &&
  a.description === b.description &&
  a.input === b.input &&
  sameJson(a.params, b.params);

/** The references fill in as they did for `run`: the same outputs (or none) for each. */
function sameOutputs(run: LastRun, outputs: ReadonlyMap<string, string>): boolean {
  for (let i = 0; i < run.asked.length; i++)
    if (outputs.get(run.asked[i] as string) !== run.gave[i]) return false;
  return true;
}

/**
 * True only when both values serialise to the same JSON: equal primitives, or plain objects and
 * arrays with the same keys in the same order and such values. (Anything else reads as different,
 * which only costs a lookup.)
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return typeof a !== 'object' || a === null || isPlain(a);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (!isPlain(a) || !isPlain(b) || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i] as string;
    if (k !== kb[i]) return false;
    if (!sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

const isPlain = (x: object): boolean => {
  const proto: unknown = Object.getPrototypeOf(x);
  return proto === Object.prototype || proto === Array.prototype || proto === null;
};

/** The design's identity for the memo: agents (with inputs and parameters) and edges. */
const designKey = (d: Design): string => JSON.stringify([d.agents, d.edges]);

interface Outcome {
  step: StepResult;
  tokens: number;
}

/** One agent run on its own for a given input: its output graded as a final answer, and its calls. */
interface AgentOutcome {
  output: string;
  correct: boolean | null;
  calls: number;
  promptTokens: number;
  completionTokens: number;
}

/**
 * One agent on its own, as `runDesign` runs it in a one-agent design (its calls as run.ts makes
 * them: the role line added, the agent's parameters, call indices in order), without the run's
 * event log, budget and trace; null when a call fails or the agent throws (the caller then runs
 * the design whole, which records the failure as the traced path does).
 */
/** Solo runs are never cancelled: they share one signal that never aborts. */
const NEVER_ABORTED = new AbortController().signal;

/**
 * `gradeAnswer` remembered per task and ground truth, for the task's episodes together: an agent
 * that makes no slip writes the same output whatever the seed, so outputs repeat across a group.
 */
const grades = new WeakMap<MasBenchTask, Map<string, Map<string, boolean | null>>>();
const GRADES_LIMIT = 4096;
const truthKeys = new WeakMap<Task, string>();

function gradeOf(task: MasBenchTask, output: string, t: Task): boolean | null {
  let byTruth = grades.get(task);
  if (!byTruth) {
    byTruth = new Map();
    grades.set(task, byTruth);
  }
  // What `gradeAnswer` reads of the task (the key kept per task object: tasks are not mutated).
  let truth = truthKeys.get(t);
  if (truth === undefined) {
    truth = JSON.stringify([t.groundTruths ?? null, t.groundTruth ?? null]);
    truthKeys.set(t, truth);
  }
  let byOutput = byTruth.get(truth);
  if (!byOutput) {
    byOutput = new Map();
    byTruth.set(truth, byOutput);
  }
  let correct = byOutput.get(output);
  if (correct === undefined) {
    correct = gradeAnswer(output, t);
    if (byOutput.size >= GRADES_LIMIT) byOutput.clear();
    byOutput.set(output, correct);
  }
  return correct;
}

async function soloRun(
  backend: ChatBackend,
  agent: Agent,
  t: Task,
  task: MasBenchTask,
): Promise<AgentOutcome | null> {
  const input = agentInput(agent, t.query, NO_OUTPUTS);
  const signal = NEVER_ABORTED;
  const usage = { calls: 0, promptTokens: 0, completionTokens: 0 };
  let pending = 0;
  let failed = false;
  const params = agent.params;
  const ctx: AgentContext = {
    agent,
    input,
    task: t.query,
    signal,
    note: () => undefined,
    chat: async (label, built, opts = {}) => {
      const callIndex = usage.calls++;
      const kind = opts.kind ?? 'solve';
      const maxTokens = opts.maxTokens ?? params.maxTokens;
      const temperature = opts.temperature ?? params.temperature;
      pending++;
      const reply = await backend.chat({
        agent,
        label,
        kind,
        input,
        messages: withRole(built, agent.description, kind),
        callIndex,
        ...(temperature !== undefined ? { temperature } : {}),
        ...(maxTokens !== undefined ? { maxTokens } : {}),
        ...(params.model !== undefined ? { model: params.model } : {}),
        signal,
      });
      pending--;
      usage.promptTokens += reply.promptTokens;
      usage.completionTokens += reply.completionTokens;
      if (!reply.ok) {
        failed = true;
        throw new AgentCallError(reply.kind, reply.message);
      }
      return reply.output;
    },
  };
  let output: string;
  try {
    output = await AGENT_RUNNERS[agent.type](ctx);
  } catch {
    return null;
  }
  if (failed || pending > 0) return null;
  return { output, correct: gradeOf(task, output, t), ...usage };
}

/** The fast path (see the header): the same numbers as `tracedSimulatedRunners`, without a final trace. */
export function simulatedRunners(task: MasBenchTask, seed: number): SimulatedRunners {
  const simulator = backendFromSpec({ kind: 'simulated', task, seed });
  // Whole runs (rare) go through the executor with calls remembered; solo runs call the simulator
  // directly (`agentOutcome` reuses an unchanged agent's outcome, so their calls rarely repeat).
  let executor: ReturnType<typeof createIntermediateExecutor> | null = null;
  const runs = new Map<string, Promise<Outcome>>();
  const whole = async (design: Design, t: Task): Promise<Outcome> => {
    executor ??= createIntermediateExecutor({ backend: rememberingBackend(simulator), cache: false });
    const x = await executor.run(design, t);
    return {
      step: stepResultOf(x, 'simulated'),
      tokens: x.usage.promptTokens + x.usage.completionTokens,
    };
  };

  // Agent by agent: an agent's output is a function of the agent and its resolved input (the
  // simulator answers each call from its identity and content), so a design that differs from an
  // earlier one by an ADD reuses every other agent's run and runs only the new agent (and those
  // whose inputs changed), each on its own (`soloRun`). Any design this cannot follow exactly (a
  // failed agent, no single sink, no agents) runs whole through the executor.
  // Per agent id, its last run in this episode: the agent, the references its input asked for and
  // the outputs they were filled with, and the outcome (null: the filled-in input was blank). A
  // later design holding the same agent whose references fill in with the same outputs (every
  // agent an ADD leaves alone) gets that outcome without filling in or looking up its input.
  const lastRuns = new Map<string, LastRun>();
  const agentOutcome = (agent: Agent, outputs: ReadonlyMap<string, string>, t: Task): LastRun => {
    const plain = plainAgent(agent);
    const prev = plain ? lastRuns.get(agent.id) : undefined;
    if (prev !== undefined && sameAgent(prev.agent, agent) && sameOutputs(prev, outputs)) return prev;
    const asked: string[] = [];
    const gave: (string | undefined)[] = [];
    const fill = (ref: string): string | undefined => {
      const out = outputs.get(ref);
      asked.push(ref);
      gave.push(out);
      return out;
    };
    // The same agent with its references filled in: on its own it gets the very same input
    // (`agentInput` leaves a text without known references as it is), unless the filled-in
    // input is blank, which would read as "the original question".
    const own = agent.input.trim() === '';
    const resolved = own ? '' : resolveReferences(agent.input, fill);
    const result =
      !own && resolved.trim() === '' ? null : soloRun(simulator, { ...agent, input: resolved }, t, task);
    const run: LastRun = { agent, asked, gave, result, settled: false, value: null };
    // Once settled, a reuse reads the outcome without waiting a turn for it.
    void result?.then(
      (v) => {
        run.settled = true;
        run.value = v;
      },
      () => undefined,
    );
    if (plain) lastRuns.set(agent.id, run);
    return run;
  };
  const byAgents = async (design: Design, t: Task): Promise<Outcome | null> => {
    const sink = sinkOf(design);
    const order = topoOrder(
      design.agents.map((a) => a.id),
      design.edges,
    );
    if (design.agents.length === 0 || sink === null || order === null) return null;
    const byId = new Map(design.agents.map((a) => [a.id, a] as const));
    const outputs = new Map<string, string>();
    const usage = { calls: 0, cachedCalls: 0, promptTokens: 0, completionTokens: 0, costUsd: 0 };
    let last: AgentOutcome | null = null;
    for (const id of order) {
      const agent = byId.get(id);
      if (!agent) return null;
      const run = agentOutcome(agent, outputs, t);
      if (run.result === null) return null;
      const r = run.settled ? run.value : await run.result;
      if (r === null) return null;
      outputs.set(id, r.output);
      usage.calls += r.calls;
      usage.promptTokens += r.promptTokens;
      usage.completionTokens += r.completionTokens;
      if (id === sink) last = r;
    }
    if (!last) return null;
    return {
      step: {
        answer: last.output,
        correct: last.correct,
        run: { backend: 'simulated', status: 'completed', ...usage },
      },
      tokens: usage.promptTokens + usage.completionTokens,
    };
  };

  // A design run whole is kept by its serialised form (repeated designs: the EXIT step's, the
  // final run); agent by agent, a repeated design is only lookups.
  const wholeOnce = (design: Design, t: Task): Promise<Outcome> => {
    const key = designKey(design);
    let r = runs.get(key);
    if (!r) {
      r = whole(design, t);
      runs.set(key, r);
    }
    return r;
  };
  const run = async (design: Design, t: Task): Promise<Outcome> =>
    (await byAgents(design, t)) ?? wholeOnce(design, t);
  return {
    intermediate: async (design, t) => (await run(design, t)).step,
    final: async (trace) => {
      const r = await run(trace.design, trace.task);
      return { correct: r.step.correct, tokens: r.tokens };
    },
  };
}
