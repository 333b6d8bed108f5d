/**
 * A simulator worker as a Node worker thread (sim.node.ts starts it): the same handlers as the
 * page's `sim.worker.ts`, over the thread's parent port.
 */
import { parentPort } from 'node:worker_threads';
import type { MessageEndpoint } from './rpc/endpoint.ts';
import { serveRpc } from './rpc/server.ts';
import { simHandlers } from './sim.handlers.ts';
import { simMethods } from './sim.methods.ts';

const port = parentPort;
if (!port) throw new Error('sim.node-worker.ts runs as a worker thread');
const endpoint: MessageEndpoint = {
  postMessage: (m) => port.postMessage(m),
  onmessage: null,
  onmessageerror: null,
};
port.on('message', (data: unknown) => endpoint.onmessage?.({ data } as MessageEvent<unknown>));
serveRpc(endpoint, simMethods, simHandlers(), 'sim');
