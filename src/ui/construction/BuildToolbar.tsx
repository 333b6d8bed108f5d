import type { JSX } from 'react';
import { BUILD_SPEEDS, currentFrame } from '../../store/construction.ts';
import type { BuildSession } from '../../store/construction.ts';
import { useBaton, type BatonState } from '../../store/store.ts';

const selectPreview = (s: BatonState): BatonState['buildPreview'] => s.buildPreview;
const selectBusy = (s: BatonState): boolean => s.buildBusy;
const selectAuto = (s: BatonState): boolean => s.buildAutoPlay;
const selectSpeed = (s: BatonState): number => s.buildSpeed;

const SPEED_LABELS: Record<number, string> = { 1200: '0.5×', 600: '1×', 250: '2×', 60: '8×' };

/** Step, Greedy, Delete, Exit, Undo, Redo, auto-play and its speed, and the shortcut help button. */
export function BuildToolbar({
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
