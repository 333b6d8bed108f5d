import { createEvalWorkerClient, type EvalWorkerClient } from './eval.client.ts';
import { evalHandlers } from './eval.handlers.ts';
import { evalMethods } from './eval.methods.ts';
import { portEndpoint } from './rpc/endpoint.ts';
import { serveRpc } from './rpc/server.ts';

/**
 * For tests in Node: the evaluation worker's real handlers served on one end of a MessageChannel in
 * this thread, and the real client on the other, so store tests drive the same protocol and the
 * same structured-clone transport as the page, without a Worker.
 */
export function channelEvalWorker(): EvalWorkerClient & { close(): void } {
  const { port1, port2 } = new MessageChannel();
  const stop = serveRpc(port2, evalMethods, evalHandlers(), 'eval');
  const client = createEvalWorkerClient(() => portEndpoint(port1));
  return {
    ...client,
    close() {
      client.dispose();
      stop();
      port2.close();
    },
  };
}
