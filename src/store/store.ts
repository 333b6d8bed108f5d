import { create, type StateCreator } from 'zustand';
import { createBuildAutoPlaySlice, type BuildAutoPlaySlice } from './slices/build-autoplay.ts';
import { createBuildRunSlice, type BuildRunSlice } from './slices/build-run.ts';
import { createBuildSlice, type BuildSlice } from './slices/build.ts';
import { createCheckpointsSlice, type CheckpointsSlice } from './slices/checkpoints.ts';
import { createEvalSlice, type EvalSlice } from './slices/eval.ts';
import { createEvalShareSlice, type EvalShareSlice } from './slices/eval-share.ts';
import { createLibrarySlice, type LibrarySlice } from './slices/library.ts';
import { createOrchestrateSlice, type OrchestrateSlice } from './slices/orchestrate.ts';
import { createRolesSlice, type RolesSlice } from './slices/roles.ts';
import { createRunSlice, type RunSlice } from './slices/run.ts';
import { createSettingsSlice, type SettingsSlice } from './slices/settings.ts';
import { createTrainSlice, type TrainSlice } from './slices/train.ts';
import { createTrainOrchSlice, type TrainOrchSlice } from './slices/train-orch.ts';
import { createViewerSlice, type ViewerSlice } from './slices/viewer.ts';

/**
 * The one Baton store, combined from typed slices. Actions are plain functions on the state, so
 * services and workers can call `useBaton.getState().someAction()` outside React.
 */
export type BatonState = LibrarySlice &
  ViewerSlice &
  BuildSlice &
  BuildAutoPlaySlice &
  BuildRunSlice &
  CheckpointsSlice &
  RolesSlice &
  SettingsSlice &
  RunSlice &
  TrainSlice &
  TrainOrchSlice &
  EvalSlice &
  EvalShareSlice &
  OrchestrateSlice;

/** What each slice file exports: a creator that sees the whole combined state. */
export type SliceCreator<T> = StateCreator<BatonState, [], [], T>;

export const createBatonState: StateCreator<BatonState> = (...a) => ({
  ...createLibrarySlice(...a),
  ...createViewerSlice(...a),
  ...createBuildSlice(...a),
  ...createBuildAutoPlaySlice(...a),
  ...createBuildRunSlice(...a),
  ...createCheckpointsSlice(...a),
  ...createRolesSlice(...a),
  ...createSettingsSlice(...a),
  ...createRunSlice(...a),
  ...createTrainSlice(...a),
  ...createTrainOrchSlice(...a),
  ...createEvalSlice(...a),
  ...createEvalShareSlice(...a),
  ...createOrchestrateSlice(...a),
});

export const useBaton = create<BatonState>()(createBatonState);

/** Fresh store state, for tests. */
export function resetBaton(): void {
  useBaton.setState(useBaton.getInitialState(), true);
}
