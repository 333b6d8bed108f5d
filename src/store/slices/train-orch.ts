/**
 * The Train page's mode switch and its "Orchestrator LM" mode: GRPO of the orchestrator LM in the
 * training worker (src/workers/train-orchestrator.*). This file holds the state and thin actions;
 * what they do loads with the mode (`train-orch-run.ts`), so the first page carries none of it.
 */
import type { Problem } from '../../core/result.ts';
import type { BackendKind } from '../../gpu/index.ts';
import type { OrchRunRecord } from '../../train/orchestrator-record.ts';
import type { OrchRunLink } from '../services/train-orch-share.ts';
import type {
  ExportedModel,
  OrchEvaluation,
  OrchMetrics,
  OrchSampled,
} from '../services/train-orchestrator.ts';
import type { SliceCreator } from '../store.ts';
import type { OrchSftModelId } from './train-orch-run.ts';

export type { ExportedModel, OrchEvaluation, OrchMetrics, OrchSampled };

export type TrainMode = 'policy' | 'orchestrator';

export type OrchTrainStatus =
  'idle' | 'starting' | 'running' | 'pausing' | 'paused' | 'evaluating' | 'exporting' | 'error';

/** What the page sets of a run (the trainer's config holds the rest: src/train orchestrator-config.ts). */
export interface OrchForm {
  /** The SFT model the run starts from (a folder under models/). */
  sftModel: OrchSftModelId;
  /** B: queries per iteration. */
  tasksPerIteration: number;
  /** G: designs sampled per query. */
  groupSize: number;
  /** τ: sampling temperature. */
  temperature: number;
  /** λ of R = correct − λ·cost. */
  lambda: number;
  /** β_KL: weight of the k3 KL to the SFT model. */
  klCoef: number;
  /** β_H: entropy bonus. */
  entropyCoef: number;
  /** Adam learning rate. */
  lr: number;
  /** Iterations a Start (or Resume) runs to. */
  iterations: number;
  dom: 'both' | 'low' | 'high';
  /** Most tokens a design may take. */
  maxNewTokens: number;
  /** MASBench axis values the train and held-out tasks are drawn from. */
  values: number[];
  seed: number;
  /** Held-out test-split tasks of the before/after evaluation (each in low and high DoM). */
  evalTasks: number;
}

export const DEFAULT_ORCH_FORM: OrchForm = {
  sftModel: 'baton-orchestrator-tiny',
  tasksPerIteration: 2,
  groupSize: 4,
  temperature: 1,
  lambda: 0.5,
  klCoef: 0.02,
  entropyCoef: 0.001,
  lr: 2e-4,
  iterations: 20,
  dom: 'both',
  maxNewTokens: 256,
  values: [2, 3, 4, 5, 6],
  seed: 0,
  evalTasks: 10,
};

export interface OrchTrainState {
  status: OrchTrainStatus;
  iteration: number;
  backend: { backend: BackendKind; reason: string } | null;
  model: { id: string; name: string; params: number; positions: number; promptFormat?: string } | null;
  /** The trainer's whole config, as the worker reported it (absent until a run starts or is found). */
  config?: Record<string, unknown>;
  /** The link "Share link" made of the run (absent until made; a new run drops it). */
  shareLink?: OrchRunLink;
  /** Iteration of the checkpoint last stored in this browser. */
  savedAt: number | null;
  /** A run saved in this browser, found on opening the mode. */
  resumable: { iteration: number; model: string } | null;
  /** Every finished iteration's metrics (what the charts draw). */
  history: OrchMetrics[];
  /** The designs sampled in the latest iteration. */
  sampled: OrchSampled[];
  evaluation: OrchEvaluation | null;
  /** The last folder exported for the Orchestrate page. */
  exported: ExportedModel | null;
  notices: string[];
  problems: Problem[];
}

/** A shared orchestrator run opened from `#r=1.…` (train-orch-share.ts): its record, or why it cannot be shown. */
export type OrchShared =
  | { input: string; record: OrchRunRecord }
  | { input: string; problems: Problem[] }
  /** The link is not an orchestrator run's (the construction-policy view reads it). */
  | { input: string; other: true };

export interface TrainOrchSlice {
  trainMode: TrainMode;
  /** Set by train-orch-share.ts, loaded with the views that use it (absent until a link is opened). */
  orchShared?: OrchShared;
  orchForm: OrchForm;
  orchTrain: OrchTrainState;
  setTrainMode(mode: TrainMode): void;
  setOrchForm(patch: Partial<OrchForm>): void;
  /**
   * Picks the SFT model a new run starts from, with its design-length and axis-value settings
   * (train-orch-run.ts, loaded with the mode).
   */
  setOrchModel(id: OrchSftModelId): Promise<void>;
  /** Shows the run saved in this browser, paused (after a reload). */
  initOrchTrain(): Promise<void>;
  /** A new run from the SFT model with the form's settings; runs until paused or done. */
  startOrchTrain(): Promise<void>;
  pauseOrchTrain(): Promise<void>;
  /** Continues the run: in the worker, or from the saved checkpoint after a reload. */
  resumeOrchTrain(): Promise<void>;
  /** One iteration, then paused. */
  stepOrchTrain(): Promise<void>;
  /** Forgets the run and its saved checkpoint. */
  resetOrchTrain(): Promise<void>;
  /** Held-out before (SFT) / after (current weights) on the same queries. */
  evaluateOrchTrain(): Promise<void>;
  /**
   * Exports the current weights as a model folder kept in this browser, selects it on the
   * Orchestrate page and starts loading it; its URL, or null.
   */
  useOrchInOrchestrate(): Promise<string | null>;
  dismissOrchProblems(): void;
  /** Test hook: destroys the WebGPU device after that many more iterations. */
  loseOrchDevice(afterIterations: number): Promise<boolean>;
}

export const IDLE_ORCH_TRAIN: OrchTrainState = {
  status: 'idle',
  iteration: 0,
  backend: null,
  model: null,
  savedAt: null,
  resumable: null,
  history: [],
  sampled: [],
  evaluation: null,
  exported: null,
  notices: [],
  problems: [],
};

const run = () => import('./train-orch-run.ts');

export const createTrainOrchSlice: SliceCreator<TrainOrchSlice> = (set, get) => {
  const act =
    <A extends unknown[], R>(pick: (m: Awaited<ReturnType<typeof run>>) => (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> =>
      pick(await run())(...a);
  return {
    trainMode: 'policy',
    orchForm: DEFAULT_ORCH_FORM,
    orchTrain: IDLE_ORCH_TRAIN,
    setTrainMode: (mode) => set({ trainMode: mode }),
    setOrchForm: (patch) => set({ orchForm: { ...get().orchForm, ...patch } }),
    setOrchModel: act((m) => (id: OrchSftModelId) => m.setOrchModel(set, get, id)),
    initOrchTrain: act((m) => () => m.initOrchTrain(set, get)),
    startOrchTrain: act((m) => () => m.startOrchTrain(set, get)),
    pauseOrchTrain: act((m) => () => m.pauseOrchTrain(set, get)),
    resumeOrchTrain: act((m) => () => m.resumeOrchTrain(set, get)),
    stepOrchTrain: act((m) => () => m.stepOrchTrain(set, get)),
    resetOrchTrain: act((m) => () => m.resetOrchTrain(set, get)),
    evaluateOrchTrain: act((m) => () => m.evaluateOrchTrain(set, get)),
    useOrchInOrchestrate: act((m) => () => m.useOrchInOrchestrate(set, get)),
    dismissOrchProblems: () => set({ orchTrain: { ...get().orchTrain, problems: [] } }),
    loseOrchDevice: act((m) => (n: number) => m.loseOrchDevice(set, get, n)),
  };
};
