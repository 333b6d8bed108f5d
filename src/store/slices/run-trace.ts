import { minimalTrace, traceIdFrom } from '../../core/trace-builders.ts';
import type { Design, Designer, Task, Trace } from '../../core/trace.ts';
import { listTitle } from './library-titles.ts';
import type { RunSlice } from './run.ts';

type RunChoice = Pick<
  RunSlice,
  'taskMode' | 'benchTask' | 'customQuery' | 'customTruth' | 'designMode' | 'designTrace' | 'backendMode'
>;

/** How a run names its design: the trace it came from, or pasted / drawn and its size. */
function designLabel(s: RunChoice, design: Design): string {
  const n = design.agents.length;
  const size = `${n} ${n === 1 ? 'agent' : 'agents'}`;
  if (s.designMode === 'trace' && s.designTrace.status === 'ready') {
    const from = s.designTrace.trace;
    return `design of “${listTitle(from.title, from.task.query, 40)}” (${size})`;
  }
  return `${s.designMode === 'draw' ? 'drawn' : 'pasted'} design (${size})`;
}

/**
 * A run's title, built like the Build page's ("Build · depth 6 (seed 3) · prior-v1"): the task in a
 * few words, the design, and the simulator when it ran the calls, e.g.
 * "Run · depth 6 (seed 3) · drawn design (3 agents) · simulated". Generated MASBench questions all
 * open with the same preamble, so a title taken from the question would name every run the same.
 */
export function runTitle(s: RunChoice, design: Design): string {
  const mb = s.taskMode === 'masbench' ? s.benchTask : null;
  const task = mb ? `${mb.axis} ${mb.value} (seed ${mb.seed})` : listTitle(s.customQuery, '', 48);
  const parts = ['Run', task, designLabel(s, design)];
  if (s.backendMode === 'simulator') parts.push('simulated');
  return parts.join(' · ');
}

/** The trace a run starts from: the chosen task and design, status `running`, no events yet. */
export function runTraceOf(s: RunChoice, design: Design, createdAt: string): Trace {
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
    title: runTitle(s, design),
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
