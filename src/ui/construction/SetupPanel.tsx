import { useMemo, useRef, useState, type JSX } from 'react';
import {
  ActionRewardConfigSchema,
  DEFAULT_ACTION_REWARD,
  type ActionRewardConfig,
} from '../../policy/rewards.ts';
import {
  AXES,
  MAX_AXIS_VALUE,
  MIN_AXIS_VALUE,
  formTask,
  type Axis,
  type BuildExecute,
  type BuildForm,
  type ComputeChoice,
  type PolicySpec,
} from '../../store/construction.ts';
import { PROVIDER_PRESETS, providerBlockers } from '../../store/slices/settings.ts';
import { useBaton } from '../../store/store.ts';
import { RolePoolEditor } from './RolePoolEditor.tsx';
import { downloadText } from '../share/download.ts';
import type { BatonState } from '../../store/store.ts';

const selectForm = (s: BatonState): BuildForm => s.buildForm;
const selectCheckpoints = (s: BatonState): string[] => s.buildCheckpoints;
const selectLoading = (s: BatonState): boolean => s.buildLoading;
const selectStarted = (s: BatonState): boolean => s.buildSession !== null;
const selectPool = (s: BatonState): BatonState['buildPool'] => s.buildPool;
const selectPools = (s: BatonState): BatonState['buildPools'] => s.buildPools;
/** The provider line as one string, so the panel re-renders only when it changes. */
const selectProvider = (s: BatonState): string =>
  JSON.stringify({
    label: PROVIDER_PRESETS[s.provider].label,
    model: s.connections[s.provider].model.trim(),
    blockers: providerBlockers(s),
  });

/** The reward constants with what each one does, in the order DESIGN.md lists the cases. */
const REWARD_FIELDS: { key: keyof ActionRewardConfig; label: string; step: number; title: string }[] = [
  { key: 'gain', label: 'wrong → right', step: 0.1, title: 'reward when a step makes the answer right' },
  { key: 'loss', label: 'right → wrong', step: 0.1, title: 'penalty when a step makes the answer wrong' },
  {
    key: 'bonus',
    label: 'right → right bonus',
    step: 0.1,
    title: 'bonus for keeping it right, times decay^t',
  },
  { key: 'bonusDecay', label: 'bonus decay', step: 0.05, title: 'the bonus shrinks by this factor per step' },
  { key: 'exemption', label: 'exemption T', step: 1, title: 'wrong → wrong is free before step T' },
  {
    key: 'penaltyRate',
    label: 'penalty rate',
    step: 0.05,
    title: 'wrong → wrong after T: rate × (t − T + 1)',
  },
  { key: 'penaltyMax', label: 'penalty cap', step: 0.1, title: 'largest wrong → wrong penalty' },
];

function rewardError(r: ActionRewardConfig): string | null {
  const p = ActionRewardConfigSchema.safeParse(r);
  if (p.success) return null;
  const i = p.error.issues[0];
  return `${String(i?.path[0] ?? '')}: ${i?.message ?? 'invalid'}`;
}

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
  const exportCheckpoint = useBaton((s) => s.exportBuildCheckpoint);
  const removeCheckpoint = useBaton((s) => s.removeCheckpoint);
  const provider = JSON.parse(useBaton(selectProvider)) as {
    label: string;
    model: string;
    blockers: string[];
  };
  const [saving, setSaving] = useState(false);
  const [editingRoles, setEditingRoles] = useState(false);
  const pool = useBaton(selectPool);
  const pools = useBaton(selectPools);
  const applyPool = useBaton((s) => s.applyBuildPool);
  const loadPool = useBaton((s) => s.loadBuildPool);
  const fileInput = useRef<HTMLInputElement>(null);
  // Generating a task is not free: only the fields that define it regenerate it.
  const { source, axis, value, taskSeed } = form;
  const generated = useMemo(
    () => (source === 'masbench' ? formTask({ axis, value, taskSeed }) : null),
    [source, axis, value, taskSeed],
  );
  const rewardProblem = form.execute !== 'off' ? rewardError(form.rewards) : null;

  return (
    <>
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
            </label>
          )}
          {form.source === 'custom' && (
            <label>
              Expected answer (optional)
              <input
                className="input"
                value={form.groundTruth}
                placeholder="grades intermediate and final answers"
                onChange={(e) => setForm({ groundTruth: e.target.value })}
                data-testid="task-ground-truth"
              />
              <span className="muted small">
                Without it answers are shown but not graded, and steps earn no reward.
              </span>
            </label>
          )}
        </fieldset>

        <fieldset className="build-fieldset">
          <legend>Policy</legend>
          <div className="build-roles-line" data-testid="build-roles">
            <span>
              Roles{' '}
              <span
                className="mono small"
                data-testid="build-roles-version"
                title={pool.roles.map((r) => r.name).join(', ')}
              >
                {pool.version}
              </span>{' '}
              <span className="muted small">({pool.roles.length})</span>
            </span>
            <button
              type="button"
              className="btn btn-small"
              onClick={() => setEditingRoles(true)}
              data-testid="build-roles-edit"
            >
              Edit roles…
            </button>
          </div>
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
          <div className="build-row">
            <button type="button" className="btn btn-small" onClick={() => fileInput.current?.click()}>
              Load checkpoint file…
            </button>
            <button
              type="button"
              className="btn btn-small"
              disabled={saving}
              title="Save the selected checkpoint (baton.policy/1) to a file"
              data-testid="checkpoint-save"
              onClick={() => {
                setSaving(true);
                void exportCheckpoint()
                  .then((f) => {
                    if (f) downloadText(`${f.name.replace(/[^A-Za-z0-9_.-]+/g, '_')}.policy.json`, f.text);
                  })
                  .finally(() => setSaving(false));
              }}
            >
              Save to file
            </button>
            {form.policy.kind === 'checkpoint' && (
              <button
                type="button"
                className="btn btn-small"
                title="Forget this checkpoint in this browser"
                data-testid="checkpoint-forget"
                onClick={() => {
                  if (form.policy.kind === 'checkpoint') void removeCheckpoint(form.policy.name);
                }}
              >
                Forget
              </button>
            )}
          </div>
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
          <label title="Where the policy network runs. Both backends give the same construction for the same seed.">
            Runs on
            <select
              className="input"
              value={form.compute}
              onChange={(e) => setForm({ compute: e.target.value as ComputeChoice })}
              data-testid="build-compute"
            >
              <option value="auto">auto</option>
              <option value="cpu">CPU (TypeScript kernels)</option>
              <option value="webgpu">WebGPU (WGSL kernels)</option>
            </select>
            {form.compute === 'auto' && (
              <span className="muted small">
                WebGPU on a hardware GPU; otherwise the CPU, which beats a software GPU.
              </span>
            )}
          </label>
        </fieldset>
        <fieldset className="build-fieldset">
          <legend>Intermediate answers</legend>
          <label>
            Execute each partial MAS on
            <select
              className="input"
              value={form.execute}
              onChange={(e) => setForm({ execute: e.target.value as BuildExecute })}
              data-testid="build-execute"
            >
              <option value="off">nothing (no intermediate answers)</option>
              <option value="simulator" disabled={form.source !== 'masbench'}>
                the simulator (simulated sub-agents; MASBench only)
              </option>
              <option value="provider">
                {provider.label}
                {provider.model !== '' ? ` · ${provider.model}` : ''} (Settings)
              </option>
            </select>
          </label>
          {form.execute === 'provider' &&
            (provider.blockers.length > 0 ? (
              <div className="alert alert-error small" data-testid="build-provider-blockers">
                {provider.blockers.join(' ')} <a href="#/settings">Open Settings</a>
              </div>
            ) : (
              <span className="muted small">
                Real calls, within the Settings budget for all steps together. Calls a step does not change
                are answered from a cache, so an ADD pays for the new agent and the summariser only.
              </span>
            ))}
          {form.execute !== 'off' && (
            <details className="build-rewards" data-testid="build-rewards">
              <summary>Action-wise reward constants</summary>
              <div className="build-grid2">
                {REWARD_FIELDS.map((f) => (
                  <label key={f.key} title={f.title}>
                    {f.label}
                    <input
                      className="input"
                      type="number"
                      step={f.step}
                      value={form.rewards[f.key]}
                      onChange={(e) =>
                        setForm({ rewards: { ...form.rewards, [f.key]: Number(e.target.value) } })
                      }
                      data-testid={`reward-${f.key}`}
                    />
                  </label>
                ))}
              </div>
              {rewardProblem && <div className="alert alert-error small">{rewardProblem}</div>}
              <button
                type="button"
                className="btn btn-small"
                onClick={() => setForm({ rewards: { ...DEFAULT_ACTION_REWARD } })}
              >
                Defaults
              </button>
            </details>
          )}
        </fieldset>
        <button type="submit" className="btn btn-primary" disabled={loading} data-testid="build-start">
          {loading ? 'Loading policy…' : started ? 'Restart with these settings' : 'Start building'}
        </button>
      </form>
      {editingRoles && (
        <RolePoolEditor
          pool={pool}
          saved={pools}
          onApply={(p) => void applyPool(p)}
          onLoadVersion={(v) => void loadPool(v)}
          onClose={() => setEditingRoles(false)}
        />
      )}
    </>
  );
}
