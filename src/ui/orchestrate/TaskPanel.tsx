import type { JSX } from 'react';
import { orchTaskOf } from '../../store/slices/orchestrate.ts';
import { useBaton } from '../../store/store.ts';
import { TaskCell } from '../common/TaskCell.tsx';

/**
 * What the orchestrator is asked: the user's own task, or a generated MASBench task (axis, value,
 * seed) that the simulator can then run and grade. And how it writes: the Degree of MAS, the
 * temperature and seed of sampling, and whether decoding is constrained to valid designs.
 */

const whole = (v: string, lo: number, hi: number): number | null => {
  const n = Number(v);
  return Number.isInteger(n) && n >= lo && n <= hi ? n : null;
};

export function TaskPanel(): JSX.Element {
  const d = useBaton((s) => s.orchDraft);
  const setDraft = useBaton((s) => s.setOrchDraft);
  const setBench = useBaton((s) => s.setOrchBench);
  const running = useBaton((s) => s.orchGen?.status === 'running');
  const task = orchTaskOf(d);
  return (
    <fieldset className="orch-box" disabled={running}>
      <legend>Task</legend>
      <div className="orch-row" role="radiogroup" aria-label="Task">
        <label className="orch-radio">
          <input
            type="radio"
            name="orch-task"
            checked={d.taskMode === 'custom'}
            onChange={() => setDraft({ taskMode: 'custom' })}
            data-testid="orch-task-custom"
          />
          Your task
        </label>
        <label className="orch-radio">
          <input
            type="radio"
            name="orch-task"
            checked={d.taskMode === 'masbench'}
            onChange={() => setDraft({ taskMode: 'masbench' })}
            data-testid="orch-task-masbench"
          />
          A generated MASBench task
        </label>
      </div>
      {d.taskMode === 'custom' ? (
        <label>
          Query
          <textarea
            className="input orch-query"
            rows={4}
            value={d.query}
            placeholder="What should the agents solve?"
            onChange={(e) => setDraft({ query: e.target.value })}
            data-testid="orch-query"
          />
        </label>
      ) : (
        <>
          <TaskCell
            task={d.bench}
            onChange={setBench}
            seedLabel="Task seed"
            testIds={{ axis: 'orch-bench-axis', value: 'orch-bench-value', seed: 'orch-bench-seed' }}
          />
          {task.ok && task.task.kind === 'masbench' ? (
            <pre className="orch-task-text" data-testid="orch-bench-question">
              {task.task.task.question}
            </pre>
          ) : (
            !task.ok && <p className="muted">{task.message}</p>
          )}
        </>
      )}
      <div className="orch-row">
        <label>
          Degree of MAS
          <select
            className="input"
            value={d.dom}
            onChange={(e) => setDraft({ dom: e.target.value as typeof d.dom })}
            data-testid="orch-dom"
          >
            <option value="auto">auto (the model decides)</option>
            <option value="low">low: at most one sub-agent</option>
            <option value="high">high: a DAG of agents</option>
          </select>
        </label>
        <label>
          Temperature
          <input
            className="input"
            type="number"
            min={0}
            max={2}
            step={0.1}
            value={d.temperature}
            onChange={(e) => {
              const v = Number(e.target.value);
              if (Number.isFinite(v) && v >= 0 && v <= 2) setDraft({ temperature: v });
            }}
            data-testid="orch-temperature"
          />
        </label>
        <label>
          Seed
          <input
            className="input"
            type="number"
            min={0}
            value={d.seed}
            onChange={(e) => {
              const v = whole(e.target.value, 0, 0xffffffff);
              if (v !== null) setDraft({ seed: v });
            }}
            data-testid="orch-seed"
          />
        </label>
      </div>
      {/* A provider's output is not constrained: the repair loop checks it instead. */}
      {d.orchestrator !== 'provider' && (
        <label className="orch-check">
          <input
            type="checkbox"
            checked={d.constrained}
            onChange={(e) => setDraft({ constrained: e.target.checked })}
            data-testid="orch-constrained"
          />
          Constrained decoding: every finished design parses and passes the design rules
        </label>
      )}
    </fieldset>
  );
}
