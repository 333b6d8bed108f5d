import { useRef, useState, type JSX } from 'react';
import type { BuildForm, ComputeChoice, PolicySpec } from '../../store/construction.ts';
import { useBaton, type BatonState } from '../../store/store.ts';
import { downloadText } from '../share/download.ts';
import { toInt } from './form-fields.ts';

const selectCheckpoints = (s: BatonState): string[] => s.buildCheckpoints;
const selectPool = (s: BatonState): BatonState['buildPool'] => s.buildPool;

const policyValue = (p: PolicySpec): string => (p.kind === 'checkpoint' ? `checkpoint:${p.name}` : p.kind);

function parsePolicy(value: string, current: PolicySpec): PolicySpec {
  if (value === 'prior') return { kind: 'prior' };
  if (value === 'random') return { kind: 'random', seed: current.kind === 'random' ? current.seed : 0 };
  return { kind: 'checkpoint', name: value.slice('checkpoint:'.length) };
}

/**
 * The policy: the role pool (with the editor's button), the checkpoint (built-in, or a file kept in
 * this browser: load, save, forget), temperature, sampling seed and where the network runs.
 */
export function PolicyFields({
  form,
  setForm,
  onEditRoles,
}: {
  form: BuildForm;
  setForm: (patch: Partial<BuildForm>) => void;
  onEditRoles: () => void;
}): JSX.Element {
  const checkpoints = useBaton(selectCheckpoints);
  const pool = useBaton(selectPool);
  const loadFile = useBaton((s) => s.loadCheckpointFile);
  const exportCheckpoint = useBaton((s) => s.exportBuildCheckpoint);
  const removeCheckpoint = useBaton((s) => s.removeCheckpoint);
  const [saving, setSaving] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  return (
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
        <button type="button" className="btn btn-small" onClick={onEditRoles} data-testid="build-roles-edit">
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
  );
}
