/**
 * The orchestrator mode's charts: which series each draws, and the columns they are drawn from
 * (one row per finished iteration). Pure.
 */
import { orchestratorCurves } from '../../store/slices/train-orch-share.ts';
import type { OrchMetrics } from '../../store/slices/train-orch.ts';
import type { ChartSpec } from './charts.ts';

export type OrchSeries =
  | 'reward'
  | 'rewardStd'
  | 'accuracy'
  | 'tokens'
  | 'agents'
  | 'depth'
  | 'delegated'
  | 'kl'
  | 'entropy'
  | 'clipFraction'
  | 'rolloutTps'
  | 'updateTps';

export type OrchColumns = Record<OrchSeries | 'iteration', (number | null)[]>;

export const ORCH_CHARTS: readonly ChartSpec<OrchSeries>[] = [
  {
    id: 'orch-reward',
    title: 'Reward R = correct − λ·cost (mean ± std over the designs)',
    lines: [{ series: 'reward', label: 'mean R', color: '#2563eb' }],
    band: 'rewardStd',
    digits: 3,
  },
  {
    id: 'orch-accuracy',
    title: 'Accuracy of the sampled designs',
    lines: [{ series: 'accuracy', label: 'accuracy', color: '#16a34a' }],
    digits: 3,
    yRange: [0, 1],
  },
  {
    id: 'orch-tokens',
    title: 'Tokens per task (sub-agent calls)',
    lines: [{ series: 'tokens', label: 'tokens', color: '#9333ea' }],
    digits: 0,
  },
  {
    id: 'orch-agents',
    title: 'Agents per design',
    lines: [
      { series: 'agents', label: 'agents', color: '#0891b2' },
      { series: 'depth', label: 'depth', color: '#64748b' },
    ],
    digits: 2,
  },
  {
    id: 'orch-delegated',
    title: 'Low-DoM queries delegated to an agent (share)',
    lines: [{ series: 'delegated', label: 'delegated', color: '#ea580c' }],
    digits: 3,
    yRange: [0, 1],
  },
  {
    id: 'orch-kl',
    title: 'KL to the SFT model (k3, nats per token)',
    lines: [{ series: 'kl', label: 'KL', color: '#b45309' }],
    digits: 4,
  },
  {
    id: 'orch-entropy',
    title: 'Entropy of the masked next-token distribution (nats)',
    lines: [{ series: 'entropy', label: 'entropy', color: '#7c3aed' }],
    digits: 3,
  },
  {
    id: 'orch-clip',
    title: 'Clip fraction (tokens)',
    lines: [{ series: 'clipFraction', label: 'clipped', color: '#0f766e' }],
    digits: 3,
    yRange: [0, 1],
  },
  {
    id: 'orch-tps',
    title: 'Tokens per second (worker)',
    lines: [
      { series: 'rolloutTps', label: 'rollout', color: '#1d4ed8' },
      { series: 'updateTps', label: 'update', color: '#db2777' },
    ],
    digits: 0,
  },
];

/**
 * One column per series, one row per iteration; a value the metrics lack is null (a gap). The
 * columns of a shared run's record (src/train orchestrator-record.ts), so both views draw the same.
 */
export const orchColumns = (history: readonly OrchMetrics[]): OrchColumns => orchestratorCurves(history);
