/**
 * The effects the Train slice uses, in one place so tests swap them through `configureTrain`: the
 * training worker's client (started on first use), the snapshot storage, and the frame scheduler
 * the charts' data updates are batched on.
 */
import { createTrainWorkerClient, type TrainWorkerClient } from '../../workers/index.ts';

export type {
  AblationProgressReport,
  Evaluation,
  StructureRow,
  TrainProgress,
  TrainWorkerClient,
} from '../../workers/index.ts';
import { idbSnapshots, type SnapshotStorage } from './train-snapshots.ts';

export interface TrainEnv {
  client: () => TrainWorkerClient;
  snapshots: SnapshotStorage;
  /** Snapshot reported (and saved) after every this many iterations. */
  snapshotEvery: number;
}

let client: TrainWorkerClient | null = null;

let env: TrainEnv = {
  client: () => (client ??= createTrainWorkerClient()),
  snapshots: idbSnapshots(),
  snapshotEvery: 5,
};

export const trainEnv = (): TrainEnv => env;

export function configureTrain(next: Partial<TrainEnv>): TrainEnv {
  const previous = env;
  env = { ...env, ...next };
  return previous;
}
