/// <reference lib="webworker" />
import { evalHandlers } from './eval.handlers.ts';
import { evalMethods } from './eval.methods.ts';
import { serveRpc } from './rpc/server.ts';

/**
 * Runs an evaluation off the main thread: 5 methods × 300 MASBench tasks on the simulator is
 * seconds of solid work, and a provider run is hundreds of requests. What it does is in
 * eval.handlers.ts; progress is one message per finished job plus counters.
 */
serveRpc(self as unknown as DedicatedWorkerGlobalScope, evalMethods, evalHandlers(), 'eval');
