/**
 * Auto-play on the Build page: sample steps until EXIT, one every `buildSpeed` ms. The timer comes
 * from `buildEnv().schedule`, so tests run it without waiting.
 */
import { episodeDone } from '../../policy/index.ts';
import { BUILD_SPEEDS } from '../construction.ts';
import type { SliceCreator } from '../store.ts';
import { buildEnv } from './build-env.ts';

export interface BuildAutoPlaySlice {
  buildAutoPlay: boolean;
  /** Delay between auto-play steps, ms (one of BUILD_SPEEDS). */
  buildSpeed: number;
  /** Starts or stops auto-play (starting needs a construction that has not ended). */
  setBuildAutoPlay(on: boolean): void;
  setBuildSpeed(ms: number): void;
}

export const createBuildAutoPlaySlice: SliceCreator<BuildAutoPlaySlice> = (set, get) => {
  let cancelAuto: (() => void) | null = null;

  const stopAuto = (): void => {
    cancelAuto?.();
    cancelAuto = null;
  };

  const autoTick = (): void => {
    cancelAuto = null;
    const st = get();
    const s = st.buildSession;
    if (!st.buildAutoPlay || !s || episodeDone(s)) {
      set({ buildAutoPlay: false });
      return;
    }
    void st.buildStep().then(() => {
      const after = get().buildSession;
      if (!get().buildAutoPlay) return;
      if (!after || episodeDone(after)) {
        set({ buildAutoPlay: false });
        return;
      }
      cancelAuto = buildEnv().schedule(autoTick, get().buildSpeed);
    });
  };

  return {
    buildAutoPlay: false,
    buildSpeed: BUILD_SPEEDS[1],

    setBuildAutoPlay(on) {
      stopAuto();
      const s = get().buildSession;
      if (on && (!s || episodeDone(s))) return;
      set({ buildAutoPlay: on });
      if (on) autoTick();
    },

    setBuildSpeed(ms) {
      if (Number.isFinite(ms) && ms >= 0) set({ buildSpeed: ms });
    },
  };
};
