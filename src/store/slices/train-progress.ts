/**
 * The Train slice's batching of the worker's progress reports: iteration and held-out reports wait
 * here and are applied together at the next frame (`frame`, the next animation frame in the page),
 * so however fast they arrive the page re-renders and the charts redraw at most once per frame.
 * The sampled designs shown (`trainLatest`) are refreshed at most once a second while a run goes,
 * and always on a final flush (when the run's call returns).
 */
import type { IterationMetrics } from '../../train/index.ts';
import type { FrameScheduler, TrainProgress } from '../services/train.ts';
import { pushRow, rowOf, setAt, type MetricRing } from './train-ring.ts';

type Report = Extract<TrainProgress, { kind: 'iteration' | 'heldout' }>;

export interface ProgressPatch {
  trainRingVersion: number;
  trainIteration?: number;
  trainLatest?: IterationMetrics;
}

export interface ProgressBatch {
  push(report: Report): void;
  /** Applies what is waiting now; `final` also shows the newest sampled designs. */
  flush(final?: boolean): void;
  /** Forgets what is waiting (a new run, a reset). */
  drop(): void;
}

export const SAMPLES_EVERY_MS = 1000;

export function createProgressBatch(deps: {
  ring: () => MetricRing;
  version: () => number;
  apply: (patch: ProgressPatch) => void;
  frame: FrameScheduler;
  now?: () => number;
}): ProgressBatch {
  const now = deps.now ?? (() => Date.now());
  let pending: Report[] = [];
  let cancelFrame: (() => void) | null = null;
  let latestShownAt = -Infinity;
  /** The newest iteration not yet shown in the sampled designs. */
  let unshown: IterationMetrics | null = null;

  const flush = (final = false): void => {
    cancelFrame?.();
    cancelFrame = null;
    const reports = pending;
    pending = [];
    if (reports.length === 0 && !final) return;
    const ring = deps.ring();
    let newest: IterationMetrics | null = null;
    for (const p of reports) {
      if (p.kind === 'iteration') {
        const m = p.metrics as unknown as IterationMetrics;
        pushRow(ring, rowOf(m, p.episodesPerSecond), m.roles);
        newest = m;
      } else setAt(ring, p.iteration, 'heldout', p.accuracy);
    }
    const patch: ProgressPatch = { trainRingVersion: deps.version() + 1 };
    if (newest) patch.trainIteration = newest.iteration;
    const t = now();
    if (newest && (final || t - latestShownAt >= SAMPLES_EVERY_MS)) {
      patch.trainLatest = newest;
      latestShownAt = t;
      unshown = null;
    } else if (newest) unshown = newest;
    else if (final && unshown) {
      patch.trainLatest = unshown;
      unshown = null;
    }
    deps.apply(patch);
  };

  return {
    push(report) {
      pending.push(report);
      cancelFrame ??= deps.frame(() => {
        cancelFrame = null;
        flush();
      });
    },
    flush,
    drop() {
      cancelFrame?.();
      cancelFrame = null;
      pending = [];
      unshown = null;
    },
  };
}
