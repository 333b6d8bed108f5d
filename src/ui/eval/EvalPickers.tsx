import { useMemo, type JSX } from 'react';
import {
  AXES,
  AXIS_VALUES,
  axesPicked,
  methodGroups,
  methodIds,
  toggleAxisValue,
  toggleMethod,
} from '../../store/slices/eval-pickers.ts';
import { useBaton } from '../../store/store.ts';

/**
 * The Evaluate page's method and axis pickers: checkbox lists of what the evaluation can run (the
 * archive agents, the built-in policies, the checkpoints saved in this browser, the last trained
 * one included), the provider as the orchestrator (on the provider backend), the orchestrator
 * models this build ships (run in the evaluation worker) and, greyed out with the reason, hub
 * models it does not download; and
 * a grid of MASBench axes × values. Both edit the draft's word lists (what `baton eval` takes),
 * shown under them.
 */
export function MethodPicker({ disabled }: { disabled: boolean }): JSX.Element {
  const methods = useBaton((s) => s.evalDraft.methods);
  const setDraft = useBaton((s) => s.setEvalDraft);
  const buildCheckpoints = useBaton((s) => s.buildCheckpoints);
  const orchModels = useBaton((s) => s.orchModels);
  const backend = useBaton((s) => s.evalDraft.backend);
  const groups = useMemo(
    () => methodGroups({ buildCheckpoints, orchModels, backend }),
    [buildCheckpoints, orchModels, backend],
  );
  const picked = new Set(methodIds(methods));
  return (
    <fieldset className="eval-picker" disabled={disabled} data-testid="eval-methods">
      <legend>Methods</legend>
      {groups.map((g) => (
        <div key={g.title} className="eval-picker-group">
          <strong>{g.title}</strong>
          {g.choices.length === 0 && (
            <small data-testid="eval-picker-empty">
              {g.title === 'Saved checkpoints'
                ? 'none yet: train one (Train, "Use in Build") or load one in Build'
                : 'reading the model manifest…'}
            </small>
          )}
          {g.choices.map((c) => (
            <label
              key={c.id}
              className={c.unavailable ? 'eval-choice eval-choice-off' : 'eval-choice'}
              title={c.unavailable ?? c.id}
            >
              <input
                type="checkbox"
                checked={picked.has(c.id)}
                disabled={c.unavailable !== null}
                onChange={(e) => setDraft({ methods: toggleMethod(methods, c.id, e.target.checked) })}
                data-testid="eval-method"
                data-method={c.id}
              />
              <span>{c.label}</span>
              {c.unavailable && <small className="eval-choice-why">{c.unavailable}</small>}
            </label>
          ))}
        </div>
      ))}
      <small className="mono" data-testid="eval-methods-words">
        {picked.size > 0 ? `--methods ${[...picked].join(',')}` : 'pick at least one method'}
      </small>
    </fieldset>
  );
}

export function AxisPicker({ disabled }: { disabled: boolean }): JSX.Element {
  const axes = useBaton((s) => s.evalDraft.axes);
  const setDraft = useBaton((s) => s.setEvalDraft);
  const picked = axesPicked(axes);
  return (
    <fieldset className="eval-picker" disabled={disabled} data-testid="eval-axes">
      <legend>MASBench axes and values</legend>
      <table className="eval-axis-grid">
        <thead>
          <tr>
            <th scope="col">axis</th>
            {AXIS_VALUES.map((v) => (
              <th key={v} scope="col">
                {v}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {AXES.map((a) => (
            <tr key={a}>
              <th scope="row">{a}</th>
              {AXIS_VALUES.map((v) => (
                <td key={v}>
                  <input
                    type="checkbox"
                    aria-label={`${a} ${v}`}
                    checked={picked[a].includes(v)}
                    onChange={(e) => setDraft({ axes: toggleAxisValue(axes, a, v, e.target.checked) })}
                    data-testid="eval-axis"
                    data-axis={a}
                    data-value={v}
                  />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <small className="mono" data-testid="eval-axes-words">
        {axes.trim() !== '' ? `--axes ${axes}` : 'pick at least one value'}
      </small>
    </fieldset>
  );
}
