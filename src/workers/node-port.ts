/**
 * A Node worker thread's side of the RPC (sim.node-worker.ts, rollout.node-worker.ts): `methods`
 * served with `handlers` over the thread's parent port.
 */
import { parentPort } from 'node:worker_threads';
import type { MessageEndpoint } from './rpc/endpoint.ts';
import type { MethodTable } from './rpc/protocol.ts';
import { serveRpc, type Handlers } from './rpc/server.ts';

export function serveParentPort<T extends MethodTable>(
  methods: T,
  handlers: Handlers<T>,
  name: string,
): void {
  const port = parentPort;
  if (!port) throw new Error(`the ${name} worker runs as a worker thread`);
  const endpoint: MessageEndpoint = {
    postMessage: (m) => port.postMessage(m),
    onmessage: null,
    onmessageerror: null,
  };
  port.on('message', (data: unknown) => endpoint.onmessage?.({ data } as MessageEvent<unknown>));
  serveRpc(endpoint, methods, handlers, name);
}
