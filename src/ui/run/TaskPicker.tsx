import type { JSX } from 'react';
import { useBaton } from '../../store/store.ts';
import { TaskCell } from '../common/TaskCell.tsx';

/** The task: free text with an optional ground truth, or a generated MASBench task. */
export function TaskPicker({ disabled }: { disabled: boolean }): JSX.Element {
  const mode = useBaton((s) => s.taskMode);
  const setMode = useBaton((s) => s.setTaskMode);
  const query = useBaton((s) => s.customQuery);
  const truth = useBaton((s) => s.customTruth);
  const setQuery = useBaton((s) => s.setCustomQuery);
  const setTruth = useBaton((s) => s.setCustomTruth);
  const bench = useBaton((s) => s.bench);
  const setBench = useBaton((s) => s.setBench);
  const task = useBaton((s) => s.benchTask);
  const error = useBaton((s) => s.benchError);
  return (
    <fieldset className="run-card" disabled={disabled}>
      <legend>1 · Task</legend>
      <div className="run-seg" role="radiogroup" aria-label="Task source">
        <label className={mode === 'custom' ? 'run-seg-on' : ''}>
          <input
            type="radio"
            name="task-mode"
            checked={mode === 'custom'}
            data-testid="run-task-custom"
            onChange={() => setMode('custom')}
          />
          Your own
        </label>
        <label className={mode === 'masbench' ? 'run-seg-on' : ''}>
          <input
            type="radio"
            name="task-mode"
            checked={mode === 'masbench'}
            data-testid="run-task-masbench"
            onChange={() => setMode('masbench')}
          />
          Generated MASBench
        </label>
      </div>
      {mode === 'custom' ? (
        <div className="stack">
          <label className="field">
            <span>Question</span>
            <textarea
              className="input run-textarea"
              rows={4}
              value={query}
              placeholder="What should the agents work out?"
              data-testid="run-query"
              onChange={(e) => setQuery(e.target.value)}
            />
          </label>
          <label className="field">
            <span>Ground truth (optional: grades the final answer)</span>
            <input
              className="input"
              value={truth}
              data-testid="run-truth"
              onChange={(e) => setTruth(e.target.value)}
            />
          </label>
        </div>
      ) : (
        <div className="stack">
          <TaskCell
            task={bench}
            onChange={setBench}
            testIds={{ axis: 'run-bench-axis', value: 'run-bench-value', seed: 'run-bench-seed' }}
          />
          {error && (
            <p className="alert alert-error" role="alert">
              {error}
            </p>
          )}
          {task && (
            <div className="run-bench" data-testid="run-bench-task">
              <div className="muted small">
                {task.id} · {task.split} split · {task.subtasks.length} sub-tasks
              </div>
              <pre className="run-pre" data-testid="run-bench-question">
                {task.question}
              </pre>
              <div>
                Ground truth: <strong data-testid="run-bench-truth">{task.answers.join(', ')}</strong>
              </div>
            </div>
          )}
        </div>
      )}
    </fieldset>
  );
}
