import { create, type StateCreator } from 'zustand';
import { createBuildSlice, type BuildSlice } from './slices/build.ts';
import { createLibrarySlice, type LibrarySlice } from './slices/library.ts';
import { createRunSlice, type RunSlice } from './slices/run.ts';
import { createSettingsSlice, type SettingsSlice } from './slices/settings.ts';
import { createViewerSlice, type ViewerSlice } from './slices/viewer.ts';

/**
 * The one Baton store, combined from typed slices. Actions are plain functions on the state, so
 * services and workers can call `useBaton.getState().someAction()` outside React.
 */
export type BatonState = LibrarySlice & ViewerSlice & BuildSlice & SettingsSlice & RunSlice;

/** What each slice file exports: a creator that sees the whole combined state. */
export type SliceCreator<T> = StateCreator<BatonState, [], [], T>;

export const createBatonState: StateCreator<BatonState> = (...a) => ({
  ...createLibrarySlice(...a),
  ...createViewerSlice(...a),
  ...createBuildSlice(...a),
  ...createSettingsSlice(...a),
  ...createRunSlice(...a),
});

export const useBaton = create<BatonState>()(createBatonState);

/** Fresh store state, for tests. */
export function resetBaton(): void {
  useBaton.setState(useBaton.getInitialState(), true);
}
