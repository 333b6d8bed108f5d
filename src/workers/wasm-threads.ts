/**
 * Spawners of the wasm backend's second matmul thread (src/gpu/wasm/threads.ts). In a page, only
 * when it is cross-origin isolated (the dev server and `vite preview` send COOP/COEP; see
 * docs/compute-core.md): a classic worker from a Blob URL, given the shared module and memory in its
 * first message. Elsewhere `browserThreadSpawner()` is null and the backend runs on one thread.
 */
import type { ThreadInit, ThreadSpawner } from '../gpu/index.ts';

/** Why threads are off in this context, or null when they can be used. */
export function threadsUnavailableReason(): string | null {
  const g = globalThis as { crossOriginIsolated?: boolean };
  if (typeof Worker === 'undefined') return 'no Worker in this context';
  if (typeof SharedArrayBuffer === 'undefined' || g.crossOriginIsolated !== true)
    return 'the page is not cross-origin isolated (COOP/COEP headers missing)';
  return null;
}

/** The spawner for a page or a page's worker, or null when threads are unavailable there. */
export function browserThreadSpawner(): ThreadSpawner | null {
  if (threadsUnavailableReason() !== null) return null;
  return (source: string, init: ThreadInit) =>
    new Promise((resolve, reject) => {
      const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
      const worker = new Worker(url, { name: 'baton-wasm-matmul' });
      URL.revokeObjectURL(url);
      worker.onmessage = (e) => {
        if (e.data === 'ready') resolve(worker);
      };
      worker.onerror = (e) => {
        worker.terminate();
        reject(new Error(`the wasm matmul thread did not start: ${e.message}`));
      };
      worker.postMessage(init);
    });
}
