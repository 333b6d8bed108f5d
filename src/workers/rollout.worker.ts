/// <reference lib="webworker" />
import { serveRpc } from './rpc/server.ts';
import { rolloutHandlers } from './rollout.handlers.ts';
import { rolloutMethods } from './rollout.methods.ts';

/**
 * A rollout worker of the training worker's pool (src/workers/rollout-pool.ts): it samples a block
 * of each training iteration's constructions whole, so that sampling uses more than one core.
 */
serveRpc(self as unknown as DedicatedWorkerGlobalScope, rolloutMethods, rolloutHandlers(), 'rollout');
