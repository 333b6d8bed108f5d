import { minimalTrace, traceIdFrom } from '../../core/trace-builders.ts';
import type { Design, Designer, Task, Trace } from '../../core/trace.ts';
import type { RunSlice } from './run.ts';

/** The trace a run starts from: the chosen task and design, status `running`, no events yet. */
export function runTraceOf(
  s: Pick<RunSlice, 'taskMode' | 'benchTask' | 'customQuery' | 'customTruth' | 'designMode' | 'designTrace'>,
  design: Design,
  createdAt: string,
): Trace {
  const mb = s.taskMode === 'masbench' ? s.benchTask : null;
  const query = mb ? mb.question : s.customQuery;
  const groundTruth = mb ? mb.answers.join(', ') : s.customTruth.trim() || null;
  const source: Task['source'] = mb
    ? { kind: 'masbench', axis: mb.axis, value: mb.value, taskId: mb.id }
    : { kind: 'custom' };
  const designer: Designer =
    s.designMode === 'trace' && s.designTrace.status === 'ready'
      ? s.designTrace.trace.designer
      : { kind: 'manual' };
  const base = minimalTrace({
    query,
    groundTruth,
    createdAt,
    id: traceIdFrom(query, JSON.stringify(design), createdAt),
    source,
    designer,
  });
  return {
    ...base,
    task: { ...base.task, ...(mb ? { groundTruths: mb.answers.map(String), seed: mb.seed } : {}) },
    design,
    execution: { ...base.execution, status: 'running', startedAt: createdAt },
  };
}
