import { layoutKey, type LayoutGraph, type Positions } from '../../design/layout.ts';
import { planLayout } from '../services/layout.ts';
import type { SliceCreator } from '../store.ts';

/** Replay speeds offered in the UI, as multiples of the base rate (`REPLAY_BASE_MS` per position). */
export const REPLAY_SPEEDS = [0.5, 1, 2, 4, 8, 16] as const;
export const REPLAY_BASE_MS = 400;

export interface ViewerLayout {
  /** Signature of the graph these positions belong to (`layoutKey`). */
  key: string | null;
  positions: Positions;
  engine: 'dagre' | 'layered';
  /** True while the worker refines a provisional layout. */
  pending: boolean;
  error: string | null;
}

/** Trace page view state: selection, replay position, graph layout. */
export interface ViewerSlice {
  /** The trace the viewer state belongs to; opening another trace resets it. */
  viewerTraceId: string | null;
  selectedAgentId: string | null;
  /** Replay position 0..replayLength (see src/design/replay.ts); opens at the end. */
  replayPosition: number;
  replayLength: number;
  replayPlaying: boolean;
  replaySpeed: number;
  layout: ViewerLayout;

  /** Prepares the viewer for a trace with `length` replay positions; a no-op for the open trace. */
  openTraceView(traceId: string, length: number): void;
  selectAgent(id: string | null): void;
  setReplayPosition(position: number): void;
  stepReplay(delta: number): void;
  /** Starts or stops playback; starting at the end rewinds to the start first. */
  setReplayPlaying(playing: boolean): void;
  setReplaySpeed(speed: number): void;
  /** Lays out `graph` (via the layout service); the result lands in `layout`. */
  requestLayout(graph: LayoutGraph): void;
}

const EMPTY_LAYOUT: ViewerLayout = { key: null, positions: {}, engine: 'dagre', pending: false, error: null };

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

  openTraceView(traceId, length) {
    const s = get();
    if (s.viewerTraceId === traceId && s.replayLength === length) return;
    set({
      viewerTraceId: traceId,
      selectedAgentId: null,
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
    // Same graph as shown (or being refined): nothing to do; re-planning would start a second worker job.
    if (get().layout.key === layoutKey(graph) && !get().layout.error) return;
    const plan = planLayout(graph);
    set({
      layout: {
        key: plan.key,
        positions: plan.positions,
        engine: plan.engine,
        pending: !!plan.refined,
        error: null,
      },
    });
    plan.refined?.then(
      (positions) => {
        if (get().layout.key === plan.key) {
          set({ layout: { key: plan.key, positions, engine: 'dagre', pending: false, error: null } });
        }
      },
      (e: unknown) => {
        // The provisional layered layout stays; it is complete, only less tidy.
        if (get().layout.key === plan.key) {
          set({
            layout: { ...get().layout, pending: false, error: e instanceof Error ? e.message : String(e) },
          });
        }
      },
    );
  },
});
