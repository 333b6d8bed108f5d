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
 * The pick waiting for Step: what will be taken (your action or the sampled one, your links), that
 * nothing is taken until Step, and how to clear it.
 */
export function PendingPick({
  pick,
  names,
  roleCount,
  previewRole,
}: {
  pick: BuildPick;
  names: string[];
  roleCount: number;
  /** The role whose links are shown when no action is picked. */
  previewRole: string | null;
}): JSX.Element | null {
  if (pick.action === null && pick.links === null) return null;
  const isRole = pick.action !== null && pick.action < roleCount;
  const what =
    pick.action === null
      ? `the sampled action${previewRole ? ` (most likely ${previewRole})` : ''}`
      : isRole
        ? `ADD ${names[pick.action] ?? ''}`
        : (names[pick.action] ?? '');
  const links =
    pick.links === null
      ? null
      : pick.links.length === 0
        ? 'no links (reads the original question)'
        : `links from ${pick.links.join(', ')}`;
  return (
    <div className="build-pick-pending" role="status" data-testid="build-pick-pending">
      <strong>Picked, not taken yet:</strong> {what}
      {links && isRole && <> with {links}</>}
      {!links && isRole && <> with the links the step draws (✓)</>}
      {links && pick.action === null && <> — if it adds an agent, with {links}</>}
      {links && pick.action !== null && !isRole && (
        <span data-testid="build-pick-links-idle">
          {' '}
          ({names[pick.action]} takes no links; your {pick.links?.length === 1 ? 'link is' : 'links are'} kept
          for when you pick a role again)
        </span>
      )}
      . Press <strong>Step</strong> (<kbd>S</kbd>) to take it; click the bar again or press <kbd>Esc</kbd> to
      clear it.
    </div>
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
          <PendingPick
            pick={pick}
            names={names}
            roleCount={pool.roles.length}
            previewRole={role?.name ?? null}
          />
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
