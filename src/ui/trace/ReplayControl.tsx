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

/** Input types that take typed text; Space and the arrows belong to them while they have focus. */
const NON_TEXT_INPUTS = new Set(['range', 'checkbox', 'radio', 'button', 'submit', 'reset', 'color', 'file']);

/** Whether a key press belongs to a text field or a select (which opens on Space). */
export function isTextEntry(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLInputElement) return !NON_TEXT_INPUTS.has(target.type);
  return target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement;
}

/** Whether the arrows, Home and End belong to the focused element: any form field (the slider moves itself). */
const ownsNavigation = (target: EventTarget | null): boolean =>
  isTextEntry(target) || target instanceof HTMLInputElement;

/** A dialog over the page (the share dialog) keeps its keys. */
const inDialog = (target: EventTarget | null): boolean =>
  target instanceof Element && target.closest('dialog, [role="dialog"]') !== null;

/**
 * ←/→ step, Home/End jump, Space plays or pauses, at the page level while a replay is shown. Space
 * is taken from every focused control except text fields and selects: otherwise it would "click"
 * whichever button was pressed last (step, end, zoom) instead of playing.
 */
function useReplayKeys(): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || inDialog(e.target)) return;
      const s = useBaton.getState();
      if (e.key === ' ') {
        if (isTextEntry(e.target)) return;
        // preventDefault also keeps a focused button from activating and the page from scrolling.
        e.preventDefault();
        if (!e.repeat) s.setReplayPlaying(!s.replayPlaying);
        return;
      }
      if (ownsNavigation(e.target)) return;
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
