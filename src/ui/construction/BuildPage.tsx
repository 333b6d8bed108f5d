import { useEffect, useLayoutEffect, useRef, type JSX, type RefObject } from 'react';
import type { BuildSession } from '../../store/construction.ts';
import { useBaton, type BatonState } from '../../store/store.ts';
import { ProblemAlert } from '../common/ProblemAlert.tsx';
import { EmptyState } from '../common/Status.tsx';
import { BuildWorkspace } from './BuildWorkspace.tsx';
import { SetupPanel } from './SetupPanel.tsx';
import './build.css';

const selectSession = (s: BatonState): BuildSession | null => s.buildSession;
const selectProblems = (s: BatonState): BatonState['buildProblems'] => s.buildProblems;

/** Fills the window below the page's top edge, so the graph gets every pixel the page can give. */
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
        <BuildWorkspace session={session} />
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
