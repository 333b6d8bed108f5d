import type { Task } from '../core/trace.ts';
import type { MasBenchTask } from './schema.ts';

/**
 * A generated task as a trace's task: the question, every asked answer (joined, and one per ask
 * when there are several), the axis, value and task id as the source, and the seed.
 */
export function taskOfMasbench(t: MasBenchTask): Task {
  return {
    query: t.question,
    groundTruth: t.answers.join(', '),
    ...(t.answers.length > 1 ? { groundTruths: t.answers.map(String) } : {}),
    source: { kind: 'masbench', axis: t.axis, value: t.value, taskId: t.id },
    seed: t.seed,
  };
}
