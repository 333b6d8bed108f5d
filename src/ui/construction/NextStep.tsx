import type { JSX } from 'react';
import type { BuildPick } from '../../store/construction.ts';
import type { RolePool, StepPreview } from '../../store/construction.ts';
import type { Candidate } from './BuildGraph.tsx';
import { Distribution } from './Distribution.tsx';

function EdgeChecklist({
  candidates,
  role,
  onToggle,
  disabled,
}: {
  candidates: Candidate[];
  role: string;
  onToggle: (from: string) => void;
  disabled: boolean;
}): JSX.Element {
  if (candidates.length === 0) {
    return (
      <p className="muted small">A new {role} would read the original question (no agents to link yet).</p>
    );
  }
  return (
    <ul className="edge-list" data-testid="edge-list">
      {candidates.map((c) => (
        <li key={c.from}>
          <label className={c.selected ? 'edge-row on' : 'edge-row'}>
            <input
              type="checkbox"
              checked={c.selected}
              disabled={disabled}
              onChange={() => onToggle(c.from)}
              data-testid="edge-checkbox"
              data-from={c.from}
            />
            <span className="mono edge-from">{c.from}</span>
            <span className="edge-bar">
              <span className="edge-fill" style={{ width: `${c.p * 100}%` }} />
            </span>
            <span className="edge-p" data-testid="edge-p">
              {c.p.toFixed(2)}
            </span>
          </label>
        </li>
      ))}
    </ul>
  );
}

/**
 * The "Next step" card: π_node over the actions (click a bar to pick it) and, for the role shown,
 * the candidate links into the new agent with their π_edge.
 */
export function NextStep({
  pool,
  names,
  preview,
  pick,
  candidates,
  temperature,
  exited,
  busy,
  onPick,
  onToggle,
}: {
  pool: RolePool;
  names: string[];
  preview: StepPreview | null;
  pick: BuildPick;
  candidates: Candidate[];
  temperature: number;
  exited: boolean;
  busy: boolean;
  onPick: (column: number) => void;
  onToggle: (from: string) => void;
}): JSX.Element {
  const pickIsRole = pick.action !== null && pick.action < pool.roles.length;
  const showRole = preview && (pick.action === null || pickIsRole) ? preview.role : null;
  const role = showRole === null ? null : pool.roles[showRole];
  const pickLabel =
    pick.action === null
      ? 'sampled from π'
      : `${names[pick.action] ?? ''} (your pick${pick.links ? ', your links' : ''})`;
  return (
    <section className="build-card">
      <div className="build-card-head">
        <h2>Next step</h2>
        {!exited && (
          <span className="muted small" data-testid="next-choice">
            {pickLabel}
          </span>
        )}
      </div>
      {exited ? (
        <p className="muted small">Construction finished with EXIT. Undo to continue building, or run it.</p>
      ) : preview ? (
        <>
          <div className="muted small dist-caption">
            π_node over roles ∪ {'{DELETE, EXIT}'} at τ = {temperature}. Click a bar (or press its digit) to
            choose it yourself.
          </div>
          <Distribution
            names={names}
            hints={pool.roles.map((r) => r.does)}
            distribution={preview.distribution}
            mask={preview.mask}
            picked={pick.action}
            previewRole={preview.role}
            disabled={busy}
            onPick={onPick}
          />
          {role && (
            <>
              <div className="build-sub">
                Links into a new <strong>{role.name}</strong> · π_edge
              </div>
              <EdgeChecklist candidates={candidates} role={role.name} onToggle={onToggle} disabled={busy} />
            </>
          )}
        </>
      ) : (
        <p className="muted small">Evaluating the policy…</p>
      )}
    </section>
  );
}
