import type { JSX } from 'react';
import {
  DEFAULT_ACTION_REWARD,
  rewardProblem,
  type ActionRewardConfig,
  type BuildExecute,
  type BuildForm,
} from '../../store/construction.ts';
import { PROVIDER_PRESETS, providerBlockers } from '../../store/slices/settings.ts';
import { useBaton, type BatonState } from '../../store/store.ts';

/** The provider line as one string, so the fieldset re-renders only when it changes. */
const selectProvider = (s: BatonState): string =>
  JSON.stringify({
    label: PROVIDER_PRESETS[s.provider].label,
    model: s.connections[s.provider].model.trim(),
    blockers: providerBlockers(s),
  });

/** The reward constants with what each one does, in the order DESIGN.md lists the cases. */
const REWARD_FIELDS: { key: keyof ActionRewardConfig; label: string; step: number; title: string }[] = [
  { key: 'gain', label: 'wrong → right', step: 0.1, title: 'reward when a step makes the answer right' },
  { key: 'loss', label: 'right → wrong', step: 0.1, title: 'penalty when a step makes the answer wrong' },
  {
    key: 'bonus',
    label: 'right → right bonus',
    step: 0.1,
    title: 'bonus for keeping it right, times decay^t',
  },
  { key: 'bonusDecay', label: 'bonus decay', step: 0.05, title: 'the bonus shrinks by this factor per step' },
  { key: 'exemption', label: 'exemption T', step: 1, title: 'wrong → wrong is free before step T' },
  {
    key: 'penaltyRate',
    label: 'penalty rate',
    step: 0.05,
    title: 'wrong → wrong after T: rate × (t − T + 1)',
  },
  { key: 'penaltyMax', label: 'penalty cap', step: 0.1, title: 'largest wrong → wrong penalty' },
];

/** Where each partial MAS runs for its intermediate answer, and the action-wise reward constants. */
export function ExecutionFields({
  form,
  setForm,
}: {
  form: BuildForm;
  setForm: (patch: Partial<BuildForm>) => void;
}): JSX.Element {
  const provider = JSON.parse(useBaton(selectProvider)) as {
    label: string;
    model: string;
    blockers: string[];
  };
  const rewardError = form.execute !== 'off' ? rewardProblem(form.rewards) : null;
  return (
    <fieldset className="build-fieldset">
      <legend>Intermediate answers</legend>
      <label>
        Execute each partial MAS on
        <select
          className="input"
          value={form.execute}
          onChange={(e) => setForm({ execute: e.target.value as BuildExecute })}
          data-testid="build-execute"
        >
          <option value="off">nothing (no intermediate answers)</option>
          <option value="simulator" disabled={form.source !== 'masbench'}>
            the simulator (simulated sub-agents; MASBench only)
          </option>
          <option value="provider">
            {provider.label}
            {provider.model !== '' ? ` · ${provider.model}` : ''} (Settings)
          </option>
        </select>
      </label>
      {form.execute === 'provider' &&
        (provider.blockers.length > 0 ? (
          <div className="alert alert-error small" data-testid="build-provider-blockers">
            {provider.blockers.join(' ')} <a href="#/settings">Open Settings</a>
          </div>
        ) : (
          <span className="muted small">
            Real calls, within the Settings budget for all steps together. Calls a step does not change are
            answered from a cache, so an ADD pays for the new agent and the summariser only.
          </span>
        ))}
      {form.execute !== 'off' && (
        <details className="build-rewards" data-testid="build-rewards">
          <summary>Action-wise reward constants</summary>
          <div className="build-grid2">
            {REWARD_FIELDS.map((f) => (
              <label key={f.key} title={f.title}>
                {f.label}
                <input
                  className="input"
                  type="number"
                  step={f.step}
                  value={form.rewards[f.key]}
                  onChange={(e) => setForm({ rewards: { ...form.rewards, [f.key]: Number(e.target.value) } })}
                  data-testid={`reward-${f.key}`}
                />
              </label>
            ))}
          </div>
          {rewardError && <div className="alert alert-error small">{rewardError}</div>}
          <button
            type="button"
            className="btn btn-small"
            onClick={() => setForm({ rewards: { ...DEFAULT_ACTION_REWARD } })}
          >
            Defaults
          </button>
        </details>
      )}
    </fieldset>
  );
}
