import { useMemo, useRef, type JSX } from 'react';
import {
  AXES,
  MAX_AXIS_VALUE,
  MIN_AXIS_VALUE,
  formTask,
  type Axis,
  type BuildForm,
  type PolicySpec,
} from '../../store/slices/build.ts';
import { useBaton } from '../../store/store.ts';
import type { BatonState } from '../../store/store.ts';

const selectForm = (s: BatonState): BuildForm => s.buildForm;
const selectCheckpoints = (s: BatonState): string[] => s.buildCheckpoints;
const selectLoading = (s: BatonState): boolean => s.buildLoading;
const selectStarted = (s: BatonState): boolean => s.buildSession !== null;

const policyValue = (p: PolicySpec): string => (p.kind === 'checkpoint' ? `checkpoint:${p.name}` : p.kind);

function parsePolicy(value: string, current: PolicySpec): PolicySpec {
  if (value === 'prior') return { kind: 'prior' };
  if (value === 'random') return { kind: 'random', seed: current.kind === 'random' ? current.seed : 0 };
  return { kind: 'checkpoint', name: value.slice('checkpoint:'.length) };
}

const toInt = (v: string, fallback: number): number => {
  const n = Number(v);
  return Number.isFinite(n) ? Math.trunc(n) : fallback;
};

/** Task, policy, temperature and seed; Start (re)opens an empty construction with them. */
export function SetupPanel(): JSX.Element {
  const form = useBaton(selectForm);
  const checkpoints = useBaton(selectCheckpoints);
  const loading = useBaton(selectLoading);
  const started = useBaton(selectStarted);
  const setForm = useBaton((s) => s.setBuildForm);
  const start = useBaton((s) => s.startBuild);
  const loadFile = useBaton((s) => s.loadCheckpointFile);
  const fileInput = useRef<HTMLInputElement>(null);
  const generated = useMemo(() => (form.source === 'masbench' ? formTask(form) : null), [form]);

  return (
    <form
      className="build-setup"
      data-testid="build-setup"
      onSubmit={(e) => {
        e.preventDefault();
        void start();
      }}
    >
      <fieldset className="build-fieldset">
        <legend>Task</legend>
        <div className="seg" role="radiogroup" aria-label="Task source">
          <label className={form.source === 'masbench' ? 'seg-item on' : 'seg-item'}>
            <input
              type="radio"
              name="task-source"
              checked={form.source === 'masbench'}
              onChange={() => setForm({ source: 'masbench' })}
              data-testid="source-masbench"
            />
            MASBench
          </label>
          <label className={form.source === 'custom' ? 'seg-item on' : 'seg-item'}>
            <input
              type="radio"
              name="task-source"
              checked={form.source === 'custom'}
              onChange={() => setForm({ source: 'custom' })}
              data-testid="source-custom"
            />
            Own query
          </label>
        </div>
        {form.source === 'masbench' ? (
          <>
            <div className="build-grid3">
              <label>
                Axis
                <select
                  className="input"
                  value={form.axis}
                  onChange={(e) => setForm({ axis: e.target.value as Axis })}
                  data-testid="task-axis"
                >
                  {AXES.map((a) => (
                    <option key={a} value={a}>
                      {a}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                Value
                <input
                  className="input"
                  type="number"
                  min={MIN_AXIS_VALUE}
                  max={MAX_AXIS_VALUE}
                  value={form.value}
                  onChange={(e) => setForm({ value: toInt(e.target.value, form.value) })}
                  data-testid="task-value"
                />
              </label>
              <label>
                Seed
                <input
                  className="input"
                  type="number"
                  min={0}
                  value={form.taskSeed}
                  onChange={(e) => setForm({ taskSeed: toInt(e.target.value, form.taskSeed) })}
                  data-testid="task-seed"
                />
              </label>
            </div>
            {typeof generated === 'string' ? (
              <div className="alert alert-error small">{generated}</div>
            ) : (
              generated && (
                <details className="task-peek">
                  <summary>
                    {generated.id} · ground truth{' '}
                    <strong className="mono" data-testid="ground-truth">
                      {generated.answers.join(', ')}
                    </strong>
                  </summary>
                  <pre className="task-question">{generated.question}</pre>
                </details>
              )
            )}
          </>
        ) : (
          <label>
            Query
            <textarea
              className="input"
              rows={4}
              value={form.query}
              placeholder="What should the multi-agent system answer?"
              onChange={(e) => setForm({ query: e.target.value })}
              data-testid="task-query"
            />
            <span className="muted small">No ground truth: steps are not executed and earn no reward.</span>
          </label>
        )}
      </fieldset>

      <fieldset className="build-fieldset">
        <legend>Policy</legend>
        <label>
          Checkpoint
          <select
            className="input"
            value={policyValue(form.policy)}
            onChange={(e) => setForm({ policy: parsePolicy(e.target.value, form.policy) })}
            data-testid="policy-select"
          >
            <option value="prior">prior (hand-set)</option>
            <option value="random">random (untrained, seeded)</option>
            {checkpoints.map((n) => (
              <option key={n} value={`checkpoint:${n}`}>
                {n}
              </option>
            ))}
          </select>
        </label>
        {form.policy.kind === 'random' && (
          <label>
            Initialisation seed
            <input
              className="input"
              type="number"
              min={0}
              value={form.policy.seed}
              onChange={(e) =>
                setForm({ policy: { kind: 'random', seed: Math.max(0, toInt(e.target.value, 0)) } })
              }
              data-testid="policy-seed"
            />
          </label>
        )}
        <button type="button" className="btn btn-small" onClick={() => fileInput.current?.click()}>
          Load checkpoint file…
        </button>
        <input
          ref={fileInput}
          type="file"
          accept=".json,application/json"
          hidden
          data-testid="checkpoint-file"
          onChange={(e) => {
            const f = e.target.files?.[0];
            if (f) void loadFile(f);
            e.target.value = '';
          }}
        />
        <div className="build-grid2">
          <label>
            Temperature τ
            <input
              className="input"
              type="number"
              min={0.05}
              max={10}
              step={0.05}
              value={form.temperature}
              onChange={(e) => setForm({ temperature: Number(e.target.value) })}
              data-testid="temperature"
            />
          </label>
          <label>
            Sampling seed
            <input
              className="input"
              type="number"
              min={0}
              value={form.seed}
              onChange={(e) => setForm({ seed: Math.max(0, toInt(e.target.value, 0)) })}
              data-testid="sampling-seed"
            />
          </label>
        </div>
      </fieldset>
      <button type="submit" className="btn btn-primary" disabled={loading} data-testid="build-start">
        {loading ? 'Loading policy…' : started ? 'Restart with these settings' : 'Start building'}
      </button>
    </form>
  );
}
