/**
 * The Train page's share link and ablation study, part of the Train slice (train.ts spreads it in
 * and hands it the run's snapshot and Build's checkpoint keeper):
 *
 * - "Share run": the current run as a `#r=1.…` link (services/train-share.ts), with the trained
 *   parameters only when they fit;
 * - the read-only view of a shared run: the decoded record, a CPU re-run in the training worker
 *   compared number for number (`firstDifference`), and "Use in Build" when the link carries
 *   parameters;
 * - the ablation study: every chosen variant × seed in the worker, progress per iteration,
 *   cancellable, the summary table and mean curves when done.
 */
import { problemOf } from '../../core/errors.ts';
import type { Problem } from '../../core/result.ts';
import type { PolicyCheckpoint } from '../../policy/index.ts';
import {
  ABLATION_VARIANTS,
  MAX_RECORD_ITERATIONS,
  builtInStart,
  recordCheckpoint,
  type AblationStudy,
  type RunRecord,
  type TrainerSnapshot,
} from '../../train/index.ts';
import { trainEnv, type AblationProgressReport } from '../services/train.ts';
import {
  buildRunLink,
  readRunLink,
  rerunStart,
  rerunVerdict,
  type RunLink,
} from '../services/train-share.ts';
import type { BatonState } from '../store.ts';
import { checkTrainForm } from './train-form.ts';
import { createRing, pushRow, SERIES, type MetricRing, type Series } from './train-ring.ts';

// What the page needs from below the store, through this slice.
export { ABLATION_VARIANTS, MAX_RECORD_ITERATIONS, ablationMarkdown } from '../../train/index.ts';
export type { AblationStudy, CurvePoint, RunRecord } from '../../train/index.ts';
export { paramsNote, rerunStart } from '../services/train-share.ts';

export type RerunState =
  | { status: 'idle' }
  | { status: 'running'; iteration: number; iterations: number }
  | { status: 'done'; exact: boolean; text: string }
  | { status: 'error'; problems: Problem[] };

export interface AblationSettings {
  /** Training seeds: base.seed, base.seed + 1, … */
  seeds: number;
  iterations: number;
  /** Variant ids of `ABLATION_VARIANTS`. */
  variants: string[];
  /** Held-out tasks each trained policy is scored on (the page's evaluation seed). */
  evalN: number;
}

export const DEFAULT_ABLATION: AblationSettings = {
  seeds: 5,
  iterations: 20,
  variants: ABLATION_VARIANTS.map((v) => v.id),
  evalN: 40,
};

export type AblationState =
  | { status: 'idle' }
  | { status: 'running'; progress: AblationProgressReport | null }
  | { status: 'done'; study: AblationStudy }
  | { status: 'error'; problems: Problem[] };

export interface TrainShareSlice {
  /** The link made by "Share run" (null until made). */
  trainShareLink: RunLink | null;
  /** The shared run shown read-only, or why its link could not be read. */
  trainShared: { input: string; record: RunRecord } | { input: string; problems: Problem[] } | null;
  trainRerun: RerunState;
  trainAblationSettings: AblationSettings;
  trainAblation: AblationState;

  shareTrainRun(base: string): Promise<RunLink | null>;
  /** Decodes `#r=…` for the read-only view (the same input again is a no-op). */
  openTrainRunLink(input: string): void;
  /** Re-trains the shared run from its config on the CPU and compares every recorded number. */
  rerunSharedRun(): Promise<void>;
  /** Keeps the shared run's trained parameters among Build's checkpoints; its name, or null. */
  useSharedInBuild(): Promise<string | null>;
  setAblationSettings(s: Partial<AblationSettings>): void;
  startAblation(): Promise<void>;
  cancelAblation(): void;
}

export interface TrainShareDeps {
  set: (partial: Partial<BatonState>) => void;
  get: () => BatonState;
  /** The run's snapshot (from the worker or the one saved), or null with the problem shown. */
  snapshot: () => Promise<TrainerSnapshot | null>;
  keepForBuild: (cp: PolicyCheckpoint) => Promise<string | null>;
}

const workerProblems = (errors: readonly Problem[]): Problem[] =>
  errors.map((e) => (e.code.startsWith('E_WORKER') ? problemOf('E_TRAIN_WORKER', e.message) : e));

export function createTrainShareSlice({ set, get, snapshot, keepForBuild }: TrainShareDeps): TrainShareSlice {
  let ablation: AbortController | null = null;

  return {
    trainShareLink: null,
    trainShared: null,
    trainRerun: { status: 'idle' },
    trainAblationSettings: DEFAULT_ABLATION,
    trainAblation: { status: 'idle' },

    async shareTrainRun(base) {
      const s = await snapshot();
      if (!s) return null;
      if (s.history.length === 0) {
        set({ trainProblems: [problemOf('E_TRAIN_NOTHING', 'train at least one iteration first')] });
        return null;
      }
      if (s.history.length > MAX_RECORD_ITERATIONS) {
        set({
          trainProblems: [
            problemOf(
              'E_TRAIN_LINK',
              `a link holds at most ${MAX_RECORD_ITERATIONS} iterations and this run has ${s.history.length}; download the snapshot instead`,
            ),
          ],
        });
        return null;
      }
      const link = buildRunLink(s, get().trainEvaluation, base);
      set({ trainShareLink: link });
      return link;
    },

    openTrainRunLink(input) {
      if (get().trainShared?.input === input) return;
      const r = readRunLink(input);
      set({
        trainShared: r.ok ? { input, record: r.value } : { input, problems: r.errors },
        trainRerun: { status: 'idle' },
      });
    },

    async rerunSharedRun() {
      const shared = get().trainShared;
      if (!shared || !('record' in shared) || get().trainRerun.status === 'running') return;
      const record = shared.record;
      const from = rerunStart(record);
      if (!from) {
        set({
          trainRerun: {
            status: 'error',
            problems: [problemOf('E_TRAIN_RERUN', `it started from "${record.from}", which is not built in`)],
          },
        });
        return;
      }
      if (record.iterations === 0) {
        set({
          trainRerun: { status: 'error', problems: [problemOf('E_TRAIN_RERUN', 'it has no iterations')] },
        });
        return;
      }
      set({ trainRerun: { status: 'running', iteration: 0, iterations: record.iterations } });
      const r = await trainEnv()
        .client()
        .rerun(
          { config: record.config, from, iterations: record.iterations },
          { onProgress: (p) => set({ trainRerun: { status: 'running', ...p } }) },
        );
      if (get().trainShared !== shared) return;
      if (!r.ok) {
        set({ trainRerun: { status: 'error', problems: workerProblems(r.errors) } });
        return;
      }
      const v = rerunVerdict(record, r.value);
      set({ trainRerun: { status: 'done', exact: v.exact, text: v.text } });
    },

    async useSharedInBuild() {
      const shared = get().trainShared;
      if (!shared || !('record' in shared)) return null;
      const start = builtInStart(shared.record.from);
      const cp = start
        ? recordCheckpoint(shared.record, start)
        : { ok: false as const, reason: `its start "${shared.record.from}" is not built in` };
      if (!cp.ok) {
        set({ trainRerun: { status: 'error', problems: [problemOf('E_TRAIN_LINK', cp.reason)] } });
        return null;
      }
      return keepForBuild(cp.checkpoint);
    },

    setAblationSettings(s) {
      set({ trainAblationSettings: { ...get().trainAblationSettings, ...s } });
    },

    async startAblation() {
      if (ablation) return;
      const settings = get().trainAblationSettings;
      const fail = (detail: string): void =>
        set({ trainAblation: { status: 'error', problems: [problemOf('E_TRAIN_ABLATION', detail)] } });
      const c = checkTrainForm(get().trainForm);
      if (!c.ok) {
        fail(
          Object.entries(c.byField)
            .map(([k, v]) => `${k}: ${v.join(', ')}`)
            .join('; '),
        );
        return;
      }
      if (!Number.isInteger(settings.seeds) || settings.seeds < 1 || settings.seeds > 20)
        return fail('seeds must be a whole number from 1 to 20');
      if (!Number.isInteger(settings.iterations) || settings.iterations < 1 || settings.iterations > 1000)
        return fail('iterations must be a whole number from 1 to 1000');
      if (settings.variants.length === 0) return fail('choose at least one variant');
      const f = get().trainFrom;
      const from = f.kind === 'checkpoint' ? ({ kind: 'prior' } as const) : f;
      const base = c.config;
      const seeds = Array.from({ length: settings.seeds }, (_, i) => (base.seed + i) >>> 0);
      const variants = ABLATION_VARIANTS.filter((v) => settings.variants.includes(v.id)).map((v) => v.id);
      const controller = new AbortController();
      ablation = controller;
      set({ trainAblation: { status: 'running', progress: null } });
      const r = await trainEnv()
        .client()
        .ablation(
          {
            base,
            from,
            variants,
            seeds,
            iterations: settings.iterations,
            evalN: settings.evalN,
            evalSeed: 1,
            backend: get().trainCompute,
          },
          {
            signal: controller.signal,
            onProgress: (p) => set({ trainAblation: { status: 'running', progress: p } }),
          },
        );
      if (ablation === controller) ablation = null;
      if (controller.signal.aborted) {
        set({ trainAblation: { status: 'idle' } });
        return;
      }
      set({
        trainAblation: r.ok
          ? { status: 'done', study: r.value }
          : { status: 'error', problems: workerProblems(r.errors) },
      });
    },

    cancelAblation() {
      ablation?.abort();
      ablation = null;
      set({ trainAblation: { status: 'idle' } });
    },
  };
}

/** A shared run's curves as the charts' ring buffer (no episodes/s or held-out points recorded). */
export function recordRing(record: RunRecord): MetricRing {
  const ring = createRing(Math.max(1, record.iterations));
  const c = record.curves;
  for (let i = 0; i < record.iterations; i++) {
    const values: Record<Series, number> = {
      iteration: i + 1,
      reward: c.meanReward[i] ?? NaN,
      rewardStd: c.rewardStd[i] ?? NaN,
      accuracy: c.accuracy[i] ?? NaN,
      heldout: NaN,
      tokens: c.tokens[i] ?? NaN,
      agents: c.agents[i] ?? NaN,
      edges: c.edges[i] ?? NaN,
      depth: c.depth[i] ?? NaN,
      nodeEntropy: c.nodeEntropy[i] ?? NaN,
      edgeEntropy: c.edgeEntropy[i] ?? NaN,
      kl: c.kl[i] ?? NaN,
      clipFraction: c.clipFraction[i] ?? NaN,
      gradNorm: c.gradNorm[i] ?? NaN,
      loss: c.loss[i] ?? NaN,
      eps: NaN,
    };
    const roles = Object.fromEntries(Object.entries(record.roles).map(([n, xs]) => [n, xs[i] ?? 0]));
    pushRow(ring, Float64Array.from(SERIES.map((k) => values[k])), roles);
  }
  return ring;
}
