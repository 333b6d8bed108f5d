/**
 * The Train page's "Orchestrator LM" mode: GRPO of the orchestrator LM in the training worker. The
 * setup (the SFT model, B, G, τ, λ, β_KL, β_H, learning rate, iterations, the backend and why), the
 * controls, the live charts, the designs sampled in the latest iteration as mini DAGs, the held-out
 * before/after evaluation and "Use in Orchestrate". Loaded with the mode (React.lazy), not with the
 * page; it reads the store and calls its actions only.
 */
import { useEffect, useMemo, type JSX } from 'react';
import { navigate } from '../app/route.ts';
import { ProblemAlert } from '../common/ProblemAlert.tsx';
import { COMPUTE_CHOICES, type ComputeChoice } from '../../store/construction.ts';
import type { OrchForm } from '../../store/slices/train-orch.ts';
import { useBaton } from '../../store/store.ts';
import { orchColumns } from './orch-charts.ts';
import { OrchCharts } from './OrchCharts.tsx';
import { OrchMetricsDownload } from './OrchMetricsDownload.tsx';
import { OrchModelPick } from './OrchModelPick.tsx';
import { OrchShareRun } from './OrchShareRun.tsx';
import { OrchCurveTable, OrchEvalTable, OrchSamples } from './OrchViews.tsx';

type NumField = { [K in keyof OrchForm]: OrchForm[K] extends number ? K : never }[keyof OrchForm];

const FIELDS: { key: NumField; label: string; step: number; min: number; title: string }[] = [
  {
    key: 'tasksPerIteration',
    label: 'B (queries / iteration)',
    step: 1,
    min: 1,
    title: 'MASBench train-split queries per iteration',
  },
  {
    key: 'groupSize',
    label: 'G (designs / query)',
    step: 1,
    min: 2,
    title: 'designs sampled per query: the group the advantage is centred over',
  },
  {
    key: 'temperature',
    label: 'temperature τ',
    step: 0.1,
    min: 0.1,
    title: 'sampling temperature; the learner scores tokens at the same τ',
  },
  {
    key: 'lambda',
    label: 'λ (cost weight)',
    step: 0.01,
    min: 0,
    title: 'R = correct − λ·min(1, tokens / cost scale)',
  },
  {
    key: 'klCoef',
    label: 'KL β',
    step: 0.01,
    min: 0,
    title: 'weight of the per-token k3 KL to the SFT model',
  },
  {
    key: 'entropyCoef',
    label: 'entropy bonus',
    step: 0.001,
    min: 0,
    title: 'weight of the masked next-token entropy',
  },
  { key: 'lr', label: 'learning rate', step: 0.0001, min: 0, title: 'Adam learning rate' },
  {
    key: 'iterations',
    label: 'iterations',
    step: 1,
    min: 1,
    title: 'Start and Resume run to this many iterations',
  },
  {
    key: 'maxNewTokens',
    label: 'max design tokens',
    step: 1,
    min: 8,
    title: 'most tokens a sampled design may take (plan included), capped by the positions the query leaves',
  },
  { key: 'seed', label: 'seed', step: 1, min: 0, title: 'seed of task draws, sampling and minibatch order' },
  {
    key: 'evalTasks',
    label: 'held-out tasks',
    step: 1,
    min: 1,
    title: 'test-split tasks of the before/after evaluation, each asked in low and high DoM',
  },
];

function Setup({ locked }: { locked: boolean }): JSX.Element {
  const form = useBaton((s) => s.orchForm);
  const set = useBaton((s) => s.setOrchForm);
  const model = useBaton((s) => s.orchTrain.model);
  const backend = useBaton((s) => s.orchTrain.backend);
  const compute = useBaton((s) => s.trainCompute);
  const setCompute = useBaton((s) => s.setTrainCompute);
  return (
    <div className="train-setup" data-testid="orch-setup">
      <OrchModelPick locked={locked} />
      <p data-testid="orch-sft-model">
        Run from: <strong>{model ? model.name : form.sftModel}</strong>{' '}
        <span className="muted">
          {model ? `· ${model.params.toLocaleString()} parameters, ${model.positions} positions · ` : ''}
          an offline model this build serves from models/, loaded as the Orchestrate page loads it; the run
          starts from it and is held near it by the KL term
        </span>
      </p>
      <fieldset className="train-groups orch-fields" disabled={locked}>
        {FIELDS.map((f) => (
          <label key={f.key} className="train-field" title={f.title}>
            <span>{f.label}</span>
            <input
              className="input"
              type="number"
              step={f.step}
              min={f.min}
              value={form[f.key]}
              onChange={(e) => {
                const v = Number(e.target.value);
                if (e.target.value !== '' && Number.isFinite(v)) set({ [f.key]: v });
              }}
              data-testid={`orch-field-${f.key}`}
            />
          </label>
        ))}
        <label className="train-field" title="Degree of MAS of the training queries">
          <span>DoM of the queries</span>
          <select
            className="input"
            value={form.dom}
            onChange={(e) => set({ dom: e.target.value as OrchForm['dom'] })}
            data-testid="orch-field-dom"
          >
            <option value="both">both (alternating)</option>
            <option value="low">low (one agent or none)</option>
            <option value="high">high (any DAG)</option>
          </select>
        </label>
      </fieldset>
      <div className="train-row">
        <label>
          Compute{' '}
          <select
            className="input"
            value={compute}
            disabled={locked}
            onChange={(e) => setCompute(e.target.value as ComputeChoice)}
            data-testid="orch-compute"
          >
            {COMPUTE_CHOICES.map((c) => (
              <option key={c} value={c}>
                {c === 'auto' ? 'auto (the probe decides)' : c}
              </option>
            ))}
          </select>
        </label>{' '}
        <span className="muted small" data-testid="orch-backend">
          {backend ? `${backend.backend}: ${backend.reason}` : 'backend chosen when the run starts'}
        </span>
      </div>
    </div>
  );
}

function Controls(): JSX.Element {
  const t = useBaton((s) => s.orchTrain);
  const iterations = useBaton((s) => s.orchForm.iterations);
  const a = useBaton.getState();
  const busy = ['starting', 'pausing', 'evaluating', 'exporting'].includes(t.status);
  const running = t.status === 'running';
  const canContinue = t.status === 'paused' && !busy;
  return (
    <div className="train-controls">
      <button
        type="button"
        className="btn btn-primary"
        disabled={running || busy}
        onClick={() => void a.startOrchTrain()}
        data-testid="orch-start"
      >
        Start
      </button>
      <button
        type="button"
        className="btn"
        disabled={!running}
        onClick={() => void a.pauseOrchTrain()}
        data-testid="orch-pause"
      >
        Pause
      </button>
      <button
        type="button"
        className="btn"
        disabled={!canContinue}
        onClick={() => void a.resumeOrchTrain()}
        data-testid="orch-resume"
      >
        Resume
      </button>
      <button
        type="button"
        className="btn"
        disabled={!canContinue}
        onClick={() => void a.stepOrchTrain()}
        data-testid="orch-step"
      >
        Step
      </button>
      <button
        type="button"
        className="btn btn-ghost"
        disabled={busy || (t.status === 'idle' && t.iteration === 0)}
        onClick={() => void a.resetOrchTrain()}
        data-testid="orch-reset"
      >
        Reset
      </button>
      <span className="train-status" data-testid="orch-status" data-status={t.status}>
        {t.status} · iteration <span data-testid="orch-iteration">{t.iteration}</span> of {iterations}
        {t.savedAt !== null && <span className="muted"> · checkpoint saved at iteration {t.savedAt}</span>}
      </span>
    </div>
  );
}

function Sampled(): JSX.Element | null {
  const sampled = useBaton((s) => s.orchTrain.sampled);
  const iteration = useBaton((s) => s.orchTrain.iteration);
  return <OrchSamples sampled={sampled} iteration={iteration} />;
}

function Evaluation(): JSX.Element {
  const e = useBaton((s) => s.orchTrain.evaluation);
  const status = useBaton((s) => s.orchTrain.status);
  const has = useBaton((s) => s.orchTrain.iteration > 0);
  const evaluate = useBaton((s) => s.evaluateOrchTrain);
  return (
    <section className="train-section">
      <h2>Before / after on held-out tasks</h2>
      <div className="train-row">
        <button
          type="button"
          className="btn"
          disabled={!has || status === 'running' || status === 'evaluating' || status === 'starting'}
          onClick={() => void evaluate()}
          data-testid="orch-evaluate"
        >
          Evaluate the SFT model and the current weights
        </button>
        {status === 'evaluating' && <span className="muted">evaluating…</span>}
      </div>
      {e && <OrchEvalTable e={e} />}
    </section>
  );
}

function LiveCurveTable(): JSX.Element | null {
  const history = useBaton((s) => s.orchTrain.history);
  const curves = useMemo(() => orchColumns(history), [history]);
  return history.length > 0 ? <OrchCurveTable curves={curves} /> : null;
}

function UseInOrchestrate(): JSX.Element {
  const t = useBaton((s) => s.orchTrain);
  const use = useBaton((s) => s.useOrchInOrchestrate);
  const busy = ['starting', 'pausing', 'evaluating', 'exporting', 'running'].includes(t.status);
  return (
    <div className="train-row">
      <button
        type="button"
        className="btn btn-primary"
        disabled={t.iteration === 0 || busy}
        title={t.status === 'running' ? 'Pause first' : undefined}
        onClick={() =>
          void use().then((url) => {
            if (url) navigate('#/orchestrate');
          })
        }
        data-testid="orch-use"
      >
        Use in Orchestrate
      </button>
      <span className="muted small" data-testid="orch-exported">
        {t.exported
          ? `Exported iteration ${t.exported.iteration} as ${t.exported.url} (${t.exported.files.length} files, kept in this browser)`
          : 'exports the current weights as a model folder (fp32, q8, q4) the Orchestrate page loads'}
      </span>
      {t.status === 'exporting' && <span className="muted">exporting…</span>}
    </div>
  );
}

function TestHooks(): JSX.Element | null {
  const lose = useBaton((s) => s.loseOrchDevice);
  if (!new URLSearchParams(location.search).has('train-test-hooks')) return null;
  return (
    <div className="train-row">
      <button
        type="button"
        className="btn btn-small btn-danger"
        onClick={() =>
          void lose(1).then((armed) => {
            document.body.dataset.orchDeviceLossArmed = String(armed);
          })
        }
        data-testid="orch-lose-device"
      >
        Destroy the GPU device after the next iteration (test)
      </button>
    </div>
  );
}

export default function OrchTrainPanel(): JSX.Element {
  const t = useBaton((s) => s.orchTrain);
  const dismiss = useBaton((s) => s.dismissOrchProblems);
  useEffect(() => {
    void useBaton.getState().initOrchTrain();
  }, []);
  const locked = t.status === 'running' || t.status === 'starting' || t.status === 'pausing';
  return (
    <div className="orch-train" data-testid="orch-train">
      <p className="muted">
        GRPO of the orchestrator LM (MAS-Orchestra's training loop, small): per iteration B queries × G
        designs sampled under constrained decoding, each run by <strong>simulated sub-agents</strong> (a
        simulation, not LLM calls), R = correct − λ·cost, group-centred advantages, PPO-clip on per-token
        log-ratios with a k3 KL to the SFT model. Training runs in a Web Worker.
      </p>
      {t.problems.length > 0 && (
        <ProblemAlert
          title="Orchestrator training"
          problems={t.problems}
          onDismiss={dismiss}
          testId="orch-problems"
        />
      )}
      {t.notices.map((n) => (
        <div key={n} className="alert alert-warn" role="status" data-testid="orch-notice">
          {n}
        </div>
      ))}
      {t.resumable && (
        <div className="alert alert-ok" data-testid="orch-resumable">
          A run from {t.resumable.model} was saved in this browser at iteration {t.resumable.iteration}.
          Resume continues from it.
        </div>
      )}
      <Setup locked={locked} />
      <Controls />
      <UseInOrchestrate />
      <OrchMetricsDownload />
      <TestHooks />
      <OrchCharts />
      <LiveCurveTable />
      <Sampled />
      <Evaluation />
      <OrchShareRun />
    </div>
  );
}
