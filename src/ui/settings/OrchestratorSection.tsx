import type { JSX } from 'react';
import { MAX_REPAIR_TURNS } from '../../store/slices/orchestrate-provider.ts';
import { MAX_DESIGN_TIMEOUT_S } from '../../store/slices/settings.ts';
import { useBaton } from '../../store/store.ts';

const OUTPUTS = [
  { value: 'xml', label: 'MAS-Orchestra XML' },
  { value: 'json-schema', label: "The design's JSON schema (response_format)" },
  { value: 'auto', label: 'Auto: the JSON schema where the preset takes it, else XML' },
] as const;

/** The provider as the orchestrator: how many repair turns an invalid design gets, and in what output. */
export function OrchestratorSection(): JSX.Element {
  const turns = useBaton((s) => s.repairTurns);
  const setTurns = useBaton((s) => s.setRepairTurns);
  const output = useBaton((s) => s.designOutput);
  const setOutput = useBaton((s) => s.setDesignOutput);
  const timeout = useBaton((s) => s.designTimeoutS);
  const setTimeoutS = useBaton((s) => s.setDesignTimeout);
  return (
    <section className="settings-card" aria-labelledby="settings-orchestrator">
      <h2 id="settings-orchestrator">Provider as orchestrator</h2>
      <p className="muted">
        On the Orchestrate page this provider can write the design. A design that does not parse or breaks a
        rule goes back to the model with the validator&apos;s numbered problems, for at most this many repair
        turns; its calls count against the run budget above.
      </p>
      <div className="settings-grid">
        <label className="field">
          <span>Repair turns</span>
          <input
            className="input"
            type="number"
            min={0}
            max={MAX_REPAIR_TURNS}
            value={turns}
            data-testid="settings-repair-turns"
            onChange={(e) => setTurns(Number(e.target.value))}
          />
        </label>
        <label className="field">
          <span>Call timeout (s)</span>
          <input
            className="input"
            type="number"
            min={1}
            max={MAX_DESIGN_TIMEOUT_S}
            value={timeout}
            data-testid="settings-design-timeout"
            onChange={(e) => setTimeoutS(Number(e.target.value))}
          />
        </label>
        <label className="field">
          <span>Design output</span>
          <select
            className="input"
            value={output}
            data-testid="settings-design-output"
            onChange={(e) => {
              const next = OUTPUTS.find((o) => o.value === e.target.value);
              if (next) setOutput(next.value);
            }}
          >
            {OUTPUTS.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <p className="muted">
        With the JSON schema the provider&apos;s structured output holds the reply to the design&apos;s
        fields; a server that refuses <code>response_format</code> is asked again for XML, and the trace says
        so.
      </p>
    </section>
  );
}
