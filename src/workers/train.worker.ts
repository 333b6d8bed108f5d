/// <reference lib="webworker" />
import { createStore, set } from 'idb-keyval';
import { chooseBackend, useWasmThreads } from '../gpu/index.ts';
import { SNAPSHOT_IDB } from '../train/index.ts';
import { serveRpc } from './rpc/server.ts';
import { trainMethods } from './train.methods.ts';
import { trainHandlers } from './train.session.ts';
import { browserThreadSpawner, threadsUnavailableReason } from './wasm-threads.ts';

/**
 * Trains the construction policy off the main thread (src/train `Trainer`, simulated sub-agents),
 * on the compute backend the page asks for: an iteration takes far longer than a frame. The page
 * drives it through `train.client.ts`; what each method does is in `train.session.ts`.
 */
const scope = self as unknown as DedicatedWorkerGlobalScope;
// Large matmuls of the wasm backend on a second thread, where the page is cross-origin isolated.
useWasmThreads(browserThreadSpawner());
const snapshots = typeof indexedDB === 'undefined' ? null : createStore(SNAPSHOT_IDB.db, SNAPSHOT_IDB.store);

serveRpc(
  scope,
  trainMethods,
  trainHandlers({
    choose: async (prefer, onLost) => {
      const choice = await chooseBackend(prefer, { onLost: (reason, message) => onLost(message || reason) });
      if (choice.backend !== 'wasm') return choice;
      const why = threadsUnavailableReason();
      const threads = why === null ? '2 threads for large matmuls' : `one thread (${why})`;
      return { ...choice, reason: `${choice.reason}, ${threads}` };
    },
    // The run's snapshot goes straight to IndexedDB (as the page's snapshot storage keeps it), not
    // through the page's main thread.
    ...(snapshots
      ? {
          storeSnapshot: (text: string) =>
            set(SNAPSHOT_IDB.key, new Blob([text], { type: 'application/json' }), snapshots),
        }
      : {}),
  }),
  'train',
);
