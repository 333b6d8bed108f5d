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
 *   its text from the call's content), so a call seen before is answered from memory with the very
 *   reply, tokens included, the simulator would give again, and a design run before (the EXIT
 *   step's, which is the previous step's design; the final design, which is the last step's) is
 *   answered from memory without running anything. No final trace is built: the final outcome
 *   is the intermediate executor's result for the same design. Tested equal to the traced form,
 *   step for step and in the final correctness and tokens (train-runners.test.ts).
 */
import type { Design, Task, Trace } from '../core/trace.ts';
import type { MasBenchTask } from '../masbench/index.ts';
import { backendFromSpec, intermediateExecutorFromSpec, stepResultOf } from './backend-spec.ts';
import { createIntermediateExecutor } from './intermediate.ts';
import { runDesign } from './run.ts';
import type { ChatBackend, ChatCall, ChatReply } from './types.ts';

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

/** The design's identity for the memo: agents (with inputs and parameters) and edges. */
const designKey = (d: Design): string => JSON.stringify([d.agents, d.edges]);

/** The fast path (see the header): the same numbers as `tracedSimulatedRunners`, without a final trace. */
export function simulatedRunners(task: MasBenchTask, seed: number): SimulatedRunners {
  const executor = createIntermediateExecutor({
    backend: rememberingBackend(backendFromSpec({ kind: 'simulated', task, seed })),
    cache: false,
  });
  const runs = new Map<string, Promise<{ step: StepResult; tokens: number }>>();
  const run = (design: Design, t: Task): Promise<{ step: StepResult; tokens: number }> => {
    const key = designKey(design);
    let r = runs.get(key);
    if (!r) {
      r = executor.run(design, t).then((x) => ({
        step: stepResultOf(x, 'simulated'),
        tokens: x.usage.promptTokens + x.usage.completionTokens,
      }));
      runs.set(key, r);
    }
    return r;
  };
  return {
    intermediate: async (design, t) => (await run(design, t)).step,
    final: async (trace) => {
      const r = await run(trace.design, trace.task);
      return { correct: r.step.correct, tokens: r.tokens };
    },
  };
}
