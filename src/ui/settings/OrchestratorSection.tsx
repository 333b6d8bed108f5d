import type { JSX } from 'react';
import { MAX_REPAIR_TURNS } from '../../store/slices/orchestrate-provider.ts';
import { useBaton } from '../../store/store.ts';

/** The provider as the orchestrator: how many repair turns an invalid design gets. */
export function OrchestratorSection(): JSX.Element {
  const turns = useBaton((s) => s.repairTurns);
  const setTurns = useBaton((s) => s.setRepairTurns);
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
      </div>
    </section>
  );
}
