/// <reference lib="webworker" />
import { serveRpc } from './rpc/server.ts';
import { simHandlers } from './sim.handlers.ts';
import { simMethods } from './sim.methods.ts';

/**
 * A simulator worker of the training worker's pool (src/workers/sim-pool.ts): it runs the
 * simulated sub-agents of the episodes the pool deals it, so that a training iteration's
 * simulation uses more than one core.
 */
serveRpc(self as unknown as DedicatedWorkerGlobalScope, simMethods, simHandlers(), 'sim');
