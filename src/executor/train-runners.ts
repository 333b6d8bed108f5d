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
import { callKey, createIntermediateExecutor } from './intermediate.ts';
import { runDesign } from './run.ts';
import type { ChatBackend, ChatReply } from './types.ts';

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
 */
function rememberingBackend(inner: ChatBackend): ChatBackend {
  const seen = new Map<string, ChatReply>();
  return {
    info: inner.info,
    tags: inner.tags,
    ...(inner.labelPrefix !== undefined ? { labelPrefix: inner.labelPrefix } : {}),
    modelFor: (c) => inner.modelFor(c),
    costOf: (m, p, c) => inner.costOf(m, p, c),
    async chat(call) {
      const key = `${call.input}\u0000${callKey(call, inner.modelFor(call))}`;
      const kept = seen.get(key);
      if (kept) return kept;
      const r = await inner.chat(call);
      if (r.ok) seen.set(key, r);
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
