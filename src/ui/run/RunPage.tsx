import { useEffect, useMemo, type JSX } from 'react';
import { checkDesign, runBlockers } from '../../store/slices/run.ts';
import { useBaton } from '../../store/store.ts';
import { navigate, traceHash } from '../app/route.ts';
import { DesignGraph } from '../common/DesignGraph.tsx';
import { agentCount } from '../common/format.ts';
import { BackendPicker } from './BackendPicker.tsx';
import { DesignPicker } from './DesignPicker.tsx';
import { LiveRun } from './LiveRun.tsx';
import { TaskPicker } from './TaskPicker.tsx';
import './run.css';

/** Joined into one string, so the selector's result compares equal while nothing changed. */
const runBlockersSelector = (s: Parameters<typeof runBlockers>[0]): string => runBlockers(s).join('\n');

function RunControls(): JSX.Element {
  const joined = useBaton(runBlockersSelector);
  const blockers = joined === '' ? [] : joined.split('\n');
  const liveRunId = useBaton((s) => s.liveRunId);
  const startRun = useBaton((s) => s.startRun);
  const stopRun = useBaton((s) => s.stopRun);
  const problem = useBaton((s) => s.runProblem);
  const running = liveRunId !== null;
  const start = (): void => {
    void startRun().then((id) => {
      // The finished trace opens on its own page, unless the user has gone elsewhere meanwhile.
      if (id && location.hash.startsWith('#/run')) navigate(traceHash(id));
    });
  };
  return (
    <div className="run-controls">
      <div className="row">
        <button
          type="button"
          className="btn btn-primary"
          disabled={running || blockers.length > 0}
          data-testid="run-start"
          onClick={start}
        >
          {running ? 'Running…' : 'Run'}
        </button>
        {running && (
          <button type="button" className="btn btn-danger" data-testid="run-stop" onClick={stopRun}>
            Stop
          </button>
        )}
      </div>
      {!running && blockers.length > 0 && (
        <ul className="run-blockers muted small" data-testid="run-blockers">
          {blockers.map((b) => (
            <li key={b}>{b}</li>
          ))}
        </ul>
      )}
      {problem && (
        <p className="alert alert-error" role="alert" data-testid="run-problem">
          {problem}
        </p>
      )}
    </div>
  );
}

function Interrupted(): JSX.Element | null {
  const interrupted = useBaton((s) => s.interrupted);
  const dismiss = useBaton((s) => s.dismissInterrupted);
  if (!interrupted) return null;
  return (
    <div className="alert alert-warn" role="status" data-testid="run-interrupted">
      <div className="alert-body">
        <strong>The last run was interrupted — stopped at event {interrupted.events}.</strong>
        <p>
          The page was reloaded or closed while it ran. Everything recorded until then was saved:{' '}
          <a href={traceHash(interrupted.traceId)}>open the trace</a>.
        </p>
      </div>
      <button type="button" className="btn btn-ghost btn-small" onClick={dismiss}>
        Dismiss
      </button>
    </div>
  );
}

/** The chosen design, read-only, before it runs; or why there is none to show. */
function DesignPreview(): JSX.Element {
  const designMode = useBaton((s) => s.designMode);
  const designTrace = useBaton((s) => s.designTrace);
  const designText = useBaton((s) => s.designText);
  const draft = useBaton((s) => s.draft);
  const design = useMemo(
    () => checkDesign({ designMode, designTrace, designText, draft }).design,
    [designMode, designTrace, designText, draft],
  );
  const shown = design && design.agents.length > 0 ? design : null;
  return (
    <section
      className="run-preview"
      data-testid="run-preview"
      data-agents={shown?.agents.length ?? 0}
      data-edges={shown?.edges.length ?? 0}
    >
      <div className="run-preview-head">
        <strong>Preview · the design that will run</strong>
        {shown && (
          <span className="muted small">
            {agentCount(shown.agents)} · {shown.edges.length} {shown.edges.length === 1 ? 'edge' : 'edges'}
          </span>
        )}
      </div>
      {shown ? (
        <div className="run-preview-graph">
          <DesignGraph design={shown} />
        </div>
      ) : (
        <p className="muted small" data-testid="run-preview-empty">
          {design
            ? 'This design answers directly: it has no agents to draw.'
            : 'Choose a valid design under 2 · Design and it is drawn here before it runs.'}
        </p>
      )}
    </section>
  );
}

/** `#/run`: choose a task, a design and a backend; run it and watch it; the trace is saved as it grows. */
export function RunPage(): JSX.Element {
  const initRun = useBaton((s) => s.initRun);
  const initLibrary = useBaton((s) => s.initLibrary);
  const liveTrace = useBaton((s) => s.liveTrace);
  const liveRunId = useBaton((s) => s.liveRunId);
  useEffect(() => {
    void initLibrary();
    void initRun();
  }, [initLibrary, initRun]);
  const running = liveRunId !== null;
  return (
    <section className="page run-page" data-testid="run-page">
      <h1 className="page-title">Run a design</h1>
      <Interrupted />
      <div className="run-layout">
        <div className="run-setup">
          <div className="run-setup-cards" data-testid="run-setup-cards">
            <TaskPicker disabled={running} />
            <DesignPicker disabled={running} />
            <BackendPicker disabled={running} />
          </div>
          <RunControls />
        </div>
        <div className="run-view">
          {!running && <DesignPreview />}
          {liveTrace ? (
            <LiveRun trace={liveTrace} liveRunId={liveRunId} />
          ) : (
            <div className="empty">
              <strong>Nothing is running</strong>
              <div className="empty-body">
                The run appears here as it happens: each agent lights up when it starts and shows its output
                when it ends. When the run ends its trace opens, and it stays in the gallery’s recent traces.
              </div>
            </div>
          )}
        </div>
      </div>
    </section>
  );
}
