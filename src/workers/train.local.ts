import { chooseBackend } from '../gpu/index.ts';
import { portEndpoint } from './rpc/endpoint.ts';
import { serveRpc } from './rpc/server.ts';
import { rolloutHandlers } from './rollout.handlers.ts';
import { rolloutMethods } from './rollout.methods.ts';
import { createRolloutPool } from './rollout-pool.ts';
import { simWorkersFor } from './sim-pool.ts';
import { channelServed } from './stand-in-workers.ts';
import { createTrainWorkerClient, type TrainWorkerClient } from './train.client.ts';
import { trainMethods } from './train.methods.ts';
import { trainHandlers } from './train.session.ts';

export interface ChannelTrainOptions {
  /** The session's clock (ms); performance.now() without it. */
  now?: () => number;
  /**
   * Rollout workers on MessageChannels in this thread, for a run's `rolloutThreads` setting as a
   * machine with this many cores would start them (`auto` included); without it, no rollout pool.
   */
  rolloutCores?: number;
}

/**
 * For tests in Node: the training worker's real handlers served on one end of a MessageChannel in
 * this thread, and the real client on the other, so store tests drive the same protocol and the
 * same structured-clone transport as the page, without a Worker.
 */
export function channelTrainWorker(o: ChannelTrainOptions = {}): TrainWorkerClient & { close(): void } {
  const cores = o.rolloutCores;
  const pools: { dispose(): void }[] = [];
  const { port1, port2 } = new MessageChannel();
  const stop = serveRpc(
    port2,
    trainMethods,
    trainHandlers({
      choose: (prefer, onLost, workload) =>
        chooseBackend(prefer, { onLost: (_r, m) => onLost(m), ...(workload ? { workload } : {}) }),
      ...(o.now ? { now: o.now } : {}),
      ...(cores !== undefined
        ? {
            rolloutPool: (threads) => {
              const p = createRolloutPool({
                workers: simWorkersFor(threads, cores),
                spawn: channelServed(rolloutMethods, rolloutHandlers(), 'rollout'),
              });
              pools.push(p);
              return p;
            },
          }
        : {}),
    }),
    'train',
  );
  const client = createTrainWorkerClient(() => portEndpoint(port1));
  return {
    ...client,
    close() {
      client.dispose();
      stop();
      for (const p of pools) p.dispose();
      port2.close();
    },
  };
}
