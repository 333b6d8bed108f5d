/**
 * The Train page: the settings form, the run's status and controls (start, pause, resume, step,
 * stop, reset), the metrics history the charts draw (a ring buffer, `train-ring.ts`), the held-out
 * evaluation, snapshots kept in IndexedDB (every N iterations and on pause; offered for resuming
 * after a reload), files in and out, and handing the trained policy to the Build page.
 *
 * The trainer runs in a Web Worker (src/workers/train.worker.ts); this slice only calls it through
 * `trainEnv().client()` and records what it reports.
 */
import { problemOf } from '../../core/errors.ts';
import type { Problem } from '../../core/result.ts';
import { serializeCheckpoint, type PolicyCheckpoint } from '../../policy/index.ts';
import {
  snapshotFromJson,
  snapshotToJson,
  type IterationMetrics,
  type TrainerSnapshot,
} from '../../train/index.ts';
import {
  trainEnv,
  type Evaluation,
  type SimThreads,
  type StructureRow,
  type TrainProgress,
} from '../services/train.ts';
import type { ComputeChoice } from '../construction.ts';
import { readFileText, type TextSource } from '../services/files.ts';
import { checkpointFromText } from '../services/policy-checkpoints.ts';

import type { SliceCreator } from '../store.ts';
import { buildEnv } from './build-env.ts';
import { DEFAULT_TRAIN_FORM, checkTrainForm, withField, type TrainForm } from './train-form.ts';
import { createTrainShareSlice, type TrainShareSlice } from './train-share.ts';
import { createRing, latest, pushRow, rowOf, setAt, type MetricRing } from './train-ring.ts';
import { createProgressBatch } from './train-progress.ts';
import { threadsOf, type TrainThreads } from './train-threads.ts';
import { formForSample } from './train-sample.ts';

export type { Evaluation, SimThreads, StructureRow };

export type TrainStatus =
  'idle' | 'starting' | 'running' | 'pausing' | 'paused' | 'stopped' | 'evaluating' | 'error';

/** Where a new run starts: a fresh random policy, the hand-set prior, or a checkpoint kept for Build. */
export type TrainFromChoice =
  { kind: 'random'; seed: number } | { kind: 'prior' } | { kind: 'checkpoint'; name: string };

export interface TrainBackend {
  backend: 'cpu' | 'wasm' | 'webgpu';
  reason: string;
}

/** A sampled design of the latest iteration, as the page shows it. */
export type TrainSample = IterationMetrics['samples'][number];

/** Largest snapshot or checkpoint file read. */
export const MAX_TRAIN_FILE_BYTES = 64 * 1024 * 1024;

export interface TrainSlice extends TrainShareSlice {
  trainForm: TrainForm;
  /** Problems of the form by field path (empty when valid). */
  trainFormProblems: Record<string, string[]>;
  trainFrom: TrainFromChoice;
  trainCompute: ComputeChoice;
  /** Threads of the run's simulated sub-agents and rollouts (train-threads.ts). */
  trainThreads: TrainThreads;
  trainStatus: TrainStatus;
  /** The backend the worker trains on, and why (also after a device loss). */
  trainBackend: TrainBackend | null;
  /** Iterations finished. */
  trainIteration: number;
  /** Chart data; mutated in place, `trainRingVersion` bumps on every change. */
  trainRing: MetricRing;
  trainRingVersion: number;
  /** The newest iteration's metrics (sampled designs, roles). */
  trainLatest: IterationMetrics | null;
  /** Iteration of the snapshot last saved in this browser (null: none). */
  trainSavedAt: number | null;
  /** A snapshot found in this browser on load, offered for resuming. */
  trainResumable: { iteration: number; algo: string; preset: string; start: string } | null;
  trainEvaluation: Evaluation | null;
  trainEvalProgress: { done: number; total: number } | null;
  /** Things that happened that the user should know (a lost GPU device). */
  trainNotices: string[];
  trainProblems: Problem[];

  initTrain(): Promise<void>;
  setTrainField(path: string, value: unknown): void;
  setTrainFrom(from: TrainFromChoice): void;
  setTrainCompute(c: ComputeChoice): void;
  setTrainThreads(which: 'sim' | 'rollouts', t: SimThreads): void;
  /** A new run from the form and the chosen start, then runs until paused. */
  startTraining(): Promise<void>;
  pauseTraining(): Promise<void>;
  /** Continues the run: in the worker, or from the saved snapshot after a reload. */
  resumeTraining(): Promise<void>;
  /** One iteration, then paused. */
  stepTraining(): Promise<void>;
  /** Ends the run (its snapshot stays saved). */
  stopTraining(): Promise<void>;
  /** Forgets the run, its charts and its saved snapshot. */
  resetTraining(): Promise<void>;
  evaluateTraining(n?: number, seed?: number): Promise<void>;
  /** Keeps the current policy among Build's checkpoints and selects it there; its name, or null. */
  useTrainedInBuild(): Promise<string | null>;
  /** As `useTrainedInBuild`, with the sample's task set in Build's form. */
  openSampleInBuild(sample: TrainSample): Promise<string | null>;
  exportTrainSnapshot(): Promise<{ name: string; text: string } | null>;
  exportTrainedCheckpoint(): Promise<{ name: string; text: string } | null>;
  /** Reads a `baton.train/1` file, keeps it as the saved snapshot and shows it, paused. */
  importTrainSnapshot(file: TextSource): Promise<void>;
  /** Reads a `baton.policy/1` file, keeps it for Build and makes it the start of the next run. */
  importStartCheckpoint(file: TextSource): Promise<void>;
  dismissTrainProblems(): void;
  /**
   * Test hook (the page shows it with `?train-test-hooks`): destroys the WebGPU device the worker
   * trains on after that many more minibatch updates, to exercise device-loss recovery.
   */
  loseTrainDevice(afterUpdates: number): Promise<boolean>;
}

const workerProblems = (errors: readonly Problem[]): Problem[] =>
  errors.map((e) => problemOf('E_TRAIN_WORKER', e.message));

export const createTrainSlice: SliceCreator<TrainSlice> = (set, get) => {
  /** Aborting it pauses the run in flight. */
  let running: AbortController | null = null;
  /** The run `running` belongs to finished its call. */
  let loop: Promise<void> | null = null;
  /** The worker holds a trainer for the run shown (false after a reload or reset). */
  let live = false;
  /** The snapshot shown when the worker holds nothing (loaded or uploaded). */
  let stored: TrainerSnapshot | null = null;

  const problems = (p: Problem[]): void => set({ trainProblems: p });

  const bump = (): void => set({ trainRingVersion: get().trainRingVersion + 1 });

  const fillRing = (history: readonly IterationMetrics[]): void => {
    dropPending();
    const ring = createRing(get().trainRing.capacity);
    for (const m of history) pushRow(ring, rowOf(m, NaN), m.roles);
    set({ trainRing: ring, trainLatest: history[history.length - 1] ?? null });
    bump();
  };

  /**
   * The iteration that was running when a pause arrived finishes in the worker, but a cancelled
   * call's reports are not delivered: its row comes from the snapshot's history (no episodes/s).
   */
  const catchUp = (history: readonly IterationMetrics[]): void => {
    const ring = get().trainRing;
    const last = latest(ring, 'iteration');
    const missing = history.filter((m) => !(m.iteration <= last));
    if (missing.length === 0) return;
    for (const m of missing) pushRow(ring, rowOf(m, NaN), m.roles);
    set({ trainLatest: missing[missing.length - 1] ?? get().trainLatest });
    bump();
  };

  /** A snapshot sent by the worker while it holds the run (stored unparsed; read back after a reload). */
  const saveSnapshotText = async (iteration: number, text: string): Promise<void> => {
    const r = await trainEnv().snapshots.saveText(text);
    if (r.ok) set({ trainSavedAt: iteration });
    else problems(r.errors);
  };

  const saveSnapshot = async (s: TrainerSnapshot): Promise<void> => {
    stored = s;
    const r = await trainEnv().snapshots.save(s);
    if (r.ok) set({ trainSavedAt: s.iteration });
    else problems(r.errors);
  };

  const batch = createProgressBatch({
    ring: () => get().trainRing,
    version: () => get().trainRingVersion,
    apply: (patch) => set(patch),
    frame: (run) => trainEnv().frame(run),
  });
  const flush = batch.flush;
  const dropPending = batch.drop;

  const onProgress = (p: TrainProgress): void => {
    if (p.kind === 'iteration' || p.kind === 'heldout') batch.push(p);
    else if (p.kind === 'backend') set({ trainBackend: p.backend });
    else if (p.kind === 'snapshot') {
      if (p.text === undefined) set({ trainSavedAt: p.iteration });
      else void saveSnapshotText(p.iteration, p.text);
    } else {
      flush();
      set({
        trainBackend: p.backend,
        trainNotices: [
          ...get().trainNotices,
          `The WebGPU device was lost during iteration ${p.iteration + 1} (${p.message}). Training resumed on the ${p.backend.backend === 'wasm' ? 'WebAssembly SIMD' : p.backend.backend === 'cpu' ? 'CPU (TypeScript)' : p.backend.backend} backend from iteration ${p.iteration}; ${p.lost} iteration was lost and is being run again.`,
        ],
      });
    }
  };

  /** Runs up to `iterations` in the worker; resolves when they are done or the run was paused. */
  const runFor = (iterations: number): Promise<void> => {
    const controller = new AbortController();
    running = controller;
    set({ trainStatus: 'running', trainProblems: [] });
    const run = (async () => {
      const r = await trainEnv()
        .client()
        .run(
          { iterations, snapshotEvery: trainEnv().snapshotEvery },
          { signal: controller.signal, onProgress },
        );
      if (running === controller) running = null;
      flush(true);
      if (r.ok) {
        set({ trainBackend: r.value.backend, trainIteration: r.value.iteration });
        if (get().trainStatus === 'running') set({ trainStatus: 'paused' });
      } else if (!controller.signal.aborted) {
        problems(workerProblems(r.errors));
        set({ trainStatus: 'error' });
      }
    })();
    loop = run;
    return run;
  };

  /** Pauses the run in flight and saves the snapshot once the last iteration finished. */
  const halt = async (status: 'paused' | 'stopped'): Promise<void> => {
    const wasRunning = running !== null;
    if (running) {
      set({ trainStatus: 'pausing' });
      running.abort();
      running = null;
    }
    await loop;
    if (live && (wasRunning || get().trainSavedAt !== get().trainIteration)) {
      const s = await trainEnv().client().snapshot();
      if (s.ok) {
        await saveSnapshot(s.value);
        catchUp(s.value.history);
        set({ trainIteration: s.value.iteration });
      } else problems(workerProblems(s.errors));
    }
    set({ trainStatus: status });
  };

  /** Makes sure the worker holds the run shown (after a reload: from the saved snapshot). */
  const ensureLive = async (): Promise<boolean> => {
    if (live) return true;
    if (!stored) {
      problems([problemOf('E_TRAIN_NOTHING', 'start a run first')]);
      return false;
    }
    set({ trainStatus: 'starting' });
    const r = await trainEnv()
      .client()
      .start({
        config: stored.config,
        from: { kind: 'snapshot', snapshot: stored },
        backend: buildEnv().prefer ?? get().trainCompute,
        ...threadsOf(get().trainThreads),
      });
    if (!r.ok) {
      problems(workerProblems(r.errors));
      set({ trainStatus: 'error' });
      return false;
    }
    live = true;
    set({
      trainBackend: { backend: r.value.backend, reason: r.value.reason },
      trainIteration: r.value.iteration,
    });
    return true;
  };

  /** The current policy: from the worker when it holds the run, else the saved snapshot's. */
  const currentPolicy = async (): Promise<PolicyCheckpoint | null> => {
    if (live) {
      const r = await trainEnv().client().trained();
      if (r.ok) return r.value;
      problems(workerProblems(r.errors));
      return null;
    }
    if (stored) return stored.checkpoint;
    problems([problemOf('E_TRAIN_NOTHING')]);
    return null;
  };

  const keepForBuild = async (cp: PolicyCheckpoint): Promise<string | null> => {
    const saved = await buildEnv().storage.save(cp);
    if (!saved.ok) {
      problems(saved.errors);
      return null;
    }
    set({
      buildCheckpoints: [...new Set([...get().buildCheckpoints, cp.name])].sort(),
      buildCheckpointRevision: get().buildCheckpointRevision + 1,
      buildForm: { ...get().buildForm, policy: { kind: 'checkpoint', name: cp.name } },
    });
    return cp.name;
  };

  /** The run's whole state: from the worker when it holds the run, else the snapshot shown. */
  const runSnapshot = async (): Promise<TrainerSnapshot | null> => {
    if (live) {
      const r = await trainEnv().client().snapshot();
      if (r.ok) return r.value;
      problems(workerProblems(r.errors));
      return null;
    }
    if (stored) return stored;
    problems([problemOf('E_TRAIN_NOTHING')]);
    return null;
  };

  return {
    ...createTrainShareSlice({ set, get, snapshot: runSnapshot, keepForBuild }),
    trainForm: DEFAULT_TRAIN_FORM,
    trainFormProblems: {},
    trainFrom: { kind: 'prior' },
    trainCompute: 'auto',
    trainThreads: { sim: 1, rollouts: 1 },
    trainStatus: 'idle',
    trainBackend: null,
    trainIteration: 0,
    trainRing: createRing(),
    trainRingVersion: 0,
    trainLatest: null,
    trainSavedAt: null,
    trainResumable: null,
    trainEvaluation: null,
    trainEvalProgress: null,
    trainNotices: [],
    trainProblems: [],

    async initTrain() {
      if (live || get().trainStatus !== 'idle') return;
      const r = await trainEnv().snapshots.load();
      if (!r.ok) {
        problems(r.errors);
        return;
      }
      const s = r.value;
      if (!s) return;
      stored = s;
      fillRing(s.history);
      set({
        trainForm: s.config,
        trainFormProblems: {},
        trainIteration: s.iteration,
        trainSavedAt: s.iteration,
        trainStatus: 'paused',
        trainResumable: {
          iteration: s.iteration,
          algo: s.config.algo,
          preset: s.config.preset,
          start: s.start.name,
        },
      });
    },

    setTrainField(path, value) {
      const form = withField(get().trainForm, path, value);
      const c = checkTrainForm(form);
      set({ trainForm: form, trainFormProblems: c.ok ? {} : c.byField });
    },

    setTrainFrom(from) {
      set({ trainFrom: from });
    },

    setTrainCompute(c) {
      set({ trainCompute: c });
    },
    setTrainThreads(which, t) {
      set({ trainThreads: { ...get().trainThreads, [which]: t } });
    },

    async startTraining() {
      const c = checkTrainForm(get().trainForm);
      if (!c.ok) {
        set({
          trainFormProblems: c.byField,
          trainProblems: [
            problemOf(
              'E_TRAIN_CONFIG',
              Object.entries(c.byField)
                .map(([k, v]) => `${k}: ${v.join(', ')}`)
                .join('; '),
            ),
          ],
        });
        return;
      }
      await halt('paused');
      const f = get().trainFrom;
      let from;
      if (f.kind === 'checkpoint') {
        const cp = await buildEnv().storage.load(f.name);
        if (!cp.ok) {
          problems(cp.errors);
          return;
        }
        from = { kind: 'checkpoint' as const, checkpoint: cp.value };
      } else from = f;
      set({
        trainStatus: 'starting',
        trainProblems: [],
        trainNotices: [],
        trainEvaluation: null,
        trainResumable: null,
        trainIteration: 0,
        trainSavedAt: null,
        trainShareLink: null,
      });
      fillRing([]);
      const r = await trainEnv()
        .client()
        .start({
          config: c.config,
          from,
          backend: buildEnv().prefer ?? get().trainCompute,
          ...threadsOf(get().trainThreads),
        });
      if (!r.ok) {
        live = false;
        problems(workerProblems(r.errors));
        set({ trainStatus: 'error' });
        return;
      }
      live = true;
      stored = null;
      // The previous run's snapshot would otherwise be offered after a reload before this run saves one.
      const cleared = await trainEnv().snapshots.clear();
      if (!cleared.ok) problems(cleared.errors);
      set({ trainBackend: { backend: r.value.backend, reason: r.value.reason } });
      void runFor(1_000_000);
    },

    pauseTraining: () => halt('paused'),

    async resumeTraining() {
      if (running) return;
      if (!(await ensureLive())) return;
      set({ trainResumable: null });
      void runFor(1_000_000);
    },

    async stepTraining() {
      if (running) return;
      if (!(await ensureLive())) return;
      set({ trainResumable: null });
      await runFor(1);
      await halt('paused');
    },

    stopTraining: () => halt('stopped'),

    async resetTraining() {
      if (running) running.abort();
      running = null;
      await loop;
      if (live) await trainEnv().client().reset();
      live = false;
      stored = null;
      const cleared = await trainEnv().snapshots.clear();
      fillRing([]);
      set({
        trainStatus: 'idle',
        trainIteration: 0,
        trainSavedAt: null,
        trainResumable: null,
        trainEvaluation: null,
        trainNotices: [],
        trainBackend: null,
        trainShareLink: null,
        trainProblems: cleared.ok ? [] : cleared.errors,
      });
    },

    async evaluateTraining(n = 40, seed = 1) {
      if (running) await halt('paused');
      if (stored && !live && !(await ensureLive())) return;
      const before = get().trainStatus;
      set({ trainStatus: 'evaluating', trainEvalProgress: null });
      const r = await trainEnv()
        .client()
        .evaluate({ n, seed }, { onProgress: (p) => set({ trainEvalProgress: p }) });
      set({ trainStatus: before === 'evaluating' ? 'paused' : before, trainEvalProgress: null });
      if (!r.ok) {
        problems(workerProblems(r.errors));
        return;
      }
      set({ trainEvaluation: r.value });
      if (r.value.current && setAt(get().trainRing, r.value.iteration, 'heldout', r.value.current.accuracy))
        bump();
    },

    async useTrainedInBuild() {
      const cp = await currentPolicy();
      return cp ? keepForBuild(cp) : null;
    },

    async openSampleInBuild(sample) {
      const cp = await currentPolicy();
      if (!cp) return null;
      const name = await keepForBuild(cp);
      const form = formForSample(get().buildForm, sample);
      if (name && form) set({ buildForm: form });
      return name;
    },

    async exportTrainSnapshot() {
      let s: TrainerSnapshot | null = stored;
      if (live) {
        const r = await trainEnv().client().snapshot();
        if (!r.ok) {
          problems(workerProblems(r.errors));
          return null;
        }
        s = r.value;
      }
      if (!s) {
        problems([problemOf('E_TRAIN_NOTHING')]);
        return null;
      }
      return {
        name: `baton-train-${s.config.preset}-${s.config.algo}-${s.iteration}.json`,
        text: snapshotToJson(s),
      };
    },

    async exportTrainedCheckpoint() {
      const cp = await currentPolicy();
      if (!cp) return null;
      return { name: `${cp.name.replace(/[^a-z0-9-]+/gi, '-')}.json`, text: serializeCheckpoint(cp) };
    },

    async importTrainSnapshot(file) {
      const text = await readFileText(file, MAX_TRAIN_FILE_BYTES);
      if (!text.ok) {
        problems(text.errors);
        return;
      }
      const r = snapshotFromJson(text.value);
      if (!r.ok) {
        problems([problemOf('E_TRAIN_FILE', `${file.name}: ${r.problems.join('; ')}`)]);
        return;
      }
      await halt('paused');
      if (live) await trainEnv().client().reset();
      live = false;
      const s = r.snapshot;
      await saveSnapshot(s);
      fillRing(s.history);
      set({
        trainForm: s.config,
        trainFormProblems: {},
        trainIteration: s.iteration,
        trainStatus: 'paused',
        trainEvaluation: null,
        trainProblems: [],
        trainResumable: {
          iteration: s.iteration,
          algo: s.config.algo,
          preset: s.config.preset,
          start: s.start.name,
        },
      });
    },

    async importStartCheckpoint(file) {
      const text = await readFileText(file, MAX_TRAIN_FILE_BYTES);
      if (!text.ok) {
        problems(text.errors);
        return;
      }
      const cp = checkpointFromText(text.value, get().buildPool);
      if (!cp.ok) {
        problems(cp.errors);
        return;
      }
      const name = await keepForBuild(cp.value);
      if (name) set({ trainFrom: { kind: 'checkpoint', name }, trainProblems: [] });
    },

    dismissTrainProblems() {
      set({ trainProblems: [] });
    },

    async loseTrainDevice(afterUpdates) {
      if (!live) return false;
      const r = await trainEnv().client().loseDevice(afterUpdates);
      if (!r.ok) problems(workerProblems(r.errors));
      return r.ok && r.value.armed;
    },
  };
};
