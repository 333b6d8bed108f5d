/**
 * The Node spawner of the wasm backend's second matmul thread (src/gpu/wasm/threads.ts): a
 * worker_threads worker evaluating the thread's program, given the shared module and memory as
 * workerData. Unreferenced, so an idle thread does not keep the process alive.
 */
import { Worker } from 'node:worker_threads';
import type { ThreadInit, ThreadSpawner } from '../gpu/index.ts';

export const nodeThreadSpawner: ThreadSpawner = (source: string, init: ThreadInit) =>
  new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData: init });
    worker.once('message', (m) => {
      if (m === 'ready') {
        worker.unref();
        resolve({ terminate: () => void worker.terminate() });
      }
    });
    worker.once('error', reject);
  });
