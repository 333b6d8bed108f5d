import type { JSX } from 'react';
import { COMPUTE_CHOICES, type ComputeChoice } from '../../store/construction.ts';
import {
  PRESETS,
  PRESET_LEARNS,
  TRAIN_FIELDS,
  fieldValue,
  inactiveReason,
  type TrainField,
} from '../../store/slices/train-form.ts';
import type { TrainFromChoice } from '../../store/slices/train.ts';
import { useBaton } from '../../store/store.ts';

/**
 * The run's settings: the preset (with what it teaches), where training starts, the compute
 * backend, the simulator's threads, and a field for every constant of the trainer's config, grouped, each with the schema's
 * message when its value is refused. Locked while a run is going.
 */

const SIM_THREADS = [1, 2, 4, 8, 'auto'] as const;

/** A thread setting (simulator threads, rollout threads): 1, 2, 4, 8 or auto. */
function ThreadsSelect(p: {
  label: string;
  title: string;
  value: number | 'auto';
  disabled: boolean;
  onChange: (t: number | 'auto') => void;
  testId: string;
}): JSX.Element {
  return (
    <label title={p.title}>
      {p.label}{' '}
      <select
        className="input"
        value={String(p.value)}
        disabled={p.disabled}
        onChange={(e) => p.onChange(e.target.value === 'auto' ? 'auto' : Number(e.target.value))}
        data-testid={p.testId}
      >
        {SIM_THREADS.map((t) => (
          <option key={t} value={String(t)}>
            {t === 'auto'
              ? 'auto (a worker per core beyond two, up to 8 threads)'
              : t === 1
                ? '1 (the training thread)'
                : t}
          </option>
        ))}
      </select>
    </label>
  );
}

const fromValue = (f: TrainFromChoice): string =>
  f.kind === 'checkpoint' ? `checkpoint:${f.name}` : f.kind === 'random' ? 'random' : 'prior';

function Field({ field, locked }: { field: TrainField; locked: boolean }): JSX.Element {
  const form = useBaton((s) => s.trainForm);
  const problems = useBaton((s) => s.trainFormProblems[field.path]);
  const set = useBaton((s) => s.setTrainField);
  const value = fieldValue(form, field.path);
  const inactive = inactiveReason(form, field.path);
  const disabled = locked || inactive !== null;
  const id = `train-field-${field.path.replace('.', '-')}`;
  let input: JSX.Element;
  if (field.kind === 'bool')
    input = (
      <input
        id={id}
        type="checkbox"
        checked={value === true}
        disabled={disabled}
        onChange={(e) => set(field.path, e.target.checked)}
        data-testid={id}
      />
    );
  else if (field.kind === 'choice')
    input = (
      <select
        id={id}
        className="input"
        value={String(value)}
        disabled={disabled}
        onChange={(e) => set(field.path, e.target.value)}
        data-testid={id}
      >
        {(field.options ?? []).map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    );
  else
    input = (
      <input
        id={id}
        className="input"
        type="number"
        step={field.kind === 'int' ? 1 : (field.step ?? 'any')}
        value={typeof value === 'number' && Number.isFinite(value) ? value : ''}
        disabled={disabled}
        aria-invalid={problems ? true : undefined}
        onChange={(e) => set(field.path, e.target.value === '' ? NaN : Number(e.target.value))}
        data-testid={id}
      />
    );
  return (
    <div
      className={`train-field${field.kind === 'bool' ? ' train-field-bool' : ''}${inactive ? ' train-field-inactive' : ''}`}
      title={inactive ?? undefined}
      data-inactive={inactive ?? undefined}
    >
      <label htmlFor={id} title={inactive ? `${field.help} — ${inactive}` : field.help}>
        {field.label}
      </label>
      {input}
      {problems && (
        <span className="train-field-problem" role="alert" data-testid="train-field-problem">
          {problems.join('; ')}
        </span>
      )}
    </div>
  );
}

export function TrainSetup({ locked }: { locked: boolean }): JSX.Element {
  const form = useBaton((s) => s.trainForm);
  const from = useBaton((s) => s.trainFrom);
  const compute = useBaton((s) => s.trainCompute);
  const checkpoints = useBaton((s) => s.buildCheckpoints);
  const backend = useBaton((s) => s.trainBackend);
  const setField = useBaton((s) => s.setTrainField);
  const setFrom = useBaton((s) => s.setTrainFrom);
  const setCompute = useBaton((s) => s.setTrainCompute);
  const { sim: simThreads, rollouts: rolloutThreads } = useBaton((s) => s.trainThreads);
  const setThreads = useBaton((s) => s.setTrainThreads);
  // Rollout workers simulate their own blocks: with them the simulator pool stays off.
  const rolloutPool = rolloutThreads !== 1;
  return (
    <div className="train-setup">
      <fieldset className="train-presets" disabled={locked}>
        <legend>Preset</legend>
        {PRESETS.map((p) => (
          <label key={p} className="train-preset">
            <input
              type="radio"
              name="train-preset"
              value={p}
              checked={form.preset === p}
              onChange={() => setField('preset', p)}
              data-testid={`train-preset-${p}`}
            />
            <span>
              <strong>{p}</strong> <span className="muted">— learns to {PRESET_LEARNS[p]}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <div className="train-row">
        <label>
          Start from{' '}
          <select
            className="input"
            value={fromValue(from)}
            disabled={locked}
            onChange={(e) => {
              const v = e.target.value;
              setFrom(
                v === 'prior'
                  ? { kind: 'prior' }
                  : v === 'random'
                    ? { kind: 'random', seed: 0 }
                    : { kind: 'checkpoint', name: v.slice('checkpoint:'.length) },
              );
            }}
            data-testid="train-from"
          >
            <option value="prior">prior (hand-set)</option>
            <option value="random">random (untrained, seed 0)</option>
            {checkpoints.map((n) => (
              <option key={n} value={`checkpoint:${n}`}>
                saved: {n}
              </option>
            ))}
          </select>
        </label>
        <label>
          Compute{' '}
          <select
            className="input"
            value={compute}
            disabled={locked}
            onChange={(e) => setCompute(e.target.value as ComputeChoice)}
            data-testid="train-compute"
          >
            {COMPUTE_CHOICES.map((c) => (
              <option key={c} value={c}>
                {c === 'auto'
                  ? 'auto (WebGPU on a hardware adapter, else WebAssembly)'
                  : c === 'cpu'
                    ? 'CPU'
                    : 'WebGPU'}
              </option>
            ))}
          </select>
        </label>
        <ThreadsSelect
          label="Simulator threads"
          title="The simulated sub-agents of each iteration on the training thread and simulator workers beside it; the numbers are the same on any count"
          value={rolloutPool ? 1 : simThreads}
          disabled={locked || rolloutPool}
          onChange={(t) => setThreads('sim', t)}
          testId="train-sim-threads"
        />
        <ThreadsSelect
          label="Rollout threads"
          title="Each iteration's constructions sampled in blocks, one on the training thread and one whole (policy passes and simulated sub-agents) on each rollout worker beside it, when rollouts are sampled on the CPU side; the numbers are the same on any count"
          value={rolloutThreads}
          disabled={locked}
          onChange={(t) => setThreads('rollouts', t)}
          testId="train-rollout-threads"
        />
        <span className="muted small" data-testid="train-backend">
          {backend ? `${backend.backend}: ${backend.reason}` : 'backend chosen when the run starts'}
        </span>
      </div>
      <details className="train-config">
        <summary>All settings</summary>
        <div className="train-groups">
          {TRAIN_FIELDS.map((g) => {
            // A group none of whose fields counts says why once, under its title.
            const reasons = g.fields.map((f) => inactiveReason(form, f.path));
            const why = reasons.every((r) => r !== null && r === reasons[0]) ? reasons[0] : null;
            return (
              <fieldset
                key={g.title}
                className={why ? 'train-group train-group-inactive' : 'train-group'}
                disabled={locked}
                data-testid={`train-group-${g.title.split(' ')[0]?.toLowerCase()}`}
              >
                <legend>{g.title}</legend>
                {why && (
                  <p className="train-inactive-note" data-testid="train-inactive-note">
                    Not used: {why}.
                  </p>
                )}
                {g.fields.map((f) => (
                  <Field key={f.path} field={f} locked={locked} />
                ))}
              </fieldset>
            );
          })}
        </div>
      </details>
    </div>
  );
}
