import type { WorkerEndpoint } from './rpc/endpoint.ts';

/**
 * Starts one simulator worker of the training worker's pool (src/workers/sim-pool.ts). Its errors
 * are the pool's to handle (its calls then run in the training worker): they are kept from
 * reaching the training worker's own scope, where an uncaught one would stop the run.
 */
export function startSimWorker(): WorkerEndpoint {
  const w = new Worker(new URL('./sim.worker.ts', import.meta.url), { type: 'module', name: 'baton-sim' });
  w.addEventListener('error', (e) => e.preventDefault());
  return w;
}

/** Starts one rollout worker of the training worker's rollout pool (rollout-pool.ts); errors as above. */
export function startRolloutWorker(): WorkerEndpoint {
  const w = new Worker(new URL('./rollout.worker.ts', import.meta.url), {
    type: 'module',
    name: 'baton-rollout',
  });
  w.addEventListener('error', (e) => e.preventDefault());
  return w;
}
