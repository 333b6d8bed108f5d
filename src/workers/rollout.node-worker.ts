/**
 * A rollout worker as a Node worker thread (sim.node.ts `nodeRolloutSpawner` starts it): the rollout
 * handlers over the thread's parent port.
 */
import { serveParentPort } from './node-port.ts';
import { rolloutHandlers } from './rollout.handlers.ts';
import { rolloutMethods } from './rollout.methods.ts';

serveParentPort(rolloutMethods, rolloutHandlers(), 'rollout');
