import { layoutKey, type LayoutGraph, type Positions } from '../../view/layout.ts';
import { planLayout, type LaidOut, type LayoutSource } from '../services/layout.ts';
import type { SliceCreator } from '../store.ts';

/** Replay speeds offered in the UI, as multiples of the base rate (`REPLAY_BASE_MS` per position). */
export const REPLAY_SPEEDS = [0.5, 1, 2, 4, 8, 16] as const;
export const REPLAY_BASE_MS = 400;

export interface ViewerLayout {
  /** Signature of the graph these positions belong to (`layoutKey`). */
  key: string | null;
  /** The final positions of graph `key`; empty while `pending`. */
  positions: Positions;
  /** Where they were computed (null while pending): here, in the layout worker, or earlier (cache). */
  source: LayoutSource | null;
  /** True while the layout worker computes the positions of graph `key` (the page shows a placeholder). */
  pending: boolean;
  /** Why the worker's answer was replaced by a layout computed on the main thread; null normally. */
  error: string | null;
}

/** Trace page view state: selection, replay position, graph layout. */
export interface ViewerSlice {
  /** The trace the viewer state belongs to; opening another trace resets it. */
  viewerTraceId: string | null;
  selectedAgentId: string | null;
  /** Replay position 0..replayLength (see src/view/replay.ts); opens at the end. */
  replayPosition: number;
  replayLength: number;
  replayPlaying: boolean;
  replaySpeed: number;
  layout: ViewerLayout;

  /**
   * Prepares the viewer for a trace with `length` replay positions, with `selected` in the inspector
   * (the page passes the final agent, so the inspector opens on the answer); a no-op for the open
   * trace.
   */
  openTraceView(traceId: string, length: number, selected?: string | null): void;
  selectAgent(id: string | null): void;
  setReplayPosition(position: number): void;
  stepReplay(delta: number): void;
  /** Starts or stops playback; starting at the end rewinds to the start first. */
  setReplayPlaying(playing: boolean): void;
  setReplaySpeed(speed: number): void;
  /** Lays out `graph` (via the layout service); the result lands in `layout`. */
  requestLayout(graph: LayoutGraph): void;
}

const EMPTY_LAYOUT: ViewerLayout = { key: null, positions: {}, source: null, pending: false, error: null };

const laidOut = (key: string, out: LaidOut): ViewerLayout => ({ key, ...out, pending: false });

const clamp = (p: number, length: number): number =>
  Math.max(0, Math.min(length, Math.round(Number.isFinite(p) ? p : length)));

export const createViewerSlice: SliceCreator<ViewerSlice> = (set, get) => ({
  viewerTraceId: null,
  selectedAgentId: null,
  replayPosition: 0,
  replayLength: 0,
  replayPlaying: false,
  replaySpeed: 1,
  layout: EMPTY_LAYOUT,

  openTraceView(traceId, length, selected = null) {
    const s = get();
    if (s.viewerTraceId === traceId && s.replayLength === length) return;
    set({
      viewerTraceId: traceId,
      selectedAgentId: selected,
      replayLength: length,
      replayPosition: length,
      replayPlaying: false,
    });
  },
  selectAgent(id) {
    set({ selectedAgentId: id });
  },
  setReplayPosition(position) {
    const p = clamp(position, get().replayLength);
    set({ replayPosition: p, ...(p >= get().replayLength ? { replayPlaying: false } : {}) });
  },
  stepReplay(delta) {
    get().setReplayPosition(get().replayPosition + delta);
  },
  setReplayPlaying(playing) {
    const s = get();
    if (playing && s.replayPosition >= s.replayLength) set({ replayPosition: 0 });
    set({ replayPlaying: playing && s.replayLength > 0 });
  },
  setReplaySpeed(speed) {
    if (Number.isFinite(speed) && speed > 0) set({ replaySpeed: speed });
  },
  requestLayout(graph) {
    // Same graph as shown or being laid out: nothing to do. The positions of a graph never change
    // once shown, so nodes never move under the reader.
    if (get().layout.key === layoutKey(graph)) return;
    const plan = planLayout(graph);
    if (plan.ready) {
      set({ layout: laidOut(plan.key, plan.ready) });
      return;
    }
    set({ layout: { key: plan.key, positions: {}, source: null, pending: true, error: null } });
    void plan.later?.then((out) => {
      // Dropped when another graph was requested meanwhile (the service has cached it anyway).
      if (get().layout.key === plan.key && get().layout.pending) set({ layout: laidOut(plan.key, out) });
    });
  },
});
