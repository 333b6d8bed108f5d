/**
 * The Train page's settings form: every constant of `TrainConfigSchema` (src/train/config.ts) as a
 * field, grouped as docs/train.md explains them, with the schema's own messages as validation. The
 * form holds what the user typed (numbers may be NaN while a box is empty); `checkTrainForm` runs
 * `parseTrainConfig` on it and files each problem under its field.
 */
import {
  ADVANTAGE_NORMS,
  ALGOS,
  PRESETS,
  PRESET_TABLE,
  parseTrainConfig,
  trainConfig,
  type TrainConfig,
} from '../../train/index.ts';

export type TrainForm = TrainConfig;

export const DEFAULT_TRAIN_FORM: TrainForm = trainConfig({});

export type FieldKind = 'number' | 'int' | 'bool' | 'choice';

export interface TrainField {
  /** Dotted path in the config, e.g. `lr` or `actionReward.exemption`. */
  path: string;
  label: string;
  kind: FieldKind;
  /** What it means, with units. */
  help: string;
  options?: readonly string[];
  step?: number;
}

export interface FieldGroup {
  title: string;
  fields: TrainField[];
}

export const TRAIN_FIELDS: readonly FieldGroup[] = [
  {
    title: 'Run',
    fields: [
      { path: 'algo', label: 'Algorithm', kind: 'choice', options: ALGOS, help: 'HRPO, GRPO or REINFORCE' },
      { path: 'preset', label: 'Preset', kind: 'choice', options: PRESETS, help: 'task distribution' },
      {
        path: 'tasksPerIteration',
        label: 'Tasks per iteration (B)',
        kind: 'int',
        help: 'tasks drawn per iteration',
      },
      { path: 'groupSize', label: 'Group size (G)', kind: 'int', help: 'constructions per task' },
      { path: 'maxSteps', label: 'Max steps', kind: 'int', help: 'construction step budget' },
      { path: 'temperature', label: 'Temperature τ', kind: 'number', step: 0.1, help: 'rollout sampling' },
      { path: 'seed', label: 'Seed', kind: 'int', help: 'tasks, sampling, minibatch order' },
      {
        path: 'evalEvery',
        label: 'Held-out eval every (iterations)',
        kind: 'int',
        help: 'a greedy held-out score of the current policy every N iterations, plotted as a point; 0 = off',
      },
    ],
  },
  {
    title: 'Reward',
    fields: [
      { path: 'lambda', label: 'Cost weight λ', kind: 'number', step: 0.01, help: 'R = correct − λ·cost' },
      {
        path: 'costScale',
        label: 'Cost scale (tokens)',
        kind: 'number',
        step: 1000,
        help: 'tokens at cost 1',
      },
      {
        path: 'advantageNorm',
        label: 'Group advantage',
        kind: 'choice',
        options: ADVANTAGE_NORMS,
        help: 'mean: R − mean of the group; std: also divided by the group std (GRPO)',
      },
      { path: 'gamma', label: 'Discount γ', kind: 'number', step: 0.01, help: 'of action rewards' },
      { path: 'baselineDecay', label: 'Baseline decay', kind: 'number', step: 0.01, help: 'REINFORCE b' },
    ],
  },
  {
    title: 'Action-wise rewards (HRPO)',
    fields: [
      { path: 'actionReward.gain', label: 'Gain', kind: 'number', step: 0.1, help: 'wrong → right' },
      { path: 'actionReward.loss', label: 'Loss', kind: 'number', step: 0.1, help: 'right → wrong (−loss)' },
      {
        path: 'actionReward.bonus',
        label: 'Bonus',
        kind: 'number',
        step: 0.1,
        help: 'right → right at t = 0',
      },
      { path: 'actionReward.bonusDecay', label: 'Bonus decay', kind: 'number', step: 0.05, help: 'per step' },
      {
        path: 'actionReward.exemption',
        label: 'Exemption T (steps)',
        kind: 'int',
        help: 'wrong → wrong free before',
      },
      {
        path: 'actionReward.penaltyRate',
        label: 'Penalty rate',
        kind: 'number',
        step: 0.01,
        help: 'per step after T',
      },
      {
        path: 'actionReward.penaltyMax',
        label: 'Penalty cap',
        kind: 'number',
        step: 0.1,
        help: 'wrong → wrong cap',
      },
    ],
  },
  {
    title: 'Update',
    fields: [
      {
        path: 'clipEps',
        label: 'PPO clip ε',
        kind: 'number',
        step: 0.05,
        help: 'ratio clipped to [1−ε, 1+ε]',
      },
      { path: 'epochs', label: 'Epochs (K)', kind: 'int', help: 'passes per iteration' },
      { path: 'minibatch', label: 'Minibatch (steps)', kind: 'int', help: 'steps per update' },
      { path: 'lr', label: 'Learning rate', kind: 'number', step: 0.0001, help: 'Adam α' },
      {
        path: 'gradClip',
        label: 'Gradient clip',
        kind: 'number',
        step: 0.1,
        help: 'global L2 norm; 0 = off',
      },
      {
        path: 'klCoef',
        label: 'KL weight β_KL',
        kind: 'number',
        step: 0.01,
        help: 'k3 KL to the start; 0 = off',
      },
      {
        path: 'entropyCoef',
        label: 'Entropy weight β_H',
        kind: 'number',
        step: 0.001,
        help: 'node entropy bonus',
      },
    ],
  },
  {
    title: 'Ablations',
    fields: [
      { path: 'actionRewards', label: 'Action-wise rewards', kind: 'bool', help: 'off = GRPO' },
      { path: 'exemption', label: 'Exemption time', kind: 'bool', help: 'off = T = 0' },
      { path: 'intermediate', label: 'Intermediate answers', kind: 'bool', help: 'run partial MASs' },
      { path: 'jpss', label: 'JPSS', kind: 'bool', help: 'edges see the chosen role' },
    ],
  },
];

const HRPO_ONLY = new Set(['gamma', 'actionRewards', 'exemption', 'intermediate']);

/**
 * Why a field has no effect with the rest of the form as it is (the page greys it out and says
 * so), or null when it counts: action-wise rewards and their settings are HRPO's only, the moving
 * baseline REINFORCE's only, the group advantage the group methods' only.
 */
export function inactiveReason(form: TrainForm, path: string): string | null {
  const algo = form.algo.toUpperCase();
  if (path.startsWith('actionReward.') || HRPO_ONLY.has(path)) {
    if (form.algo !== 'hrpo') return `only HRPO uses action-wise rewards; ${algo} ignores this setting`;
    if (path !== 'actionRewards' && !form.actionRewards) return 'action-wise rewards are switched off';
    if (path === 'actionReward.exemption' && !form.exemption) return 'the exemption time is switched off';
  }
  if (path === 'baselineDecay' && form.algo !== 'reinforce')
    return `only REINFORCE uses a moving baseline; ${algo} ignores this setting`;
  if (path === 'advantageNorm' && form.algo === 'reinforce')
    return 'REINFORCE uses a moving baseline, not a group advantage';
  return null;
}

/** A field's value in the form. */
export function fieldValue(form: TrainForm, path: string): unknown {
  let v: unknown = form;
  for (const k of path.split('.')) v = (v as Record<string, unknown> | undefined)?.[k];
  return v;
}

/** The form with one field set (nested objects copied, never mutated). */
export function withField(form: TrainForm, path: string, value: unknown): TrainForm {
  const [head, ...rest] = path.split('.');
  if (!head) return form;
  const rec = form as unknown as Record<string, unknown>;
  if (rest.length === 0) return { ...form, [head]: value } as TrainForm;
  const inner = (rec[head] ?? {}) as Record<string, unknown>;
  return { ...form, [head]: { ...inner, [rest.join('.')]: value } } as TrainForm;
}

export type FormCheck = { ok: true; config: TrainConfig } | { ok: false; byField: Record<string, string[]> };

/** Validates the form with the trainer's own schema; problems are filed under their field path. */
export function checkTrainForm(form: TrainForm): FormCheck {
  const r = parseTrainConfig(form);
  if (r.ok) return r;
  const byField: Record<string, string[]> = {};
  for (const p of r.problems) {
    const i = p.indexOf(': ');
    const path = i < 0 ? 'config' : p.slice(0, i);
    (byField[path] ??= []).push(i < 0 ? p : p.slice(i + 2));
  }
  return { ok: false, byField };
}

/** Each preset's one-line statement of what a policy trained on it should learn. */
export const PRESET_LEARNS: Readonly<Record<string, string>> = Object.fromEntries(
  PRESETS.map((p) => [p, PRESET_TABLE[p].learns]),
);

export { PRESETS };
