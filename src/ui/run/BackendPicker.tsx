import type { JSX } from 'react';
import { PROVIDER_PRESETS, priceOf } from '../../store/slices/settings.ts';
import { useBaton } from '../../store/store.ts';

export function SimulatedBadge(): JSX.Element {
  return (
    <span
      className="badge badge-warn sim-badge"
      data-testid="simulated-badge"
      title="Programmatic sub-agents, not an LLM"
    >
      SIMULATED
    </span>
  );
}

/** Where the sub-agents' calls go: the provider from Settings, or the offline simulator. */
export function BackendPicker({ disabled }: { disabled: boolean }): JSX.Element {
  const mode = useBaton((s) => s.backendMode);
  const setMode = useBaton((s) => s.setBackendMode);
  const provider = useBaton((s) => s.provider);
  const connection = useBaton((s) => s.connections[s.provider]);
  const keyLocation = useBaton((s) => s.keyLocation);
  const budget = useBaton((s) => s.budget);
  const concurrency = useBaton((s) => s.concurrency);
  const prices = useBaton((s) => s.prices);
  const chosen = useBaton((s) => s.backendChosen);
  const preset = PROVIDER_PRESETS[provider];
  const model = connection.model.trim();
  const unpriced =
    mode === 'provider' && budget.totalUsd !== null && model !== '' && priceOf(model, prices) === undefined;
  return (
    <fieldset className="run-card" disabled={disabled}>
      <legend>3 · Backend</legend>
      <div className="run-seg" role="radiogroup" aria-label="Backend">
        <label className={mode === 'provider' ? 'run-seg-on' : ''}>
          <input
            type="radio"
            name="backend-mode"
            checked={mode === 'provider'}
            data-testid="run-backend-provider"
            onChange={() => setMode('provider')}
          />
          Provider
        </label>
        <label className={mode === 'simulator' ? 'run-seg-on' : ''}>
          <input
            type="radio"
            name="backend-mode"
            checked={mode === 'simulator'}
            data-testid="run-backend-simulator"
            onChange={() => setMode('simulator')}
          />
          Simulator
        </label>
      </div>
      {mode === 'provider' ? (
        <p className="small" data-testid="run-backend-summary">
          <strong>{preset.label}</strong> ·{' '}
          <span className="mono">{connection.baseUrl || 'no base URL'}</span> ·{' '}
          <span className="mono">{model || 'no model'}</span> ·{' '}
          {keyLocation === 'none'
            ? 'no key'
            : keyLocation === 'device'
              ? 'key on this device'
              : 'key in this tab'}{' '}
          — <a href="#/settings">change in Settings</a>
        </p>
      ) : (
        <p className="small">
          <SimulatedBadge /> Offline programmatic sub-agents, no key and no cost. They answer generated
          MASBench tasks only, erring as a documented error model says: the run shows how a design copes, not
          what an LLM would do.
          {!chosen && preset.needsKey && keyLocation === 'none' && (
            <span data-testid="run-backend-default">
              {' '}
              Chosen because {preset.label} has no API key yet: add one in <a href="#/settings">Settings</a>{' '}
              to run on it.
            </span>
          )}
        </p>
      )}
      <p className="muted small">
        Budget: {budget.totalTokens ?? 'no'} total tokens ·{' '}
        {budget.totalUsd === null ? 'no USD limit' : `$${budget.totalUsd}`} · {budget.perAgentTokens ?? 'no'}{' '}
        tokens per agent · {concurrency} agents at once.
      </p>
      {unpriced && (
        <p className="alert alert-warn small" data-testid="run-unpriced">
          There is a USD limit but no price for “{model}”: every call would be refused. Add its price or clear
          the USD limit in <a href="#/settings">Settings</a>.
        </p>
      )}
    </fieldset>
  );
}
