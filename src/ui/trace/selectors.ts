import type { BatonState } from '../../store/store.ts';

/** Store selectors for the Trace page, as module-level constants so they keep their identity. */
export const selectPosition = (s: BatonState): number => s.replayPosition;
export const selectLength = (s: BatonState): number => s.replayLength;
export const selectPlaying = (s: BatonState): boolean => s.replayPlaying;
export const selectSpeed = (s: BatonState): number => s.replaySpeed;
export const selectSelected = (s: BatonState): string | null => s.selectedAgentId;
export const selectLayout = (s: BatonState): BatonState['layout'] => s.layout;
export const selectViewerTraceId = (s: BatonState): string | null => s.viewerTraceId;
export const selectSelectAgent = (s: BatonState): BatonState['selectAgent'] => s.selectAgent;
