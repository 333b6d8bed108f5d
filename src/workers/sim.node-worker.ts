/**
 * A simulator worker as a Node worker thread (sim.node.ts starts it): the same handlers as the
 * page's `sim.worker.ts`, over the thread's parent port.
 */
import { serveParentPort } from './node-port.ts';
import { simHandlers } from './sim.handlers.ts';
import { simMethods } from './sim.methods.ts';

serveParentPort(simMethods, simHandlers(), 'sim');
