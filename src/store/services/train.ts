/**
 * The effects the Train slice uses, in one place so tests swap them through `configureTrain`: the
 * training worker's client (started on first use), the snapshot storage, and the frame scheduler
 * the worker's progress reports are batched on.
 */
import { createTrainWorkerClient, type TrainWorkerClient } from '../../workers/index.ts';

export type {
  AblationProgressReport,
  Evaluation,
  SimThreads,
  StructureRow,
  TrainProgress,
  TrainWorkerClient,
} from '../../workers/index.ts';
import { idbSnapshots, type SnapshotStorage } from './train-snapshots.ts';

/** Runs `run` once, soon (the next animation frame); returns a function that cancels it. */
export type FrameScheduler = (run: () => void) => () => void;

/**
 * The next animation frame, or 100 ms when frames do not come (a hidden tab draws none), whichever
 * is first; outside a page (tests), the next macrotask.
 */
export const nextFrame: FrameScheduler = (run) => {
  const raf = typeof requestAnimationFrame === 'function';
  let done = false;
  const once = (): void => {
    if (done) return;
    done = true;
    cancel();
    run();
  };
  const frame = raf ? requestAnimationFrame(once) : 0;
  const timer = setTimeout(once, raf ? 100 : 0);
  const cancel = (): void => {
    done = true;
    if (raf) cancelAnimationFrame(frame);
    clearTimeout(timer);
  };
  return cancel;
};

export interface TrainEnv {
  client: () => TrainWorkerClient;
  /** Where the worker's progress reports are applied: at most once per frame (`nextFrame`). */
  frame: FrameScheduler;
  snapshots: SnapshotStorage;
  /** Snapshot reported (and saved) after every this many iterations. */
  snapshotEvery: number;
}

let client: TrainWorkerClient | null = null;

let env: TrainEnv = {
  client: () => (client ??= createTrainWorkerClient()),
  frame: nextFrame,
  snapshots: idbSnapshots(),
  snapshotEvery: 5,
};

export const trainEnv = (): TrainEnv => env;

export function configureTrain(next: Partial<TrainEnv>): TrainEnv {
  const previous = env;
  env = { ...env, ...next };
  return previous;
}
