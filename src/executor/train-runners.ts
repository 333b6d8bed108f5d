/**
 * The simulated sub-agents as the trainer's runners (src/train `RunnersFor`, matched by shape):
 * for one task and sampling seed, `intermediate` runs a partial design for its intermediate
 * answer and `final` runs the finished construction's design, the same executor `baton construct
 * --execute simulated` and the Build page use. `baton train` and the training worker both take it
 * from here.
 */
import type { Design, Task, Trace } from '../core/trace.ts';
import type { MasBenchTask } from '../masbench/index.ts';
import { backendFromSpec, intermediateExecutorFromSpec, stepResultOf } from './backend-spec.ts';
import { runDesign } from './run.ts';

export interface SimulatedRunners {
  intermediate: (design: Design, task: Task) => Promise<ReturnType<typeof stepResultOf>>;
  final: (trace: Trace) => Promise<{ correct: boolean | null; tokens: number }>;
}

export function simulatedRunners(task: MasBenchTask, seed: number): SimulatedRunners {
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
