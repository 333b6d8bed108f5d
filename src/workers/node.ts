/**
 * The workers' Node door (docs/architecture.md): the simulator pool on worker threads for the CLI
 * (`baton train --sim-threads`) and the rollout pool (`--rollout-threads`). Node only: it starts
 * `node:worker_threads` workers, which a page's bundle cannot hold, so it stays out of `index.ts`.
 */
export { createSimPool, simWorkersFor, type SimPool } from './sim-pool.ts';
export { nodeSimSpawner, sourceSimScript } from './sim.node.ts';
export { createRolloutPool } from './rollout-pool.ts';
export { nodeRolloutSpawner, sourceRolloutScript } from './sim.node.ts';
