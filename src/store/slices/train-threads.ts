import type { SimThreads } from '../services/train.ts';

/**
 * A run's thread settings: its simulated sub-agents' (src/workers/sim-pool.ts, "Simulator
 * threads") and its rollouts' (src/workers/rollout-pool.ts, "Rollout threads"); 1 each by default.
 */
export type TrainThreads = Record<'sim' | 'rollouts', SimThreads>;

/** What a start sends: rollout workers simulate their own blocks, so no simulator pool with them. */
export function threadsOf(t: TrainThreads): { simThreads: SimThreads; rolloutThreads: SimThreads } {
  return { simThreads: t.rollouts === 1 ? t.sim : 1, rolloutThreads: t.rollouts };
}
