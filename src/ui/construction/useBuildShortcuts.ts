/**
 * The Build page's keyboard: each shortcut (shortcuts.ts) runs the same store action as its button.
 * Ignored while typing in a form field or while a dialog is open.
 */
import { useEffect } from 'react';
import { currentFrame } from '../../store/construction.ts';
import { useBaton } from '../../store/store.ts';
import { commandFor, type BuildCommand } from './shortcuts.ts';

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

export function useBuildShortcuts(toggleHelp: () => void): void {
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
