/**
 * The device benchmark's simulator pool (src/workers/sim-pool.ts) and rollout pool
 * (src/workers/rollout-pool.ts): a worker per core beyond two, at most 7, running `sim-worker.mjs`
 * or `rollout-worker.mjs` beside the bundle (pack.ts builds them) or, from the sources, the worker
 * entry through tsx.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { RolloutWorkers } from '../../src/train/index.ts';
import { createRolloutPool } from '../../src/workers/rollout-pool.ts';
import { createSimPool, defaultSimWorkers, type SimPool } from '../../src/workers/sim-pool.ts';
import {
  nodeRolloutSpawner,
  nodeSimSpawner,
  sourceRolloutScript,
  sourceSimScript,
} from '../../src/workers/sim.node.ts';

/** `quick` (a smoke test, often on two cores): at least one worker, so that its script runs. */
export function simPoolForBench(here: string, quick: boolean): { pool: SimPool; workers: number } {
  const bundled = new URL('./sim-worker.mjs', here);
  const script = existsSync(fileURLToPath(bundled)) ? { script: bundled } : sourceSimScript();
  const workers = Math.max(quick ? 1 : 0, defaultSimWorkers(availableParallelism()));
  return { pool: createSimPool({ workers, spawn: nodeSimSpawner(script) }), workers };
}

/** The rollout pool, as many workers as the simulator pool's. */
export function rolloutPoolForBench(here: string, quick: boolean): { pool: RolloutWorkers; workers: number } {
  const bundled = new URL('./rollout-worker.mjs', here);
  const script = existsSync(fileURLToPath(bundled)) ? { script: bundled } : sourceRolloutScript();
  const workers = Math.max(quick ? 1 : 0, defaultSimWorkers(availableParallelism()));
  return { pool: createRolloutPool({ workers, spawn: nodeRolloutSpawner(script) }), workers };
}
