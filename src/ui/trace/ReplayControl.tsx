import { useEffect, type JSX } from 'react';
import { useBaton } from '../../store/store.ts';
import { REPLAY_BASE_MS, REPLAY_SPEEDS } from '../../store/slices/viewer.ts';
import { selectLength, selectPlaying, selectPosition, selectSpeed } from './selectors.ts';

/** Small inline icons: emoji media symbols are missing from many system fonts. */
const ICONS = {
  first: 'M5 4h2v16H5zM20 4v16L8 12z',
  back: 'M18 4v16L6 12z',
  play: 'M7 4v16l13-8z',
  pause: 'M6 4h4v16H6zM14 4h4v16h-4z',
  forward: 'M6 4v16l12-8z',
  last: 'M17 4h2v16h-2zM4 4v16l12-8z',
} as const;

function Icon({ name }: { name: keyof typeof ICONS }): JSX.Element {
  return (
    <svg width="12" height="12" viewBox="0 0 24 24" aria-hidden="true" fill="currentColor">
      <path d={ICONS[name]} />
    </svg>
  );
}

/** Whether a key press belongs to a text field (or the slider, which handles its own arrows). */
function ownsKeys(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT';
}

/** ←/→ step, Home/End jump, Space plays or pauses — unless focus is in a field. */
function useReplayKeys(): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || ownsKeys(e.target)) return;
      const s = useBaton.getState();
      switch (e.key) {
        case 'ArrowLeft':
          s.setReplayPlaying(false);
          s.stepReplay(e.shiftKey ? -10 : -1);
          break;
        case 'ArrowRight':
          s.setReplayPlaying(false);
          s.stepReplay(e.shiftKey ? 10 : 1);
          break;
        case 'Home':
          s.setReplayPosition(0);
          break;
        case 'End':
          s.setReplayPosition(s.replayLength);
          break;
        case ' ':
          // A focused button would also "click" on Space; leave buttons to their own handler.
          if (e.target instanceof HTMLButtonElement) return;
          s.setReplayPlaying(!s.replayPlaying);
          break;
        default:
          return;
      }
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}

/** Advances the replay while playing, `REPLAY_BASE_MS / speed` per position. */
function usePlayback(): void {
  const playing = useBaton(selectPlaying);
  const speed = useBaton(selectSpeed);
  useEffect(() => {
    if (!playing) return;
    const timer = setInterval(() => useBaton.getState().stepReplay(1), REPLAY_BASE_MS / speed);
    return () => clearInterval(timer);
  }, [playing, speed]);
}

export interface ReplayControlProps {
  /** What the current position shows, e.g. "llm.call judge". */
  description: string;
  phase: 'start' | 'construction' | 'execution';
  constructionSteps: number;
}

export function ReplayControl({ description, phase, constructionSteps }: ReplayControlProps): JSX.Element {
  useReplayKeys();
  usePlayback();
  const position = useBaton(selectPosition);
  const length = useBaton(selectLength);
  const playing = useBaton(selectPlaying);
  const speed = useBaton(selectSpeed);
  const s = useBaton.getState;
  return (
    <div className="replay" data-testid="replay" role="group" aria-label="Replay">
      <button
        type="button"
        className="icon-button"
        title="Start (Home)"
        aria-label="Start"
        onClick={() => s().setReplayPosition(0)}
      >
        <Icon name="first" />
      </button>
      <button
        type="button"
        className="icon-button"
        title="Step back (←)"
        aria-label="Step back"
        onClick={() => s().stepReplay(-1)}
      >
        <Icon name="back" />
      </button>
      <button
        type="button"
        className="icon-button play"
        data-testid="replay-play"
        title={playing ? 'Pause (Space)' : 'Play (Space)'}
        aria-label={playing ? 'Pause' : 'Play'}
        aria-pressed={playing}
        onClick={() => s().setReplayPlaying(!playing)}
      >
        <Icon name={playing ? 'pause' : 'play'} />
      </button>
      <button
        type="button"
        className="icon-button"
        title="Step forward (→)"
        aria-label="Step forward"
        onClick={() => s().stepReplay(1)}
      >
        <Icon name="forward" />
      </button>
      <button
        type="button"
        className="icon-button"
        title="End (End)"
        aria-label="End"
        onClick={() => s().setReplayPosition(length)}
      >
        <Icon name="last" />
      </button>
      <div className="replay-track">
        <input
          type="range"
          min={0}
          max={length}
          step={1}
          value={position}
          aria-label="Replay position"
          data-testid="replay-slider"
          onChange={(e) => s().setReplayPosition(Number(e.currentTarget.value))}
        />
        {constructionSteps > 0 && length > 0 && (
          <span
            className="replay-construction-span"
            title="Construction steps"
            style={{ width: `${(constructionSteps / length) * 100}%` }}
          />
        )}
      </div>
      <span className="replay-position" data-testid="replay-position">
        {position} / {length} · {description}
      </span>
      <span className={`phase-badge phase-${phase}`}>{phase}</span>
      <label className="replay-speed">
        <span className="muted">speed</span>
        <select
          value={speed}
          aria-label="Replay speed"
          onChange={(e) => s().setReplaySpeed(Number(e.currentTarget.value))}
        >
          {REPLAY_SPEEDS.map((v) => (
            <option key={v} value={v}>
              {v}×
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}
