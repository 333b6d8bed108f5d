/// <reference lib="webworker" />
import { createStore, del, get, set } from 'idb-keyval';
import { chooseBackend, useWasmThreads } from '../gpu/index.ts';
import { SNAPSHOT_IDB } from '../train/index.ts';
import { serveRpc } from './rpc/server.ts';
import { orchTrainLib } from './train-orchestrator.lib.ts';
import { orchTrainMethods } from './train-orchestrator.methods.ts';
import { fetchModelFolder, putTrainedFolder } from '../orchestrator/index.ts';
import { ORCH_CHECKPOINT_IDB, orchTrainHandlers } from './train-orchestrator.session.ts';
import { trainMethods } from './train.methods.ts';
import { trainHandlers, type ChooseBackend } from './train.session.ts';
import { browserThreadSpawner, threadsUnavailableReason } from './wasm-threads.ts';
import { startRolloutWorker, startSimWorker } from './sim.client.ts';
import { createRolloutPool } from './rollout-pool.ts';
import { createSimPool, simWorkersFor } from './sim-pool.ts';

/**
 * Trains off the main thread, on the compute backend the page asks for: the construction policy
 * (src/train `Trainer`, simulated sub-agents; `train.session.ts`) and, with the `orch*` methods, the
 * orchestrator LM by GRPO (`train-orchestrator.session.ts`). An iteration takes far longer than a
 * frame. The page drives it through `train.client.ts` and `train-orchestrator.client.ts`.
 */
const scope = self as unknown as DedicatedWorkerGlobalScope;
// Large matmuls of the wasm backend on a second thread, where the page is cross-origin isolated.
useWasmThreads(browserThreadSpawner());
const idb = typeof indexedDB !== 'undefined';
const snapshots = idb ? createStore(SNAPSHOT_IDB.db, SNAPSHOT_IDB.store) : null;
const orchStore = idb ? createStore(ORCH_CHECKPOINT_IDB.db, ORCH_CHECKPOINT_IDB.store) : null;
const choose: ChooseBackend = async (prefer, onLost, workload) => {
  const choice = await chooseBackend(prefer, {
    onLost: (reason, message) => onLost(message || reason),
    ...(workload ? { workload } : {}),
  });
  if (choice.backend !== 'wasm') return choice;
  const why = threadsUnavailableReason();
  const threads = why === null ? '2 threads for large matmuls' : `one thread (${why})`;
  return { ...choice, reason: `${choice.reason}, ${threads}` };
};

serveRpc(
  scope,
  { ...trainMethods, ...orchTrainMethods },
  {
    ...trainHandlers({
      choose,
      // A run's simulated sub-agents on this thread and simulator workers beside it; the workers
      // start with the run's first calls and stop with the run.
      simPool: (threads) =>
        createSimPool({
          workers: simWorkersFor(threads, globalThis.navigator?.hardwareConcurrency || 1),
          spawn: startSimWorker,
        }),
      // A run's rollouts in blocks on this thread and rollout workers beside it (the same count rule).
      rolloutPool: (threads) =>
        createRolloutPool({
          workers: simWorkersFor(threads, globalThis.navigator?.hardwareConcurrency || 1),
          spawn: startRolloutWorker,
        }),
      // The run's snapshot goes straight to IndexedDB (as the page's snapshot storage keeps it), not
      // through the page's main thread.
      ...(snapshots
        ? {
            storeSnapshot: (text: string) =>
              set(SNAPSHOT_IDB.key, new Blob([text], { type: 'application/json' }), snapshots),
          }
        : {}),
    }),
    ...orchTrainHandlers({
      lib: orchTrainLib,
      choose,
      readFolder: fetchModelFolder,
      ...(orchStore
        ? {
            store: {
              load: async () => {
                const raw: unknown = await get(ORCH_CHECKPOINT_IDB.key, orchStore);
                if (raw === undefined || raw === null) return null;
                return raw instanceof Blob ? raw.text() : String(raw);
              },
              save: (text: string) =>
                set(ORCH_CHECKPOINT_IDB.key, new Blob([text], { type: 'application/json' }), orchStore),
              clear: () => del(ORCH_CHECKPOINT_IDB.key, orchStore),
            },
          }
        : {}),
      ...(typeof caches !== 'undefined' ? { putFolder: putTrainedFolder } : {}),
    }),
  },
  'train',
);
