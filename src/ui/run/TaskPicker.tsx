import type { JSX } from 'react';
import { AXES, MAX_AXIS_VALUE, MIN_AXIS_VALUE, type Axis } from '../../store/slices/run.ts';
import { useBaton } from '../../store/store.ts';

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
          <div className="row">
            <label className="field">
              <span>Axis</span>
              <select
                className="input"
                value={bench.axis}
                data-testid="run-bench-axis"
                onChange={(e) => setBench({ axis: e.target.value as Axis })}
              >
                {AXES.map((a) => (
                  <option key={a} value={a}>
                    {a}
                  </option>
                ))}
              </select>
            </label>
            <label className="field">
              <span>
                Value ({MIN_AXIS_VALUE}–{MAX_AXIS_VALUE})
              </span>
              <input
                className="input run-num"
                type="number"
                min={MIN_AXIS_VALUE}
                max={MAX_AXIS_VALUE}
                value={bench.value}
                data-testid="run-bench-value"
                onChange={(e) => setBench({ value: Number(e.target.value) })}
              />
            </label>
            <label className="field">
              <span>Seed</span>
              <input
                className="input run-num"
                type="number"
                min={0}
                value={bench.seed}
                data-testid="run-bench-seed"
                onChange={(e) => setBench({ seed: Number(e.target.value) })}
              />
            </label>
          </div>
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
