/**
 * The orchestrator mode's choice of SFT model: which offline model a new run starts from (v1 or
 * v2), which sets that model's design length and axis values (`withOrchModel`).
 */
import type { JSX } from 'react';
import { ORCH_SFT_MODELS, isOrchSftModel } from '../../store/slices/train-orch-run.ts';
import { useBaton } from '../../store/store.ts';

export function OrchModelPick({ locked }: { locked: boolean }): JSX.Element {
  const form = useBaton((s) => s.orchForm);
  const setModel = useBaton((s) => s.setOrchModel);
  return (
    <div className="train-row">
      <label title="The offline model a new run starts from; Resume continues the run's own model">
        SFT model{' '}
        <select
          className="input"
          value={form.sftModel}
          disabled={locked}
          onChange={(e) => {
            if (isOrchSftModel(e.target.value)) void setModel(e.target.value);
          }}
          data-testid="orch-field-model"
        >
          {ORCH_SFT_MODELS.map((m) => (
            <option key={m.id} value={m.id}>
              {m.label}
            </option>
          ))}
        </select>
      </label>{' '}
      <span className="muted small" data-testid="orch-values" data-model={form.sftModel}>
        axis values {form.values.length > 0 ? `${Math.min(...form.values)}–${Math.max(...form.values)}` : '–'}
      </span>
    </div>
  );
}
