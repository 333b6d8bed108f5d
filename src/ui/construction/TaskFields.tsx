import { useMemo, type JSX } from 'react';
import { formTask, type BuildForm } from '../../store/construction.ts';
import { TaskCell } from '../common/TaskCell.tsx';

/** The task: a generated MASBench task (axis, value, seed; its ground truth shown) or an own query. */
export function TaskFields({
  form,
  setForm,
}: {
  form: BuildForm;
  setForm: (patch: Partial<BuildForm>) => void;
}): JSX.Element {
  // Generating a task is not free: only the fields that define it regenerate it.
  const { source, axis, value, taskSeed } = form;
  const generated = useMemo(
    () => (source === 'masbench' ? formTask({ axis, value, taskSeed }) : null),
    [source, axis, value, taskSeed],
  );
  return (
    <fieldset className="build-fieldset">
      <legend>Task</legend>
      <div className="seg" role="radiogroup" aria-label="Task source">
        <label className={form.source === 'masbench' ? 'seg-item on' : 'seg-item'}>
          <input
            type="radio"
            name="task-source"
            checked={form.source === 'masbench'}
            onChange={() => setForm({ source: 'masbench' })}
            data-testid="source-masbench"
          />
          MASBench
        </label>
        <label className={form.source === 'custom' ? 'seg-item on' : 'seg-item'}>
          <input
            type="radio"
            name="task-source"
            checked={form.source === 'custom'}
            onChange={() => setForm({ source: 'custom' })}
            data-testid="source-custom"
          />
          Own query
        </label>
      </div>
      {form.source === 'masbench' ? (
        <>
          <TaskCell
            task={{ axis, value, seed: taskSeed }}
            onChange={(p) =>
              setForm({
                ...(p.axis !== undefined ? { axis: p.axis } : {}),
                ...(p.value !== undefined ? { value: p.value } : {}),
                ...(p.seed !== undefined ? { taskSeed: p.seed } : {}),
              })
            }
            testIds={{ axis: 'task-axis', value: 'task-value', seed: 'task-seed' }}
          />
          {typeof generated === 'string' ? (
            <div className="alert alert-error small">{generated}</div>
          ) : (
            generated && (
              <details className="task-peek">
                <summary>
                  {generated.id} · ground truth{' '}
                  <strong className="mono" data-testid="ground-truth">
                    {generated.answers.join(', ')}
                  </strong>
                </summary>
                <pre className="task-question">{generated.question}</pre>
              </details>
            )
          )}
        </>
      ) : (
        <label>
          Query
          <textarea
            className="input"
            rows={4}
            value={form.query}
            placeholder="What should the multi-agent system answer?"
            onChange={(e) => setForm({ query: e.target.value })}
            data-testid="task-query"
          />
        </label>
      )}
      {form.source === 'custom' && (
        <label>
          Expected answer (optional)
          <input
            className="input"
            value={form.groundTruth}
            placeholder="grades intermediate and final answers"
            onChange={(e) => setForm({ groundTruth: e.target.value })}
            data-testid="task-ground-truth"
          />
          <span className="muted small">
            Without it answers are shown but not graded, and steps earn no reward.
          </span>
        </label>
      )}
    </fieldset>
  );
}
