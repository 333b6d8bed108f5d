import { chooseBackend } from '../gpu/index.ts';
import { portEndpoint } from './rpc/endpoint.ts';
import { serveRpc } from './rpc/server.ts';
import { createTrainWorkerClient, type TrainWorkerClient } from './train.client.ts';
import { trainMethods } from './train.methods.ts';
import { trainHandlers } from './train.session.ts';

/**
 * For tests in Node: the training worker's real handlers served on one end of a MessageChannel in
 * this thread, and the real client on the other, so store tests drive the same protocol and the
 * same structured-clone transport as the page, without a Worker.
 */
export function channelTrainWorker(): TrainWorkerClient & { close(): void } {
  const { port1, port2 } = new MessageChannel();
  const stop = serveRpc(
    port2,
    trainMethods,
    trainHandlers({
      choose: (prefer, onLost, workload) =>
        chooseBackend(prefer, { onLost: (_r, m) => onLost(m), ...(workload ? { workload } : {}) }),
    }),
    'train',
  );
  const client = createTrainWorkerClient(() => portEndpoint(port1));
  return {
    ...client,
    close() {
      client.dispose();
      stop();
      port2.close();
    },
  };
}
