/**
 * For tests: workers on a MessageChannel in this thread, to start where a pool would start a real
 * one (sim-pool.test.ts, rollout-pool.test.ts): one serving real handlers, one answering every call
 * with the same output whatever it is, and one that crashes on its first message; and the sampling
 * options their rollouts are compared under.
 */
import { simulatedRunners } from '../executor/train-runners.ts';
import { DEFAULT_POOL } from '../policy/index.ts';
import type { TrainConfig } from '../train/index.ts';
import { portEndpoint, type WorkerEndpoint } from './rpc/endpoint.ts';
import type { MethodTable } from './rpc/protocol.ts';
import { serveRpc, type Handlers } from './rpc/server.ts';

/** A worker serving `handlers` for `methods`. */
export function channelServed<T extends MethodTable>(
  methods: T,
  handlers: Handlers<T>,
  name: string,
): () => WorkerEndpoint {
  return () => {
    const ch = new MessageChannel();
    serveRpc(portEndpoint(ch.port2), methods, handlers, name);
    return portEndpoint(ch.port1);
  };
}

/** A worker that answers every call `done` with `output`, unparsed (garbage, a wrong count). */
export function answeringWorker(output: unknown): () => WorkerEndpoint {
  return () => {
    const ch = new MessageChannel();
    ch.port2.onmessage = (ev: MessageEvent<{ id: number }>) =>
      ch.port2.postMessage({ kind: 'done', id: ev.data.id, output });
    return portEndpoint(ch.port1);
  };
}

/** A worker whose first message makes it report a crash with `message`. */
export function crashingWorker(message: string): () => WorkerEndpoint {
  return () => {
    const ch = new MessageChannel();
    const ep = portEndpoint(ch.port1);
    ch.port2.onmessage = () => ep.onerror?.({ message } as ErrorEvent);
    return ep;
  };
}

/**
 * `rolloutMany`'s options besides the policy and episodes, as the pools' tests sample: the default
 * pool, the simulator's runners (or `runners`), temperature 1, every intermediate run.
 */
export function simulatedSampling(
  config: Pick<TrainConfig, 'maxSteps' | 'actionReward'>,
  runners = simulatedRunners,
) {
  return {
    pool: DEFAULT_POOL,
    runners,
    maxSteps: config.maxSteps,
    temperature: 1,
    greedy: false,
    intermediate: true,
    rewards: config.actionReward,
  };
}
