import { useEffect, useLayoutEffect, useMemo, useRef, useState, type JSX, type RefObject } from 'react';
import type { ConstructionStep } from '../../core/trace.ts';
import {
  BUILD_SPEEDS,
  actionNames,
  currentFrame,
  sessionTrace,
  stepsOf,
  type BuildPick,
  type BuildSession,
  type StepPreview,
  visibleDesign,
} from '../../store/construction.ts';
import { useBaton, type BatonState } from '../../store/store.ts';
import { ProblemAlert } from '../common/ProblemAlert.tsx';
import { EmptyState } from '../common/Status.tsx';
import { ShareDialog } from '../share/ShareDialog.tsx';
import { BuildGraph, type Candidate } from './BuildGraph.tsx';
import { Distribution } from './Distribution.tsx';
import { SetupPanel } from './SetupPanel.tsx';
import { commandFor, SHORTCUTS, type BuildCommand } from './shortcuts.ts';
import { RunActions } from './RunActions.tsx';
import { StepList } from './StepList.tsx';
import './build.css';

const selectSession = (s: BatonState): BuildSession | null => s.buildSession;
const selectPreview = (s: BatonState): StepPreview | null => s.buildPreview;
const selectPick = (s: BatonState): BuildPick => s.buildPick;
const selectBusy = (s: BatonState): boolean => s.buildBusy;
const selectProblems = (s: BatonState): BatonState['buildProblems'] => s.buildProblems;
const selectAuto = (s: BatonState): boolean => s.buildAutoPlay;
const selectSpeed = (s: BatonState): number => s.buildSpeed;
const selectStepMs = (s: BatonState): number[] => s.buildStepMs;

const SPEED_LABELS: Record<number, string> = { 1200: '0.5×', 600: '1×', 250: '2×', 60: '8×' };

function useFillViewport(): RefObject<HTMLDivElement | null> {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const fit = (): void => {
      const top = el.getBoundingClientRect().top + window.scrollY;
      el.style.height = `${Math.max(620, window.innerHeight - top)}px`;
    };
    fit();
    window.addEventListener('resize', fit);
    return () => window.removeEventListener('resize', fit);
  }, []);
  return ref;
}

function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

/** Runs a keyboard command against the store (the same actions the buttons call). */
function runCommand(cmd: BuildCommand, toggleHelp: () => void): void {
  const st = useBaton.getState();
  switch (cmd.kind) {
    case 'step':
      void st.buildStep();
      return;
    case 'greedy':
      void st.buildStep({ greedy: true });
      return;
    case 'undo':
      void st.undoBuild();
      return;
    case 'redo':
      void st.redoBuild();
      return;
    case 'delete':
      void st.buildDelete();
      return;
    case 'exit':
      void st.buildExit();
      return;
    case 'autoplay':
      st.setBuildAutoPlay(!st.buildAutoPlay);
      return;
    case 'pick': {
      const s = st.buildSession;
      if (s && cmd.column < currentFrame(s).state.pool.roles.length) void st.pickBuildAction(cmd.column);
      return;
    }
    case 'clear':
      void st.pickBuildAction(null);
      return;
    case 'help':
      toggleHelp();
  }
}

function useShortcuts(toggleHelp: () => void): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      const t = e.target as HTMLElement | null;
      // Typing into the form (query, numbers, selects) must not trigger steps.
      if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
      if (document.querySelector('dialog[open]')) return;
      const cmd = commandFor(e);
      if (!cmd) return;
      e.preventDefault();
      runCommand(cmd, toggleHelp);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [toggleHelp]);
}

function HelpPopover({ onClose }: { onClose: () => void }): JSX.Element {
  return (
    <div className="build-help" role="dialog" aria-label="Keyboard shortcuts" data-testid="build-help">
      <div className="build-help-head">
        <strong>Keyboard shortcuts</strong>
        <button type="button" className="btn btn-ghost btn-small" onClick={onClose}>
          Close
        </button>
      </div>
      <table className="build-help-table">
        <tbody>
          {SHORTCUTS.map((s) => (
            <tr key={s.keys}>
              <td>
                {s.keys.split(/\s+or\s+/).map((k, i) => (
                  <span key={k}>
                    {i > 0 && <span className="muted"> or </span>}
                    <kbd>{k}</kbd>
                  </span>
                ))}
              </td>
              <td>{s.does}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted small">
        Every step is recorded with its distribution, edge probabilities, choice, chooser (policy or you) and
        log-probability.
      </p>
    </div>
  );
}

function Toolbar({
  session,
  help,
  setHelp,
}: {
  session: BuildSession;
  help: boolean;
  setHelp: (v: boolean) => void;
}): JSX.Element {
  const busy = useBaton(selectBusy);
  const preview = useBaton(selectPreview);
  const auto = useBaton(selectAuto);
  const speed = useBaton(selectSpeed);
  const st = useBaton.getState;
  const frame = currentFrame(session);
  const pool = frame.state.pool;
  const exited = frame.state.exited;
  const can = (col: number): boolean => !busy && !exited && preview?.mask[col] === 1;
  return (
    <div className="build-toolbar" role="toolbar" aria-label="Construction controls">
      <div className="btn-group">
        <button
          type="button"
          className="btn btn-primary"
          disabled={busy || exited || auto}
          onClick={() => void st().buildStep()}
          data-testid="build-step"
          title="Sample the next action (S)"
        >
          Step <kbd>S</kbd>
        </button>
        <button
          type="button"
          className="btn"
          disabled={busy || exited || auto}
          onClick={() => void st().buildStep({ greedy: true })}
          data-testid="build-greedy"
          title="Most probable action, links with p ≥ 0.5 (G)"
        >
          Greedy <kbd>G</kbd>
        </button>
        <button
          type="button"
          className="btn"
          disabled={!can(pool.roles.length) || auto}
          onClick={() => void st().buildDelete()}
          data-testid="build-delete"
          title="Delete the most recently changed agent (Del)"
        >
          Delete
        </button>
        <button
          type="button"
          className="btn"
          disabled={!can(pool.roles.length + 1) || auto}
          onClick={() => void st().buildExit()}
          data-testid="build-exit"
          title="Finish: add the summariser (E)"
        >
          Exit <kbd>E</kbd>
        </button>
      </div>
      <div className="btn-group">
        <button
          type="button"
          className="btn"
          disabled={busy || session.cursor === 0}
          onClick={() => void st().undoBuild()}
          data-testid="build-undo"
          title="Undo (U, Ctrl+Z)"
        >
          ↶ Undo
        </button>
        <button
          type="button"
          className="btn"
          disabled={busy || session.cursor >= session.frames.length - 1}
          onClick={() => void st().redoBuild()}
          data-testid="build-redo"
          title="Redo (Shift+Ctrl+Z, Ctrl+Y)"
        >
          Redo ↷
        </button>
      </div>
      <div className="btn-group">
        <button
          type="button"
          className={auto ? 'btn btn-primary' : 'btn'}
          disabled={exited}
          onClick={() => st().setBuildAutoPlay(!auto)}
          aria-pressed={auto}
          data-testid="build-autoplay"
          title="Auto-play (Space)"
        >
          {auto ? '❚❚ Pause' : '▶ Auto-play'}
        </button>
        <select
          className="input input-small"
          aria-label="Auto-play speed"
          value={speed}
          onChange={(e) => st().setBuildSpeed(Number(e.target.value))}
          data-testid="build-speed"
        >
          {BUILD_SPEEDS.map((ms) => (
            <option key={ms} value={ms}>
              {SPEED_LABELS[ms] ?? `${ms} ms`}
            </option>
          ))}
        </select>
      </div>
      <span className="toolbar-spacer" />
      <button
        type="button"
        className="btn btn-ghost btn-help"
        aria-label="Keyboard shortcuts"
        aria-expanded={help}
        onClick={() => setHelp(!help)}
        data-testid="build-help-button"
        title="Keyboard shortcuts (?)"
      >
        ?
      </button>
    </div>
  );
}

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

function lastAdded(steps: ConstructionStep[]): string | null {
  const last = steps[steps.length - 1];
  return last?.action.kind === 'add' ? last.action.agentId : null;
}

function Workspace({ session }: { session: BuildSession }): JSX.Element {
  const preview = useBaton(selectPreview);
  const pick = useBaton(selectPick);
  const busy = useBaton(selectBusy);
  const stepMs = useBaton(selectStepMs);
  const [help, setHelp] = useState(false);
  const [sharing, setSharing] = useState(false);
  const toggleHelp = useMemo(() => () => setHelp((h) => !h), []);
  useShortcuts(toggleHelp);

  const frame = currentFrame(session);
  const state = frame.state;
  const pool = state.pool;
  const names = useMemo(() => actionNames(pool), [pool]);
  // The frame's design keeps its identity when the step's answer arrives, so the graph does not redraw.
  const design = useMemo(() => visibleDesign(frame.design, state.exited), [frame.design, state.exited]);
  const steps = useMemo(() => stepsOf(session), [session]);
  const exited = state.exited;
  const pickIsRole = pick.action !== null && pick.action < pool.roles.length;
  const showRole = preview && (pick.action === null || pickIsRole) ? preview.role : null;
  const role = showRole === null ? null : pool.roles[showRole];
  // Memoised on what they show, so store updates that change neither (timings, the simulator's
  // answer for the frame) do not re-render the graph.
  const candidates = useMemo<Candidate[]>(() => {
    if (showRole === null || !preview) return [];
    const selected = new Set(pick.links ?? preview.sampledLinks);
    return preview.edges.map((e) => ({ from: e.from, p: e.p, selected: selected.has(e.from) }));
  }, [showRole, preview, pick.links]);
  const ghost = useMemo(
    () => (role && !exited ? { role: role.name, type: role.agentType, picked: pickIsRole } : null),
    [role, exited, pickIsRole],
  );
  const toggle = useBaton((s) => s.toggleBuildLink);
  const pickAction = useBaton((s) => s.pickBuildAction);
  const med = median(stepMs);
  const simulated = session.execute === 'simulator';

  const pickLabel =
    pick.action === null
      ? 'sampled from π'
      : `${names[pick.action] ?? ''} (your pick${pick.links ? ', your links' : ''})`;

  return (
    <>
      <div className="build-center">
        <Toolbar session={session} help={help} setHelp={setHelp} />
        {help && <HelpPopover onClose={() => setHelp(false)} />}
        <div className="build-graph-wrap">
          {design === null && !ghost ? (
            <div className="graph-empty">Empty MAS</div>
          ) : (
            <BuildGraph
              design={design}
              ghost={ghost}
              candidates={candidates}
              focus={lastAdded(steps)}
              onToggle={toggle}
            />
          )}
          <div className="build-status" data-testid="build-status">
            <span data-testid="agent-count" data-count={state.agents.length}>
              {state.agents.length} {state.agents.length === 1 ? 'agent' : 'agents'}
            </span>
            <span className="sep">·</span>
            <span data-testid="step-count" data-count={steps.length}>
              step {steps.length} / {state.limits.maxSteps}
            </span>
            {exited && (
              <>
                <span className="sep">·</span>
                <span className="chip chip-ok" data-testid="build-exited">
                  finished
                </span>
              </>
            )}
          </div>
        </div>
      </div>
      <aside className="build-right">
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
            <p className="muted small">
              Construction finished with EXIT. Undo to continue building, or run it.
            </p>
          ) : preview ? (
            <>
              <div className="muted small dist-caption">
                π_node over roles ∪ {'{DELETE, EXIT}'} at τ = {session.temperature}. Click a bar (or press its
                digit) to choose it yourself.
              </div>
              <Distribution
                names={names}
                hints={pool.roles.map((r) => r.does)}
                distribution={preview.distribution}
                mask={preview.mask}
                picked={pick.action}
                previewRole={preview.role}
                disabled={busy}
                onPick={(c) => void pickAction(c)}
              />
              {role && (
                <>
                  <div className="build-sub">
                    Links into a new <strong>{role.name}</strong> · π_edge
                  </div>
                  <EdgeChecklist candidates={candidates} role={role.name} onToggle={toggle} disabled={busy} />
                </>
              )}
            </>
          ) : (
            <p className="muted small">Evaluating the policy…</p>
          )}
        </section>
        <section className="build-card build-steps">
          <div className="build-card-head">
            <h2>Steps</h2>
            {simulated && <span className="badge badge-warn">SIMULATED sub-agents</span>}
          </div>
          <StepList frames={session.frames} cursor={session.cursor} executed={session.execute !== 'off'} />
        </section>
        <RunActions session={session} busy={busy} onShare={() => setSharing(true)} />
        <div
          className="muted small build-perf"
          data-testid="build-perf"
          data-median-ms={med ?? ''}
          data-max-ms={stepMs.length > 0 ? Math.max(...stepMs) : ''}
        >
          {session.policyName} on <strong data-testid="build-backend">{session.backend}</strong>
          {med !== null && (
            <>
              {' '}
              · policy step {med.toFixed(2)} ms median, {Math.max(...stepMs).toFixed(2)} ms max (
              {stepMs.length})
            </>
          )}
          <div title={session.backendReason}>{session.backendReason}</div>
        </div>
      </aside>
      {sharing && <ShareDialog trace={sessionTrace(session)} onClose={() => setSharing(false)} />}
    </>
  );
}

/** `#/build`: step through MasHost construction with a policy, override any choice, run the result. */
export function BuildPage(): JSX.Element {
  const ref = useFillViewport();
  const session = useBaton(selectSession);
  const problems = useBaton(selectProblems);
  const dismiss = useBaton((s) => s.dismissBuildProblems);
  useEffect(() => {
    void useBaton.getState().initBuild();
  }, []);
  useEffect(() => () => useBaton.getState().setBuildAutoPlay(false), []);
  return (
    <div className="build-page" ref={ref} data-testid="build-page">
      <aside className="build-side">
        <h1 className="build-title">Build a MAS</h1>
        <p className="muted small">
          A MasHost JPSS policy builds the system one action at a time: ADD a role linked to existing agents,
          DELETE, or EXIT. See every probability and override any choice.
        </p>
        <SetupPanel />
        {session && (
          <div className="task-card" data-testid="build-task">
            <div className="muted small">Task</div>
            <div className="task-card-query">{session.task.query}</div>
            {session.task.groundTruth !== null && (
              <div className="small">
                Ground truth <strong className="mono">{session.task.groundTruth}</strong>
              </div>
            )}
          </div>
        )}
      </aside>
      {problems.length > 0 && (
        <div className="build-problems">
          <ProblemAlert
            title="Something went wrong"
            problems={problems}
            onDismiss={dismiss}
            testId="build-error"
          />
        </div>
      )}
      {session ? (
        <Workspace session={session} />
      ) : (
        <div className="build-center build-empty">
          <EmptyState title="Nothing is being built yet">
            <p>Pick a task and a policy on the left, then press Start building.</p>
          </EmptyState>
        </div>
      )}
    </div>
  );
}
