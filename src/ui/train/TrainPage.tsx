import { Suspense, lazy, useEffect, useRef, type JSX } from 'react';
import { navigate } from '../app/route.ts';
import { ProblemAlert } from '../common/ProblemAlert.tsx';
import { downloadText } from '../share/download.ts';
import type { TrainSample } from '../../store/slices/train.ts';
import { useBaton } from '../../store/store.ts';
import { AblationPanel } from './AblationPanel.tsx';
import { EvalPanel } from './EvalPanel.tsx';
import { MiniDag } from './MiniDag.tsx';
import { TrainCharts } from './TrainCharts.tsx';
import { ShareRun } from './ShareRun.tsx';
import { TrainSetup } from './TrainSetup.tsx';
import './train.css';

/** The "Orchestrator LM" mode, loaded when it is first chosen. */
const OrchTrainPanel = lazy(() => import('./OrchTrainPanel.tsx'));

function ModeSwitch(): JSX.Element {
  const mode = useBaton((s) => s.trainMode);
  const setMode = useBaton((s) => s.setTrainMode);
  return (
    <div className="train-mode" role="radiogroup" aria-label="What to train" data-testid="train-mode">
      {(
        [
          ['policy', 'Construction policy'],
          ['orchestrator', 'Orchestrator LM'],
        ] as const
      ).map(([m, label]) => (
        <label key={m} className={mode === m ? 'train-mode-on' : undefined}>
          <input
            type="radio"
            name="train-mode"
            checked={mode === m}
            onChange={() => setMode(m)}
            data-testid={`train-mode-${m}`}
          />{' '}
          {label}
        </label>
      ))}
    </div>
  );
}

/**
 * The Train page: fine-tune the construction policy in the tab. Settings and controls on top, the
 * live charts, what the policy builds now (one sampled design per axis), and the before/after
 * evaluation. Training runs in a Web Worker on simulated sub-agents; this page only reads the store
 * and calls its actions.
 */

function Controls(): JSX.Element {
  const status = useBaton((s) => s.trainStatus);
  const iteration = useBaton((s) => s.trainIteration);
  const savedAt = useBaton((s) => s.trainSavedAt);
  const hasRun = useBaton((s) => s.trainIteration > 0 || s.trainStatus !== 'idle');
  const ablating = useBaton((s) => s.trainAblation.status === 'running');
  const a = useBaton.getState();
  const busy = status === 'starting' || status === 'pausing' || status === 'evaluating';
  const running = status === 'running';
  const canContinue = (status === 'paused' || status === 'stopped') && !busy;
  return (
    <div className="train-controls">
      <button
        type="button"
        className="btn btn-primary"
        disabled={running || busy || ablating}
        title={ablating ? 'The ablation study is using the training worker' : undefined}
        onClick={() => void a.startTraining()}
        data-testid="train-start"
      >
        Start
      </button>
      <button
        type="button"
        className="btn"
        disabled={!running}
        title={running ? undefined : 'Nothing is training'}
        onClick={() => void a.pauseTraining()}
        data-testid="train-pause"
      >
        Pause
      </button>
      <button
        type="button"
        className="btn"
        disabled={!canContinue}
        title={canContinue ? undefined : 'Resume continues a paused or stopped run'}
        onClick={() => void a.resumeTraining()}
        data-testid="train-resume"
      >
        Resume
      </button>
      <button
        type="button"
        className="btn"
        disabled={!canContinue}
        title={canContinue ? undefined : 'Step runs one iteration of a paused or stopped run'}
        onClick={() => void a.stepTraining()}
        data-testid="train-step"
      >
        Step
      </button>
      <button
        type="button"
        className="btn"
        disabled={!running && status !== 'paused'}
        title={running || status === 'paused' ? undefined : 'Nothing is training'}
        onClick={() => void a.stopTraining()}
        data-testid="train-stop"
      >
        Stop
      </button>
      <button
        type="button"
        className="btn btn-ghost"
        disabled={busy || !hasRun}
        onClick={() => void a.resetTraining()}
        data-testid="train-reset"
      >
        Reset
      </button>
      <span className="train-status" data-testid="train-status" data-status={status}>
        {status} · iteration <span data-testid="train-iteration">{iteration}</span>
        {savedAt !== null && <span className="muted"> · snapshot saved at iteration {savedAt}</span>}
      </span>
    </div>
  );
}

/** Shown only with `?train-test-hooks` in the address: the e2e test's way to lose the GPU device. */
function TestHooks(): JSX.Element | null {
  const lose = useBaton((s) => s.loseTrainDevice);
  if (!new URLSearchParams(location.search).has('train-test-hooks')) return null;
  return (
    <div className="train-row">
      <button
        type="button"
        className="btn btn-small btn-danger"
        onClick={() =>
          void lose(1).then((armed) => {
            document.body.dataset.trainDeviceLossArmed = String(armed);
          })
        }
        data-testid="train-lose-device"
      >
        Destroy the GPU device at the next update (test)
      </button>
    </div>
  );
}

function Files(): JSX.Element {
  const snapshotInput = useRef<HTMLInputElement>(null);
  const checkpointInput = useRef<HTMLInputElement>(null);
  const a = useBaton.getState();
  const hasRun = useBaton((s) => s.trainIteration > 0);
  const busy = useBaton((s) => s.trainStatus === 'starting' || s.trainStatus === 'pausing');
  return (
    <div className="train-row">
      <button
        type="button"
        className="btn btn-primary"
        disabled={!hasRun || busy}
        onClick={() =>
          void a.useTrainedInBuild().then((name) => {
            if (name) navigate('#/build');
          })
        }
        data-testid="train-use-in-build"
      >
        Use in Build
      </button>
      <button
        type="button"
        className="btn btn-small"
        disabled={!hasRun}
        onClick={() => void a.exportTrainedCheckpoint().then((f) => f && downloadText(f.name, f.text))}
        data-testid="train-download-checkpoint"
      >
        Download checkpoint
      </button>
      <button
        type="button"
        className="btn btn-small"
        disabled={!hasRun}
        onClick={() => void a.exportTrainSnapshot().then((f) => f && downloadText(f.name, f.text))}
        data-testid="train-download-snapshot"
      >
        Download snapshot
      </button>
      <button type="button" className="btn btn-small" onClick={() => snapshotInput.current?.click()}>
        Open snapshot…
      </button>
      <button type="button" className="btn btn-small" onClick={() => checkpointInput.current?.click()}>
        Start from checkpoint file…
      </button>
      <input
        ref={snapshotInput}
        type="file"
        accept=".json,application/json"
        hidden
        data-testid="train-snapshot-file"
        onChange={(e) => {
          const f = e.target.files?.[0];
          if (f) void a.importTrainSnapshot(f);
          e.target.value = '';
        }}
      />
      <input
        ref={checkpointInput}
        type="file"
        accept=".json,application/json"
        hidden
        data-testid="train-checkpoint-file"
        onChange={(e) => {
          const f = e.target.files?.[0];
          if (f) void a.importStartCheckpoint(f);
          e.target.value = '';
        }}
      />
    </div>
  );
}

function Samples(): JSX.Element | null {
  const latest = useBaton((s) => s.trainLatest);
  const open = useBaton((s) => s.openSampleInBuild);
  if (!latest || latest.samples.length === 0) return null;
  return (
    <section className="train-section">
      <h2>What the policy builds now (iteration {latest.iteration}, sampled)</h2>
      <div className="train-samples">
        {(latest.samples as TrainSample[]).map((s) => (
          <figure key={s.axis} className="train-sample" data-testid="train-sample">
            <figcaption>
              <strong>{s.axis}</strong> {s.value} ·{' '}
              {s.correct === null ? 'no answer' : s.correct ? 'correct' : 'wrong'} · {s.design.agents.length}{' '}
              agents, {s.design.edges.length} edges
            </figcaption>
            <MiniDag design={s.design} label={`Sampled design for a ${s.axis} task`} />
            <button
              type="button"
              className="btn btn-small"
              onClick={() =>
                void open(s).then((name) => {
                  if (name) navigate('#/build');
                })
              }
              data-testid="train-sample-open"
            >
              Open in Build
            </button>
          </figure>
        ))}
      </div>
    </section>
  );
}

function Evaluation(): JSX.Element {
  const evaluation = useBaton((s) => s.trainEvaluation);
  const progress = useBaton((s) => s.trainEvalProgress);
  const status = useBaton((s) => s.trainStatus);
  const evaluate = useBaton((s) => s.evaluateTraining);
  return (
    <section className="train-section">
      <h2>Before / after on held-out tasks</h2>
      <div className="train-row">
        <button
          type="button"
          className="btn"
          disabled={status === 'evaluating' || status === 'starting' || status === 'pausing'}
          onClick={() => void evaluate()}
          data-testid="train-evaluate"
        >
          Evaluate prior, random and current
        </button>
        {progress && (
          <span className="muted">
            evaluating {progress.done}/{progress.total}…
          </span>
        )}
      </div>
      {evaluation && <EvalPanel evaluation={evaluation} />}
    </section>
  );
}

export function TrainPage(): JSX.Element {
  const mode = useBaton((s) => s.trainMode);
  return mode === 'orchestrator' ? (
    <section className="page train-page" data-testid="train-page">
      <header className="train-head">
        <h1>Train</h1>
        <ModeSwitch />
      </header>
      <Suspense fallback={<p className="muted">Loading the orchestrator trainer…</p>}>
        <OrchTrainPanel />
      </Suspense>
    </section>
  ) : (
    <PolicyTrainPage />
  );
}

function PolicyTrainPage(): JSX.Element {
  const problems = useBaton((s) => s.trainProblems);
  const notices = useBaton((s) => s.trainNotices);
  const resumable = useBaton((s) => s.trainResumable);
  const status = useBaton((s) => s.trainStatus);
  const dismiss = useBaton((s) => s.dismissTrainProblems);
  useEffect(() => {
    void useBaton.getState().initBuildCheckpoints();
    void useBaton.getState().initTrain();
  }, []);
  const locked = status === 'running' || status === 'starting' || status === 'pausing';
  return (
    <section className="page train-page" data-testid="train-page">
      <header className="train-head">
        <h1>Train</h1>
        <ModeSwitch />
        <p className="muted">
          Fine-tune the MasHost construction policy with policy gradients, in this tab. Tasks are generated
          MASBench tasks executed by <strong>simulated sub-agents</strong> (a simulation, not LLM calls).
        </p>
      </header>
      {problems.length > 0 && (
        <ProblemAlert title="Training" problems={problems} onDismiss={dismiss} testId="train-problems" />
      )}
      {notices.map((n) => (
        <div key={n} className="alert alert-warn" role="status" data-testid="train-notice">
          {n}
        </div>
      ))}
      {resumable && (
        <div className="alert alert-ok" data-testid="train-resumable">
          A {resumable.algo} run on the {resumable.preset} preset (from {resumable.start}) was saved in this
          browser at iteration {resumable.iteration}. Resume continues from it.
        </div>
      )}
      <TrainSetup locked={locked} />
      <Controls />
      <Files />
      <ShareRun />
      <TestHooks />
      <TrainCharts />
      <Samples />
      <Evaluation />
      <AblationPanel />
    </section>
  );
}
