/**
 * Keyboard shortcuts of the Build page, as data: the help popover lists them and the key handler
 * maps events through `commandFor`, so the two cannot disagree.
 */
export type BuildCommand =
  | { kind: 'step' }
  | { kind: 'greedy' }
  | { kind: 'undo' }
  | { kind: 'redo' }
  | { kind: 'delete' }
  | { kind: 'exit' }
  | { kind: 'autoplay' }
  | { kind: 'pick'; column: number }
  | { kind: 'clear' }
  | { kind: 'help' };

export const SHORTCUTS: readonly { keys: string; does: string }[] = [
  { keys: 'S', does: 'Step: sample the next action (your pick, if any, overrides)' },
  { keys: 'G', does: 'Greedy step: most probable action, links with p ≥ 0.5' },
  { keys: '1 … 9, 0', does: 'Pick role 1 … 10 for the next step (again to unpick)' },
  { keys: 'Del', does: 'DELETE the most recently changed agent' },
  { keys: 'E', does: 'EXIT: add the final summariser' },
  { keys: 'U  or  Ctrl+Z', does: 'Undo the last step' },
  { keys: 'Shift+Ctrl+Z  or  Ctrl+Y', does: 'Redo' },
  { keys: 'Space', does: 'Start or stop auto-play' },
  { keys: 'Esc', does: 'Clear your pick' },
  { keys: '?', does: 'Show or hide this list' },
];

export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
}

export function commandFor(e: KeyLike): BuildCommand | null {
  const mod = e.ctrlKey || e.metaKey;
  const k = e.key.toLowerCase();
  if (e.altKey) return null;
  if (mod) {
    if (k === 'z') return e.shiftKey ? { kind: 'redo' } : { kind: 'undo' };
    if (k === 'y') return { kind: 'redo' };
    return null;
  }
  if (k === 's') return { kind: 'step' };
  if (k === 'g') return { kind: 'greedy' };
  if (k === 'u') return { kind: 'undo' };
  if (k === 'e') return { kind: 'exit' };
  if (e.key === 'Delete' || e.key === 'Backspace') return { kind: 'delete' };
  if (e.key === ' ') return { kind: 'autoplay' };
  if (e.key === 'Escape') return { kind: 'clear' };
  if (e.key === '?') return { kind: 'help' };
  if (/^[0-9]$/.test(e.key)) return { kind: 'pick', column: e.key === '0' ? 9 : Number(e.key) - 1 };
  return null;
}
