import type { JSX } from 'react';
import type { ConstructionStep } from '../../core/trace.ts';
import { chosenAction } from '../../view/construction-choice.ts';

/** π_node for one construction step as a small horizontal bar chart; the chosen action is marked. */
export function RoleDistribution({ step }: { step: ConstructionStep }): JSX.Element {
  const chosen = chosenAction(step).toLowerCase();
  const rows = [...step.roleDistribution].sort((a, b) => b.p - a.p).slice(0, 12);
  return (
    <div className="role-dist" data-testid="role-distribution">
      {rows.map((r) => {
        const isChosen = r.action.toLowerCase() === chosen;
        return (
          <div key={r.action} className={isChosen ? 'role-row chosen' : 'role-row'}>
            <span className="role-name" title={r.action}>
              {r.action}
            </span>
            <span className="role-bar">
              <span className="role-fill" style={{ width: `${Math.round(r.p * 100)}%` }} />
            </span>
            <span className="role-p">{r.p.toFixed(2)}</span>
          </div>
        );
      })}
      {step.roleDistribution.length > rows.length && (
        <div className="muted small">+{step.roleDistribution.length - rows.length} more actions</div>
      )}
    </div>
  );
}
