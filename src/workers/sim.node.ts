/**
 * The simulator pool's and the rollout pool's workers in Node (src/workers/sim-pool.ts,
 * rollout-pool.ts): worker threads running `sim.node-worker.ts` or `rollout.node-worker.ts`. From
 * the sources (tests, `tsx` scripts) the thread loads that file through tsx; a bundle (the device
 * benchmark's packed folder) passes its own bundled worker script.
 */
import { Worker } from 'node:worker_threads';
import type { WorkerEndpoint } from './rpc/endpoint.ts';

export interface NodeSimScript {
  /** The worker's entry: a file URL. */
  script: URL;
  /** Load it through tsx (a `.ts` entry). */
  tsx?: boolean;
}

/** The worker entry in the sources, loaded through tsx. */
export function sourceSimScript(): NodeSimScript {
  return { script: new URL('./sim.node-worker.ts', import.meta.url), tsx: true };
}

/** The rollout worker's entry in the sources, loaded through tsx. */
export function sourceRolloutScript(): NodeSimScript {
  return { script: new URL('./rollout.node-worker.ts', import.meta.url), tsx: true };
}

/** A thread that registers tsx's loader for itself, then imports `url`. */
const tsxBoot = (url: URL): string =>
  `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(url.href)}); });`;

/**
 * A spawner of simulator workers as worker threads, each adapted to the RPC's endpoint; `started`
 * sees each thread (a benchmark reads its event-loop utilisation).
 */
export function nodeSimSpawner(
  s: NodeSimScript = sourceSimScript(),
  started?: (w: Worker) => void,
): () => WorkerEndpoint {
  return nodeSpawner(s, 'baton-sim', started);
}

/** A spawner of rollout workers as worker threads (`nodeSimSpawner`'s, with the rollout entry). */
export function nodeRolloutSpawner(
  s: NodeSimScript = sourceRolloutScript(),
  started?: (w: Worker) => void,
): () => WorkerEndpoint {
  return nodeSpawner(s, 'baton-rollout', started);
}

function nodeSpawner(s: NodeSimScript, name: string, started?: (w: Worker) => void): () => WorkerEndpoint {
  return () => {
    const w = s.tsx ? new Worker(tsxBoot(s.script), { eval: true, name }) : new Worker(s.script, { name });
    started?.(w);
    let stopped = false;
    const ep: WorkerEndpoint = {
      postMessage: (m) => w.postMessage(m),
      onmessage: null,
      onmessageerror: null,
      onerror: null,
      terminate: () => {
        stopped = true;
        void w.terminate();
      },
    };
    w.on('message', (data: unknown) => ep.onmessage?.({ data } as MessageEvent<unknown>));
    w.on('messageerror', (e: Error) => ep.onmessageerror?.({ data: e.message } as MessageEvent<unknown>));
    w.on('error', (e: Error) => {
      if (!stopped) ep.onerror?.({ message: e.message } as ErrorEvent);
    });
    w.on('exit', (code: number) => {
      if (!stopped) ep.onerror?.({ message: `the worker thread exited (code ${code})` } as ErrorEvent);
    });
    return ep;
  };
}
