import { useState, type JSX } from 'react';
import { AXES, MAX_AXIS_VALUE, MIN_AXIS_VALUE, type Axis } from '../../store/slices/run.ts';
import { wholeNumber } from './whole-number.ts';
import './task-cell.css';

/**
 * The MASBench task cell of Build, Run and Orchestrate: axis, value and seed of a generated task.
 * Both numbers follow `wholeNumber`'s rule: the text stays as typed, the task changes only on a
 * whole number in range, and the cell says what it needs until then (docs/masbench.md, "Task cells").
 */

export interface TaskCellValue {
  axis: Axis;
  value: number;
  seed: number;
}

/** The largest seed: an unsigned 32-bit integer. */
export const MAX_SEED = 0xffffffff;

type NumberKey = 'value' | 'seed';

/** A number field under the half-typed rule: the text as typed (`text`), or the task's value. */
function WholeField({
  label,
  value,
  text,
  invalid,
  testId,
  onText,
}: {
  label: string;
  value: number;
  text: string | null;
  invalid: boolean;
  testId: string;
  onText: (text: string | null) => void;
}): JSX.Element {
  return (
    <label className="task-cell-field">
      <span>{label}</span>
      <input
        className={invalid ? 'input task-cell-num invalid' : 'input task-cell-num'}
        type="text"
        inputMode="numeric"
        value={text ?? String(value)}
        aria-invalid={invalid ? true : undefined}
        data-testid={testId}
        onChange={(e) => onText(e.target.value)}
        onBlur={() => onText(null)}
      />
    </label>
  );
}

export function TaskCell({
  task,
  onChange,
  testIds,
  seedLabel = 'Seed',
}: {
  task: TaskCellValue;
  onChange: (patch: Partial<TaskCellValue>) => void;
  /** The data-testid of each field (each page keeps its own). */
  testIds: { axis: string; value: string; seed: string };
  seedLabel?: string;
}): JSX.Element {
  // The text being typed in each number field; null while it shows the task's own value.
  const [texts, setTexts] = useState<Record<NumberKey, string | null>>({ value: null, seed: null });
  const limits: Record<NumberKey, { lo: number; hi: number; what: string }> = {
    value: { lo: MIN_AXIS_VALUE, hi: MAX_AXIS_VALUE, what: 'Value' },
    seed: { lo: 0, hi: MAX_SEED, what: seedLabel },
  };
  const problemOf = (key: NumberKey): string | null => {
    const text = texts[key];
    if (text === null) return null;
    const r = wholeNumber(text, limits[key].lo, limits[key].hi, limits[key].what);
    return r.ok ? null : `${r.message}; the task keeps ${task[key]}.`;
  };
  const onText = (key: NumberKey) => (text: string | null) => {
    setTexts((t) => ({ ...t, [key]: text }));
    if (text === null) return;
    const r = wholeNumber(text, limits[key].lo, limits[key].hi, limits[key].what);
    if (r.ok && r.value !== task[key]) onChange({ [key]: r.value });
  };
  const notes = (['value', 'seed'] as const)
    .map((key) => ({ key, problem: problemOf(key) }))
    .filter((n) => n.problem !== null);
  return (
    <div className="task-cell" data-testid="task-cell">
      <label className="task-cell-field">
        <span>Axis</span>
        <select
          className="input"
          value={task.axis}
          data-testid={testIds.axis}
          onChange={(e) => onChange({ axis: e.target.value as Axis })}
        >
          {AXES.map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </select>
      </label>
      <WholeField
        label={`Value (${MIN_AXIS_VALUE}–${MAX_AXIS_VALUE})`}
        value={task.value}
        text={texts.value}
        invalid={problemOf('value') !== null}
        testId={testIds.value}
        onText={onText('value')}
      />
      <WholeField
        label={seedLabel}
        value={task.seed}
        text={texts.seed}
        invalid={problemOf('seed') !== null}
        testId={testIds.seed}
        onText={onText('seed')}
      />
      {notes.map((n) => (
        <p key={n.key} className="task-cell-note" role="status" data-testid={`${testIds[n.key]}-note`}>
          {n.problem}
        </p>
      ))}
    </div>
  );
}
